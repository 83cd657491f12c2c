import { describe, expect, it } from 'vitest';
import { makePdf } from '#test/pdf-fixtures.ts';
import { checkPdfBytes, maxChecksPerAccount } from './pdf-check-pool.ts';

describe('the pool that checks uploaded PDFs', () => {
  it('holds at most a few files of one account at once, so one account cannot keep everyone else’s uploads waiting; others go on', async () => {
    const pdf = await makePdf(1, 'Pool share');
    // Started in one tick: none has finished when the next is asked for.
    const mine = Array.from({ length: maxChecksPerAccount + 2 }, (_, index) =>
      checkPdfBytes(pdf, `mine-${index}.pdf`, 'account-a').then(
        (pages) => ({ pages }),
        (error: { statusCode?: number; code?: string; message?: string }) => ({ statusCode: error.statusCode, code: error.code, message: error.message }),
      ),
    );
    const theirs = checkPdfBytes(pdf, 'theirs.pdf', 'account-b');
    const answers = await Promise.all(mine);
    expect(answers.slice(0, maxChecksPerAccount)).toEqual(Array.from({ length: maxChecksPerAccount }, () => ({ pages: 1 })));
    expect(answers.slice(maxChecksPerAccount)).toEqual([
      {
        statusCode: 429,
        code: 'rate_limited',
        message: `mine-4.pdf: ${maxChecksPerAccount} of your documents are being checked right now. Add this one again when they are done.`,
      },
      {
        statusCode: 429,
        code: 'rate_limited',
        message: `mine-5.pdf: ${maxChecksPerAccount} of your documents are being checked right now. Add this one again when they are done.`,
      },
    ]);
    expect(await theirs).toBe(1);
    // Once they are done, the account may add more.
    expect(await checkPdfBytes(pdf, 'later.pdf', 'account-a')).toBe(1);
  });
});
