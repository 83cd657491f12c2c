import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GnwJob } from '#shared/gnw.ts';
import { cancelGnwJob, type CancelQuestion } from './cancel-flow.ts';

const jobId = '6f1f6c2e-3b7a-4f5e-9a0b-1c2d3e4f5a6b';
const job = {
  jobId,
  payment: { status: 'held', amountCents: 3900, capturedCents: null },
  cancelFeeCents: 0,
  booking: {
    id: 'b1',
    startsAt: '2026-12-01T15:30:00Z',
    endsAt: '2026-12-01T16:00:00Z',
    timeZone: 'America/Chicago',
    notaryName: 'Nora',
    label: '9:30 AM CST',
  },
} satisfies Partial<GnwJob>;
const cancelled = { ...job, status: 'cancelled' } as unknown as GnwJob;

/** The server: a cancel without acceptFee answers 409 no_show_fee_applies when `isLate`. */
function stubCancel(isLate: boolean) {
  const bodies: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit) => {
      const body = JSON.parse(String(init.body)) as { acceptFee?: boolean };
      bodies.push(body);
      if (isLate && !body.acceptFee) {
        const refusal = { error: 'no_show_fee_applies', message: 'Your booked time is in less than 15 minutes.', detail: { feeCents: 2500 } };
        return new Response(JSON.stringify(refusal), { status: 409 });
      }
      return new Response(JSON.stringify(cancelled), { status: 200 });
    }),
  );
  return bodies;
}

beforeEach(() => {
  vi.stubGlobal('sessionStorage', { getItem: () => null });
  vi.stubGlobal('localStorage', { getItem: () => null });
  vi.stubGlobal('window', { location: { port: '3000' } });
});
afterEach(() => vi.unstubAllGlobals());

/** The parse of the answer needs a whole job; the stand-in job is checked by shape, so the cancel is called directly with the app's client. */
async function run(isLate: boolean, answers: boolean[]) {
  const bodies = stubCancel(isLate);
  const asked: CancelQuestion[] = [];
  const result = await cancelGnwJob(
    job,
    async (question) => {
      asked.push(question);
      return answers.shift() ?? false;
    },
    async (input) => {
      const { api } = await import('#web/lib/api.ts');
      return api.post('/api/gnw/cancel', input);
    },
  );
  return { bodies, asked, result };
}

describe('cancelGnwJob', () => {
  it('asks once, saying the hold is released, and cancels', async () => {
    const { bodies, asked, result } = await run(false, [true]);
    expect(asked.map((question) => question.title)).toEqual(['Cancel this notarization?']);
    expect(asked[0]?.description).toBe('Your booked time (9:30 AM CST) is given up. The $39.00 held on your card is released: nothing is taken.');
    expect(bodies).toEqual([{ jobId }]);
    expect(result).toMatchObject({ status: 'cancelled' });
  });

  it('sends nothing when the person keeps the notarization', async () => {
    const { bodies, result } = await run(false, [false]);
    expect(bodies).toEqual([]);
    expect(result).toBeNull();
  });

  it('asks a second question with the fee when the server says a no-show fee applies, then cancels with acceptFee', async () => {
    const { bodies, asked, result } = await run(true, [true, true]);
    expect(asked[1]).toEqual({
      title: 'Cancel and pay the $25.00 no-show fee?',
      description:
        'Your booked time is in less than 15 minutes. If you cancel now, the $25.00 no-show fee is taken from your card and the rest of the hold is released.',
      confirmLabel: 'Cancel and pay $25.00',
      cancelLabel: 'Keep my booking',
    });
    expect(bodies).toEqual([{ jobId }, { jobId, acceptFee: true }]);
    expect(result).toMatchObject({ status: 'cancelled' });
  });

  it('cancels nothing when the person declines the fee', async () => {
    const { bodies, result } = await run(true, [true, false]);
    expect(bodies).toEqual([{ jobId }]);
    expect(result).toBeNull();
  });
});
