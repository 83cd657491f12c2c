import { describe, expect, it } from 'vitest';
import { describeNetwork } from './use-network-check.ts';

describe('describeNetwork', () => {
  it('says a fast server and a browser that gathers candidates are fine', () => {
    expect(describeNetwork({ state: 'done', roundTripMs: 42, canGatherCandidates: true })).toEqual([
      { sentence: 'The server answered in 42 ms.', isProblem: false },
      { sentence: 'Your browser can make video connections.', isProblem: false },
    ]);
  });

  it('names a silent or slow server and a browser that cannot prepare a connection as problems', () => {
    const silent = describeNetwork({ state: 'done', roundTripMs: null, canGatherCandidates: false });
    expect(silent.map((line) => line.isProblem)).toEqual([true, true]);
    expect(silent[0]?.sentence).toMatch(/^The server did not answer\./);
    expect(silent[1]?.sentence).toMatch(/could not prepare a video connection/);
    expect(describeNetwork({ state: 'done', roundTripMs: 1200, canGatherCandidates: true })[0]).toEqual({
      sentence: 'The server answered slowly (1200 ms). Video may stutter; a wired or stronger connection helps.',
      isProblem: true,
    });
  });

  it('says it is still checking', () => {
    expect(describeNetwork({ state: 'checking', roundTripMs: null, canGatherCandidates: null })).toEqual([
      { sentence: 'Checking your connection…', isProblem: false },
    ]);
  });
});
