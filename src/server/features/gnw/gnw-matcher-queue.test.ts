import { describe, expect, it, vi } from 'vitest';
import type { MatcherCtx } from './gnw-matching.ts';
import { isMatcherBusy, requestMatchingPass, whenMatcherIdle } from './gnw-matching.ts';

/** A database whose every transaction waits for `open` and then fails: each pass is one transaction, counted. */
function countingCtx() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const transaction = vi.fn(async () => {
    await gate;
    throw new Error('this database only counts');
  });
  const warn = vi.fn();
  const ctx = { db: { transaction }, realtime: {}, log: { warn, error: vi.fn() } } as unknown as MatcherCtx;
  return { ctx, transaction, warn, open };
}

describe('the matcher’s queue of passes on one instance', () => {
  it('runs one pass at a time: every ask made while a pass runs shares the single pass after it', async () => {
    const { ctx, transaction, warn, open } = countingCtx();
    const first = requestMatchingPass(ctx);
    const during = Array.from({ length: 20 }, () => requestMatchingPass(ctx));
    expect(isMatcherBusy(ctx)).toBe(true);
    // Only the first pass has begun; the twenty asks wait for one more.
    await Promise.resolve();
    expect(transaction).toHaveBeenCalledTimes(1);
    open();
    await Promise.all([first, ...during]);
    expect(transaction).toHaveBeenCalledTimes(2);
    // A failed pass is logged, never the asker's failure.
    expect(warn).toHaveBeenCalledTimes(2);
    await whenMatcherIdle(ctx);
    expect(isMatcherBusy(ctx)).toBe(false);
  });

  it('answers an ask made after a pass ended with a pass of its own', async () => {
    const { ctx, transaction, open } = countingCtx();
    open();
    await requestMatchingPass(ctx);
    await requestMatchingPass(ctx);
    expect(transaction).toHaveBeenCalledTimes(2);
  });
});
