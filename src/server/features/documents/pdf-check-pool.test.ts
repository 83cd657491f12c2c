import { describe, expect, it } from 'vitest';
import { makePdf } from '#test/pdf-fixtures.ts';
import { checkPdfBytes, maxChecksPerAccount, maxChecksPerNetwork, readyCheckingThreads, startCheckingPdfs, stopCheckingPdfs } from './pdf-check-pool.ts';

describe('the pool that checks uploaded PDFs', () => {
  it('holds at most a few files of one account at once, so one account cannot keep everyone else’s uploads waiting; others go on', async () => {
    const pdf = await makePdf(1, 'Pool share');
    // Started in one tick: none has finished when the next is asked for.
    const mine = Array.from({ length: maxChecksPerAccount + 2 }, (_, index) =>
      checkPdfBytes(pdf, `mine-${index}.pdf`, { account: 'account-a', network: 'network-a' }).then(
        (pages) => ({ pages }),
        (error: { statusCode?: number; code?: string; message?: string }) => ({ statusCode: error.statusCode, code: error.code, message: error.message }),
      ),
    );
    const theirs = checkPdfBytes(pdf, 'theirs.pdf', { account: 'account-b', network: 'network-b' });
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
    expect(await checkPdfBytes(pdf, 'later.pdf', { account: 'account-a', network: 'network-a' })).toBe(1);
  });

  it('holds at most a few more files of one network at once, whatever accounts they come from; another network goes on', async () => {
    const pdf = await makePdf(1, 'Network share');
    const fromOnePlace = Array.from({ length: maxChecksPerNetwork + 1 }, (_, index) =>
      checkPdfBytes(pdf, `file-${index}.pdf`, { account: `account-${index}`, network: '203.0.113.9' }).then(
        (pages) => ({ pages }),
        (error: { statusCode?: number; message?: string }) => ({ statusCode: error.statusCode, message: error.message }),
      ),
    );
    const elsewhere = checkPdfBytes(pdf, 'elsewhere.pdf', { account: 'account-x', network: '198.51.100.7' });
    const answers = await Promise.all(fromOnePlace);
    expect(answers.filter((answer) => 'pages' in answer)).toHaveLength(maxChecksPerNetwork);
    expect(answers.at(-1)).toEqual({
      statusCode: 429,
      message: `file-${maxChecksPerNetwork}.pdf: ${maxChecksPerNetwork} documents from your network are being checked right now. Add this one again when they are done.`,
    });
    expect(await elsewhere).toBe(1);
  });

  it('starts a thread before the first upload when the server starts, and no second one', async () => {
    await stopCheckingPdfs();
    expect(readyCheckingThreads()).toBe(0);
    await startCheckingPdfs();
    expect(readyCheckingThreads()).toBe(1);
    await startCheckingPdfs();
    expect(await checkPdfBytes(await makePdf(2), 'two.pdf')).toBe(2);
    expect(readyCheckingThreads()).toBe(1);
  });
});
