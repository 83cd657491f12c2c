import { describe, expect, it } from 'vitest';
import { ContinuousSource } from './continuous-source.ts';

describe('continuous source', () => {
  it('passes a first connection through and continues a reconnection from where it stopped', () => {
    let now = 1_000;
    const source = new ContinuousSource(90_000, () => now);
    expect(source.rewrite({ ssrc: 1, sequenceNumber: 65_535, timestamp: 4_000 })).toEqual({ sequenceNumber: 65_535, timestamp: 4_000 });
    now += 20;
    expect(source.rewrite({ ssrc: 1, sequenceNumber: 0, timestamp: 7_000 })).toEqual({ sequenceNumber: 0, timestamp: 7_000 });

    // Half a second later the participant is back with a new SSRC and unrelated numbering.
    now += 500;
    expect(source.rewrite({ ssrc: 2, sequenceNumber: 30_000, timestamp: 2 ** 32 - 100 })).toEqual({ sequenceNumber: 1, timestamp: 7_000 + 45_000 });
    now += 20;
    expect(source.rewrite({ ssrc: 2, sequenceNumber: 30_001, timestamp: 1_700 })).toEqual({ sequenceNumber: 2, timestamp: 7_000 + 45_000 + 1_800 });
  });
});
