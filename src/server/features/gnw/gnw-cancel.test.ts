import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, instantOffers, instantRequests, jobCharges, jobs, payments, priceItems, sessionBookings } from '#server/db/schema/index.ts';
import { type TestApp, type TestUser } from '#test/create-test-app.ts';
import { addMinutes, noShowPrice, wholeHourAhead, type BookingKit, closeStripeBookingApp, startStripeBookingApp } from '#test/booking-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import type { StripeStandIn } from '#test/stripe-stand-in.ts';
import { readGnwJobForSchedule } from './gnw-schedule-reader.ts';

/** Cancelling a Notarize Now request (decision 051): every path of the card hold, on the Stripe stand-in. */

let t: TestApp;
let stripe: StripeStandIn;
let kit: BookingKit;

beforeAll(async () => {
  ({ t, stripe, kit } = await startStripeBookingApp());
});
afterAll(() => closeStripeBookingApp({ t, stripe }));

let dayOffset = 0;
/** A person with a held request booked with a notary at a time days ahead; the ids and the PaymentIntent. */
async function bookedRequest(): Promise<{ person: TestUser; notary: TestUser; jobId: string; intentId: string; bookingId: string }> {
  dayOffset += 1;
  const day = wholeHourAhead(24 * (2 + dayOffset));
  const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 30)]], { name: 'Nora Notary' });
  const person = await kit.createPerson();
  const jobId = await kit.createRequest(person);
  const res = await kit.book(person, { jobId, notaryId: notary.id, startsAt: day.toISOString() });
  expect(res.statusCode, res.body).toBe(200);
  const [payment] = await t.db.select().from(payments).where(eq(payments.jobId, jobId));
  const [booking] = await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId));
  return { person, notary, jobId, intentId: payment!.externalId!, bookingId: booking!.id };
}

/** The booked time moved to `minutes` from now, as the clock reaching it would. */
async function bookingStartsIn(jobId: string, minutes: number) {
  const startsAt = new Date(Date.now() + minutes * 60_000);
  await t.db
    .update(sessionBookings)
    .set({ startsAt, endsAt: addMinutes(startsAt, 30) })
    .where(eq(sessionBookings.jobId, jobId));
  await t.db.update(jobs).set({ scheduledAt: startsAt }).where(eq(jobs.id, jobId));
}

async function stateOf(jobId: string) {
  const [[request], [job], [booking], paymentRows, charges] = await Promise.all([
    t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId)),
    t.db.select().from(jobs).where(eq(jobs.id, jobId)),
    t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId)),
    t.db.select().from(payments).where(eq(payments.jobId, jobId)),
    t.db.select().from(jobCharges).where(eq(jobCharges.jobId, jobId)),
  ]);
  return {
    request: request?.status,
    job: job?.status,
    booking: booking ? { status: booking.status, sequence: booking.sequence } : null,
    payment: paymentRows.map((row) => ({ status: row.status, capturedCents: row.capturedCents })),
    charges: charges.map((row) => [row.key, row.amountCents]),
  };
}

async function sentences(jobId: string): Promise<string[]> {
  const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, jobId)).orderBy(auditEvents.sequence);
  return rows
    .filter((row) => /^(gnw|booking|payment)\./.test(row.action))
    .map((row) => describeAuditEvent({ action: row.action, actorName: 'Sam Signer', data: (row.data ?? {}) as Record<string, unknown> }));
}

describe('a free cancel', () => {
  it('of a booked time days ahead cancels booking, job and request, sends both sides the calendar’s CANCEL, and releases the hold', async () => {
    const { person, notary, jobId, intentId, bookingId } = await bookedRequest();
    const res = await kit.cancel(person, { jobId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      jobId,
      status: 'cancelled',
      jobStatus: 'cancelled',
      booking: null,
      cancelFeeCents: null,
      payment: { status: 'released' },
    });
    expect(await stateOf(jobId)).toEqual({
      request: 'cancelled',
      job: 'cancelled',
      booking: { status: 'cancelled', sequence: 1 },
      payment: [{ status: 'released', capturedCents: null }],
      charges: [],
    });
    expect(stripe.intents.get(intentId)?.status).toBe('canceled');
    expect(stripe.capturesDone(intentId)).toBe(0);
    const host = new URL(t.config.publicUrl).hostname;
    for (const who of [person, notary]) {
      const mail = (await kit.mailTo(who.email)).find((row) => row.kind === 'session_cancelled');
      expect(mail?.subject).toMatch(/^Cancelled: your session on /);
      const lines = mail!.attachments![0]!.content.replace(/\r\n /g, '').split('\r\n');
      expect(lines).toEqual(expect.arrayContaining(['METHOD:CANCEL', `UID:booking-${bookingId}@${host}`, 'SEQUENCE:1', 'STATUS:CANCELLED']));
    }
    const trail = await sentences(jobId);
    expect(trail).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Sam Signer cancelled the session booked with Nora Notary for [A-Z][a-z]+day, /),
        'Sam Signer cancelled the Notarize Now request.',
        expect.stringMatching(/^The \$\d+\.\d{2} hold on the card was released; nothing was charged\.$/),
      ]),
    );
  });

  it('of a request still searching takes back the ringing offer and releases the hold', async () => {
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person, { status: 'searching', lane: 'instant' });
    const offer = await kit.addOpenOffer(jobId, await createNotary(t));
    const res = await kit.cancel(person, { jobId, acceptFee: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(await stateOf(jobId)).toMatchObject({ request: 'cancelled', job: 'cancelled', booking: null, payment: [{ status: 'released' }], charges: [] });
    const [after] = await t.db.select().from(instantOffers).where(eq(instantOffers.id, offer.id));
    expect(after?.status).toBe('withdrawn');
  });

  it('is free within 15 minutes when the prices have no no-show item', async () => {
    const { person, jobId, intentId } = await bookedRequest();
    await bookingStartsIn(jobId, 10);
    await t.db.delete(priceItems).where(eq(priceItems.key, noShowPrice.key));
    try {
      const res = await kit.cancel(person, { jobId });
      expect(res.statusCode, res.body).toBe(200);
      expect(await stateOf(jobId)).toMatchObject({ job: 'cancelled', payment: [{ status: 'released' }], charges: [] });
      expect(stripe.capturesDone(intentId)).toBe(0);
    } finally {
      await t.db.insert(priceItems).values({ ...noShowPrice, companyId: null, position: 10 });
    }
  });
});

describe('a cancel through the job itself', () => {
  it('by its owner with PATCH /api/jobs/{id} ends the booking and the request as /api/gnw/cancel would, and releases the hold', async () => {
    const { person, notary, jobId, intentId } = await bookedRequest();
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    const res = await kit.jobs.call(person, 'PATCH', `/api/jobs/${jobId}`, { status: 'cancelled', version: job!.version });
    expect(res.statusCode, res.body).toBe(200);
    expect(await stateOf(jobId)).toEqual({
      request: 'cancelled',
      job: 'cancelled',
      booking: { status: 'cancelled', sequence: 1 },
      payment: [{ status: 'released', capturedCents: null }],
      charges: [],
    });
    expect(stripe.capturesDone(intentId)).toBe(0);
    for (const who of [person, notary]) {
      expect((await kit.mailTo(who.email)).filter((row) => row.kind === 'session_cancelled')).toHaveLength(1);
    }
    expect(await sentences(jobId)).toEqual(expect.arrayContaining(['Sam Signer cancelled the Notarize Now request.']));
    // The person can start afresh: the cancelled request is not their active one.
    expect((await kit.jobs.call(person, 'GET', '/api/gnw/active')).json()).toEqual({ job: null });
  });
});

describe('a late cancel', () => {
  it('within 15 minutes is refused without acceptFee, with the amount in a sentence, and changes nothing', async () => {
    const { person, jobId, intentId } = await bookedRequest();
    await bookingStartsIn(jobId, 10);
    const before = await stateOf(jobId);
    const res = await kit.cancel(person, { jobId });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'no_show_fee_applies',
      message: expect.stringMatching(
        /^Cancelling now costs \$25\.00, the no-show fee: your session \(.+\) starts in less than 15 minutes\. To cancel and pay it, confirm the fee\.$/,
      ),
      detail: { feeCents: 2500 },
    });
    expect(await stateOf(jobId)).toEqual(before);
    expect(before).toMatchObject({
      request: 'booked',
      job: 'scheduled',
      booking: { status: 'booked', sequence: 0 },
      payment: [{ status: 'held' }],
      charges: [],
    });
    expect(stripe.intents.get(intentId)?.status).toBe('requires_capture');
    expect((await kit.mailTo(person.email)).filter((row) => row.kind === 'session_cancelled')).toEqual([]);
  });

  it('with acceptFee captures exactly the no-show fee from the hold, once, even when the cancel is sent again', async () => {
    const { person, jobId, intentId } = await bookedRequest();
    await bookingStartsIn(jobId, 10);
    const res = await kit.cancel(person, { jobId, acceptFee: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'cancelled', payment: { status: 'captured', capturedCents: 2500 } });
    expect(await stateOf(jobId)).toEqual({
      request: 'cancelled',
      job: 'cancelled',
      booking: { status: 'cancelled', sequence: 1 },
      payment: [{ status: 'captured', capturedCents: 2500 }],
      charges: [['no_show', 2500]],
    });
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect(stripe.intents.get(intentId)?.amount_received).toBe(2500);
    const again = await kit.cancel(person, { jobId, acceptFee: true });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'This request is cancelled already.' });
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect(await sentences(jobId)).toEqual(
      expect.arrayContaining([
        'Sam Signer cancelled the Notarize Now request; the no-show fee of $25.00 applies, as the booked time had passed or was less than 15 minutes away.',
        '$25.00 was captured from the card held for this job.',
      ]),
    );
    const mail = (await kit.mailTo(person.email)).find((row) => row.kind === 'session_cancelled');
    expect(mail?.textBody).toContain('The no-show fee of $25.00 was charged to the card held for it; the rest of the hold was released.');
  });

  it('after the booked time has passed costs the fee as well', async () => {
    const { person, jobId, intentId } = await bookedRequest();
    await bookingStartsIn(jobId, -5);
    const refused = await kit.cancel(person, { jobId });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/your session \(.+\) has started\./);
    const res = await kit.cancel(person, { jobId, acceptFee: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(stripe.capturesDone(intentId)).toBe(1);
    expect(await stateOf(jobId)).toMatchObject({ payment: [{ status: 'captured', capturedCents: 2500 }] });
  });

  it('is told before it is asked: the request as read says what cancelling would cost now', async () => {
    const { jobId } = await bookedRequest();
    expect((await readGnwJobForSchedule(t.db, jobId)).cancelFeeCents).toBe(0);
    await bookingStartsIn(jobId, 10);
    expect((await readGnwJobForSchedule(t.db, jobId)).cancelFeeCents).toBe(2500);
  });
});
