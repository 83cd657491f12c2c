import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantRequests, jobs, notaryProfiles, payments, sessionBookings, users } from '#server/db/schema/index.ts';
import { type TestApp, type TestUser } from '#test/create-test-app.ts';
import { addMinutes, wholeHourAhead, type BookingKit, closeStripeBookingApp, startStripeBookingApp } from '#test/booking-fixtures.ts';
import type { StripeStandIn } from '#test/stripe-stand-in.ts';

/** What outsiders try on the scheduled lane and cancel (decision 051): nobody reaches a request that is not theirs. */

let t: TestApp;
let stripe: StripeStandIn;
let kit: BookingKit;
let owner: TestUser;
let stranger: TestUser;
let notary: TestUser;
let jobId: string;
let day: Date;

beforeAll(async () => {
  ({ t, stripe, kit } = await startStripeBookingApp());
  day = wholeHourAhead(24 * 2);
  notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 120)]], { name: 'Nora Notary' });
  owner = await kit.createPerson('Owen Owner');
  stranger = await kit.createPerson('Stan Stranger');
  jobId = await kit.createRequest(owner, { status: 'unmatched', lane: 'instant' });
});
afterAll(() => closeStripeBookingApp({ t, stripe }));

const calls = () => [
  { url: '/api/gnw/schedule/slots', payload: { jobId, timeZone: 'UTC' } },
  { url: '/api/gnw/schedule/book', payload: { jobId, notaryId: notary.id, startsAt: day.toISOString(), timeZone: 'UTC' } },
  { url: '/api/gnw/switch-to-scheduled', payload: { jobId } },
  { url: '/api/gnw/cancel', payload: { jobId, acceptFee: true } },
];

async function unchanged() {
  const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
  const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
  const [payment] = await t.db.select().from(payments).where(eq(payments.jobId, jobId));
  expect(request).toMatchObject({ status: 'unmatched', lane: 'instant' });
  expect(job).toMatchObject({ status: 'draft', notaryId: null, scheduledAt: null });
  expect(payment?.status).toBe('held');
  expect(await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId))).toEqual([]);
}

describe('who may call', () => {
  it('refuses anyone not signed in (401)', async () => {
    for (const call of calls()) {
      const res = await t.app.inject({ method: 'POST', url: call.url, payload: call.payload });
      expect(res.statusCode, call.url).toBe(401);
      expect(res.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
    }
    await unchanged();
  });

  it('answers another person, the notary on offer and an administrator 404 for someone else’s request, and changes nothing', async () => {
    const admin = await t.createUser({ roles: ['admin'] });
    for (const who of [stranger, notary, admin]) {
      for (const call of calls()) {
        const res = await kit.jobs.call(who, 'POST', call.url, call.payload);
        expect(res.statusCode, `${who.name} ${call.url}`).toBe(404);
        expect(res.json()).toEqual({ error: 'not_found', message: 'No Notarize Now request with that job id is yours.' });
      }
    }
    await unchanged();
  });

  it('does not let the job’s notary cancel the person’s booked request', async () => {
    const person = await kit.createPerson();
    const booked = await kit.createRequest(person);
    expect((await kit.book(person, { jobId: booked, notaryId: notary.id, startsAt: addMinutes(day, 90).toISOString() })).statusCode).toBe(200);
    const res = await kit.cancel(notary, { jobId: booked });
    expect(res.statusCode).toBe(404);
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, booked));
    expect(request?.status).toBe('booked');
  });
});

describe('what cannot be booked', () => {
  it('never books the person themselves as the notary, nor a notary who may not take work', async () => {
    // A person who is also an approved notary with open time of their own.
    const notaryPerson = await kit.createPerson('Self Sally');
    const ownJob = await kit.createRequest(notaryPerson);
    await t.db
      .update(users)
      .set({ roles: ['signer', 'notary'] })
      .where(eq(users.id, notaryPerson.id));
    await t.db.insert(notaryProfiles).values({
      userId: notaryPerson.id,
      commissionState: 'VA',
      commissionNumber: `VA-${notaryPerson.id.slice(0, 8)}`,
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
      approvalStatus: 'approved',
      approvedAt: new Date(),
    });
    await kit.addSlots(notaryPerson, [[day, addMinutes(day, 30)]]);
    const self = await kit.book(notaryPerson, { jobId: ownJob, notaryId: notaryPerson.id, startsAt: day.toISOString() });
    expect(self.statusCode).toBe(409);
    expect(self.json().error).toBe('slot_taken');
    const pending = await kit.createNotaryWithSlots([[day, addMinutes(day, 30)]], { approvalStatus: 'pending' });
    const person = await kit.createPerson();
    const job = await kit.createRequest(person);
    const res = await kit.book(person, { jobId: job, notaryId: pending.id, startsAt: day.toISOString() });
    expect(res.statusCode).toBe(409);
    expect(await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, job))).toEqual([]);
  });
});

describe('bad input', () => {
  const cases: Array<[string, string, Record<string, unknown>]> = [
    ['an unknown time zone', '/api/gnw/schedule/slots', { timeZone: 'Mars/Olympus' }],
    ['a time zone with a NUL', '/api/gnw/schedule/slots', { timeZone: 'America/Chicago\u0000' }],
    ['a huge time zone', '/api/gnw/schedule/slots', { timeZone: 'A'.repeat(100_000) }],
    ['days past 14', '/api/gnw/schedule/slots', { timeZone: 'UTC', days: 15 }],
    ['a from that is no date', '/api/gnw/schedule/slots', { timeZone: 'UTC', from: '2026-13-45x' }],
    ['an unknown key', '/api/gnw/schedule/slots', { timeZone: 'UTC', extra: 1 }],
    ['a jobId that is no id', '/api/gnw/cancel', { jobId: 'x\u0000y' }],
    ['acceptFee that is no boolean', '/api/gnw/cancel', { jobId: '00000000-0000-4000-8000-000000000000', acceptFee: 'yes' }],
    [
      'a startsAt that is no time',
      '/api/gnw/schedule/book',
      { jobId: '00000000-0000-4000-8000-000000000000', notaryId: '00000000-0000-4000-8000-000000000000', startsAt: 'soon', timeZone: 'UTC' },
    ],
    ['no body at all', '/api/gnw/switch-to-scheduled', {}],
  ];
  it.each(cases)('answers %s with 400 and a sentence', async (_name, url, payload) => {
    const res = await kit.jobs.call(owner, 'POST', url, payload);
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.error).toMatch(/^(validation_failed|bad_request|payload_too_large)$/);
    // The contract's words (shared/gnw.ts), or the validator's for what it does not word itself.
    expect(body.message).toMatch(/^\S.{5,300}$/);
    expect(body.message).not.toMatch(/\bat \S+:\d+|undefined/);
  });

  it('answers a date from that does not exist with 400, not a 500', async () => {
    const res = await kit.jobs.call(owner, 'POST', '/api/gnw/schedule/slots', { timeZone: 'UTC', from: '2026-02-30' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'bad_request', message: 'from must be a date that exists (YYYY-MM-DD): 2026-02-30 does not.' });
  });

  it('leaves the request as it was after all of it', async () => {
    await unchanged();
  });
});
