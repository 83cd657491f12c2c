import { and, eq } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, instantOffers, instantRequests, jobs, localMailbox, payments, sessionBookings } from '#server/db/schema/index.ts';
import { type TestApp, type TestUser } from '#test/create-test-app.ts';
import { addMinutes, wholeHourAhead, type BookingKit, closeStripeBookingApp, startStripeBookingApp } from '#test/booking-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import type { StripeStandIn } from '#test/stripe-stand-in.ts';

/**
 * Round two of what outsiders and racing clicks try against Notarize Now (decision 051): two calls at
 * once on one request (accept against cancel, book against PATCH-cancel, two cancels), PATCH on a
 * booked job by people who are not its owner, bad bodies to PATCH, and the administrators' mailbox
 * attachment download. Every answer is a sentence, never a 500, and a refused call changes nothing.
 */

const slow = { timeout: 120_000 };

let t: TestApp;
let stripe: StripeStandIn;
let kit: BookingKit;

beforeAll(async () => {
  ({ t, stripe, kit } = await startStripeBookingApp());
});
afterAll(() => closeStripeBookingApp({ t, stripe }));

let dayOffset = 0;
/** A person's request booked with a notary days ahead. */
async function bookedRequest(): Promise<{ person: TestUser; notary: TestUser; jobId: string; bookingId: string }> {
  dayOffset += 1;
  const day = wholeHourAhead(24 * (3 + dayOffset));
  const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 30)]], { name: 'Nora Notary' });
  const person = await kit.createPerson();
  const jobId = await kit.createRequest(person);
  const res = await kit.book(person, { jobId, notaryId: notary.id, startsAt: day.toISOString() });
  expect(res.statusCode, res.body).toBe(200);
  const [booking] = await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId));
  return { person, notary, jobId, bookingId: booking!.id };
}

/** A person's instant request searching, its one offer ringing at a notary. */
async function ringingRequest() {
  const person = await kit.createPerson();
  const notary = await createNotary(t, { name: 'Rita Ringing' });
  const jobId = await kit.createRequest(person, { status: 'searching', lane: 'instant' });
  const offer = await kit.addOpenOffer(jobId, notary);
  return { person, notary, jobId, offer };
}

async function stateOf(jobId: string) {
  const [[request], [job], bookings, paymentRows, offers] = await Promise.all([
    t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId)),
    t.db.select().from(jobs).where(eq(jobs.id, jobId)),
    t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId)),
    t.db.select().from(payments).where(eq(payments.jobId, jobId)),
    t.db
      .select({ status: instantOffers.status })
      .from(instantOffers)
      .innerJoin(instantRequests, eq(instantRequests.id, instantOffers.requestId))
      .where(eq(instantRequests.jobId, jobId)),
  ]);
  return {
    request: request?.status,
    job: job?.status,
    notaryId: job?.notaryId ?? null,
    scheduledAt: job?.scheduledAt?.toISOString() ?? null,
    version: job?.version,
    bookings: bookings.map((row) => ({ status: row.status, sequence: row.sequence, startsAt: row.startsAt.toISOString() })),
    payments: paymentRows.map((row) => row.status),
    offers: offers.map((row) => row.status),
  };
}

const auditCount = async (jobId: string, action: string) =>
  (
    await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, jobId), eq(auditEvents.action, action)))
  ).length;

const mailsOfKind = async (address: string, kind: string) => (await kit.mailTo(address)).filter((row) => row.kind === kind).length;

const patch = (user: TestUser, jobId: string, body: Record<string, unknown>) => kit.jobs.call(user, 'PATCH', `/api/jobs/${jobId}`, body);
const accept = (user: TestUser, offerId: string) => kit.jobs.call(user, 'POST', `/api/gnw/offers/${offerId}/accept`, {});
const versionOf = async (jobId: string) => (await t.db.select({ version: jobs.version }).from(jobs).where(eq(jobs.id, jobId)))[0]!.version;

/** Every answer is a sentence of the SPEC's shape, never a 500. */
function expectSentence(res: { statusCode: number; json(): unknown }) {
  expect(res.statusCode).toBeLessThan(500);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['error', 'message']));
  expect(Object.keys(body).every((key) => ['error', 'message', 'detail'].includes(key))).toBe(true);
  expect(typeof body.message).toBe('string');
}

describe('two calls at once', () => {
  it('accept against the person’s cancel: the cancel always stands, and the request, job, offer and hold all end cancelled', slow, async () => {
    const { person, notary, jobId, offer } = await ringingRequest();
    const [accepted, cancelled] = await Promise.all([accept(notary, offer.id), kit.cancel(person, { jobId })]);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect([200, 409]).toContain(accepted.statusCode);
    if (accepted.statusCode === 409) expect(accepted.json().error).toBe('offer_gone');
    const state = await stateOf(jobId);
    expect(state).toMatchObject({ request: 'cancelled', job: 'cancelled', payments: ['released'] });
    expect(state.offers).not.toContain('open');
    expect(await auditCount(jobId, 'gnw.cancelled')).toBe(1);
  });

  it('accept against the owner’s PATCH-cancel: one wins whole, never a matched request on a cancelled job', slow, async () => {
    const { person, notary, jobId, offer } = await ringingRequest();
    const version = await versionOf(jobId);
    const [accepted, cancelled] = await Promise.all([accept(notary, offer.id), patch(person, jobId, { status: 'cancelled', version })]);
    const state = await stateOf(jobId);
    if (cancelled.statusCode === 200) {
      expect(accepted.statusCode).toBe(409);
      expect(state).toMatchObject({ request: 'cancelled', job: 'cancelled', payments: ['released'], notaryId: null });
      expect(state.offers).toEqual(['withdrawn']);
    } else {
      expect(cancelled.statusCode).toBe(412);
      expectSentence(cancelled);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(state).toMatchObject({ request: 'matched', job: 'ready', payments: ['held'], notaryId: notary.id, offers: ['accepted'] });
    }
  });

  it('book against the owner’s PATCH-cancel: never a live booking on a cancelled job, never a held card on a cancelled job', slow, async () => {
    dayOffset += 1;
    const day = wholeHourAhead(24 * (3 + dayOffset));
    const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 30)]], { name: 'Bo Booker' });
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person);
    const version = await versionOf(jobId);
    const [booked, cancelled] = await Promise.all([
      kit.book(person, { jobId, notaryId: notary.id, startsAt: day.toISOString() }),
      patch(person, jobId, { status: 'cancelled', version }),
    ]);
    const state = await stateOf(jobId);
    if (cancelled.statusCode === 200) {
      expect(state).toMatchObject({ request: 'cancelled', job: 'cancelled', payments: ['released'] });
      expect(state.bookings.every((row) => row.status === 'cancelled')).toBe(true);
      if (booked.statusCode !== 200) expectSentence(booked);
    } else {
      expect(cancelled.statusCode).toBe(412);
      expect(booked.statusCode, booked.body).toBe(200);
      expect(state).toMatchObject({ request: 'booked', job: 'scheduled', payments: ['held'], bookings: [{ status: 'booked', sequence: 0 }] });
    }
  });

  it('two PATCH-cancels of one booked job: one cancels, the other is told the job changed; one CANCEL each side', slow, async () => {
    const { person, notary, jobId } = await bookedRequest();
    const version = await versionOf(jobId);
    const answers = await Promise.all([patch(person, jobId, { status: 'cancelled', version }), patch(person, jobId, { status: 'cancelled', version })]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 412]);
    expectSentence(answers.find((res) => res.statusCode === 412)!);
    expect(await stateOf(jobId)).toMatchObject({
      request: 'cancelled',
      job: 'cancelled',
      payments: ['released'],
      bookings: [{ status: 'cancelled', sequence: 1 }],
    });
    expect(await auditCount(jobId, 'booking.cancelled')).toBe(1);
    expect(await auditCount(jobId, 'gnw.cancelled')).toBe(1);
    for (const who of [person, notary]) expect(await mailsOfKind(who.email, 'session_cancelled')).toBe(1);
  });

  it('the person’s cancel against the owner’s PATCH-cancel: cancelled once, the other told so', slow, async () => {
    const { person, notary, jobId } = await bookedRequest();
    const version = await versionOf(jobId);
    const [viaGnw, viaPatch] = await Promise.all([kit.cancel(person, { jobId }), patch(person, jobId, { status: 'cancelled', version })]);
    const codes = [viaGnw.statusCode, viaPatch.statusCode];
    expect(codes.filter((code) => code === 200)).toHaveLength(1);
    for (const res of [viaGnw, viaPatch]) if (res.statusCode !== 200) expectSentence(res);
    expect(await stateOf(jobId)).toMatchObject({
      request: 'cancelled',
      job: 'cancelled',
      payments: ['released'],
      bookings: [{ status: 'cancelled', sequence: 1 }],
    });
    expect(await auditCount(jobId, 'booking.cancelled')).toBe(1);
    for (const who of [person, notary]) expect(await mailsOfKind(who.email, 'session_cancelled')).toBe(1);
  });

  it('decline against accept of the same offer by its notary: the offer ends one way, and the request agrees', slow, async () => {
    const { notary, jobId, offer } = await ringingRequest();
    const [accepted, declined] = await Promise.all([accept(notary, offer.id), kit.jobs.call(notary, 'POST', `/api/gnw/offers/${offer.id}/decline`, {})]);
    expect([accepted.statusCode, declined.statusCode].sort()).toEqual([200, 409]);
    const state = await stateOf(jobId);
    if (accepted.statusCode === 200) {
      expect(state).toMatchObject({ request: 'matched', notaryId: notary.id });
      expect(state.offers).toEqual(['accepted']);
    } else {
      expect(state).toMatchObject({ notaryId: null });
      expect(state.request).not.toBe('matched');
      expect(state.offers[0]).toBe('declined');
    }
  });
});

describe('a booked time moved by PATCH /api/jobs/{id}', () => {
  it('is refused to its notary and to the person: the booking, both calendars and the job keep one time', slow, async () => {
    const { person, notary, jobId } = await bookedRequest();
    const before = await stateOf(jobId);
    const later = new Date(Date.now() + 40 * 24 * 3600_000).toISOString();
    const attempts: Array<[TestUser, Record<string, unknown>]> = [
      [notary, { scheduledAt: later }],
      [notary, { status: 'ready' }],
      [person, { scheduledAt: null }],
      [person, { scheduledAt: later }],
      [person, { status: 'ready' }],
    ];
    for (const [who, body] of attempts) {
      const res = await patch(who, jobId, { ...body, version: before.version });
      expect(res.statusCode, `${who.name} ${JSON.stringify(body)}: ${res.body}`).toBe(409);
      expect(res.json()).toEqual({
        error: 'conflict',
        message: 'This job’s time is booked through Notarize Now, and both calendars hold it: to change it, cancel the booking and book another time.',
      });
    }
    expect(await stateOf(jobId)).toEqual(before);
    expect(await mailsOfKind(notary.email, 'session_cancelled')).toBe(0);
  });

  it('still lets the job’s title change, and the same time be sent again', slow, async () => {
    const { person, jobId } = await bookedRequest();
    const before = await stateOf(jobId);
    const res = await patch(person, jobId, { title: 'Deed of gift', scheduledAt: before.scheduledAt, version: before.version });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Deed of gift', status: 'scheduled', scheduledAt: before.scheduledAt });
    expect(await stateOf(jobId)).toMatchObject({ request: 'booked', job: 'scheduled', bookings: [{ status: 'booked', sequence: 0 }] });
  });
});

describe('PATCH /api/jobs/{id} on a Notarize Now job by someone not its owner', () => {
  it('is refused to the matched notary, a co-signer and a stranger: nothing of the request, job or hold changes', slow, async () => {
    const { person, notary, jobId, offer } = await ringingRequest();
    expect((await accept(notary, offer.id)).statusCode).toBe(200);
    const before = await stateOf(jobId);
    const stranger = await kit.createPerson('Stan Stranger');
    for (const who of [notary, stranger, await t.createUser({ roles: ['title'] })]) {
      const res = await patch(who, jobId, { status: 'cancelled', version: before.version });
      expect([403, 404, 409], `${who.name}: ${res.body}`).toContain(res.statusCode);
      expectSentence(res);
    }
    expect(await stateOf(jobId)).toEqual(before);
    expect(await mailsOfKind(person.email, 'session_cancelled')).toBe(0);
  });

  it('answers wrong types, NUL, a megabyte and a no-show on a job nobody booked with sentences, and nothing changes', slow, async () => {
    const { person, jobId } = await ringingRequest();
    const before = await stateOf(jobId);
    const version = before.version;
    const bodies: Array<Record<string, unknown>> = [
      { status: 'cancelled', noShow: 'yes', version },
      { status: 'cancelled', version: String(version) },
      { status: ['cancelled'], version },
      { status: 'cancelled\u0000', version },
      { status: 'cancelled', reason: 'x'.repeat(1_000_000), version },
      { status: 'cancelled', reason: 'late\u0000', version },
      { title: 'y'.repeat(1_000_000), version },
      { status: 'completed', version },
      { version },
    ];
    for (const body of bodies) {
      const res = await patch(person, jobId, body);
      expect([400, 409], JSON.stringify(body).slice(0, 80)).toContain(res.statusCode);
      expectSentence(res);
    }
    const noShow = await patch(person, jobId, { status: 'cancelled', noShow: true, version });
    expect(noShow.statusCode).toBe(409);
    expect(noShow.json()).toEqual({ error: 'conflict', message: 'Only a job waiting for its session can be cancelled as a no-show.' });
    expect(await stateOf(jobId)).toEqual(before);
  });
});

describe('a dropped client', () => {
  it('that accepted and went away still left the job whole, and its retry is told it accepted already', slow, async () => {
    const { notary, jobId, offer } = await ringingRequest();
    const headers = await kit.jobs.headersFor(notary);
    await t.app.inject({
      method: 'POST',
      url: `/api/gnw/offers/${offer.id}/accept`,
      headers,
      payload: {},
      simulate: { end: true, split: false, error: false, close: true },
    });
    expect(await stateOf(jobId)).toMatchObject({ request: 'matched', job: 'ready', notaryId: notary.id, offers: ['accepted'], payments: ['held'] });
    const again = await accept(notary, offer.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'offer_gone', message: 'You already accepted this offer.' });
    expect(await auditCount(jobId, 'gnw.notary_matched')).toBe(1);
  });
});

describe('the mailbox attachment download', () => {
  async function storedMessage() {
    const id = randomUUID();
    await t.db.insert(localMailbox).values({
      id,
      toAddress: `someone-${id.slice(0, 8)}@example.test`,
      subject: 'Booked: your session',
      textBody: 'Your session is booked.',
      kind: 'session_booked',
      attachments: [{ filename: 'session.ics', contentType: 'text/calendar; method=REQUEST; charset=utf-8', content: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n' }],
    });
    return id;
  }
  const reads = async (messageId: string) =>
    (await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'mail.attachment_read'))).filter(
      (row) => (row.data as { messageId?: string } | null)?.messageId === messageId,
    ).length;
  const download = async (user: TestUser | null, url: string) =>
    t.app.inject({ method: 'GET', url, ...(user ? { headers: await kit.jobs.headersFor(user) } : {}) });

  it('is refused to everyone but administrators, and a refused read is not recorded', slow, async () => {
    const id = await storedMessage();
    const url = `/api/admin/mail/${id}/attachments/0`;
    expect((await download(null, url)).statusCode).toBe(401);
    for (const roles of [['signer'], ['notary'], ['witness'], ['title']] as const) {
      const res = await download(await t.createUser({ roles: [...roles] }), url);
      expect(res.statusCode, roles.join()).toBe(403);
      expectSentence(res);
    }
    expect(await reads(id)).toBe(0);
  });

  it('answers a bad message id or index with 400, a missing one with 404, each a sentence, and records only the one real read', slow, async () => {
    const id = await storedMessage();
    const admin = await t.createUser({ roles: ['admin'] });
    for (const [path, code] of [
      [`${id}/attachments/-1`, 400],
      [`${id}/attachments/100`, 400],
      [`${id}/attachments/0.5`, 400],
      [`${id}/attachments/NaN`, 400],
      [`${id}/attachments/%00`, 400],
      [`${id}/attachments/${'9'.repeat(400)}`, 414],
      [`not-a-uuid/attachments/0`, 400],
      [`${id.slice(0, 35)}%00/attachments/0`, 400],
      [`${id}/attachments/1`, 404],
      [`${randomUUID()}/attachments/0`, 404],
    ] as const) {
      const res = await download(admin, `/api/admin/mail/${path}`);
      expect(res.statusCode, path.slice(0, 60)).toBe(code);
      expectSentence(res);
    }
    expect(await reads(id)).toBe(0);
    const file = await download(admin, `/api/admin/mail/${id}/attachments/0`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe('attachment; filename="session.ics"');
    expect(await reads(id)).toBe(1);
  });
});

describe('preauth against cancel', () => {
  it('never leaves a card held for a cancelled job: the hold that lost the race is let go at Stripe too', slow, async () => {
    for (let round = 0; round < 3; round += 1) {
      const person = await kit.createPerson();
      const jobId = await kit.createRequest(person, { isHeld: false });
      const headers = await kit.jobs.headersFor(person);
      const callsBefore = stripe.calls.length;
      // Round 0: Stripe's first answer to the hold is lost, so the SDK sends it again a moment later.
      if (round === 0) stripe.dropAnswers('create', 1);
      const holding = t.app.inject({ method: 'POST', url: '/api/gnw/preauth', headers, payload: { jobId, paymentMethod: 'pm_card_visa' } });
      // The person cancels while the hold is at Stripe (round 0), or as the preauth starts.
      if (round === 0) while (stripe.calls.length === callsBefore) await new Promise((resolve) => setImmediate(resolve));
      const [held, cancelled] = await Promise.all([holding, kit.cancel(person, { jobId })]);
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      if (round === 0) {
        // The hold came back after the cancel had found nothing to release: it is let go, and the person told so.
        expect(held.statusCode, held.body).toBe(409);
        expect(held.json()).toEqual({ error: 'conflict', message: 'This job was cancelled while the card was being authorised, so nothing is held for it.' });
      } else if (held.statusCode !== 200) expectSentence(held);
      const state = await stateOf(jobId);
      expect(state).toMatchObject({ request: 'cancelled', job: 'cancelled' });
      expect(state.payments, `round ${round}: ${held.statusCode} ${held.body.slice(0, 200)}`).not.toContain('held');
      const intents = [...stripe.intents.values()].filter((intent) => intent.metadata.jobId === jobId);
      if (round === 0) expect(intents.length).toBeGreaterThan(0);
      expect(intents.filter((intent) => intent.status !== 'canceled')).toEqual([]);
    }
  });
});

describe('more races on one request', () => {
  it('accept against switch-to-scheduled: the request ends either matched with its notary or back in setup with no notary', slow, async () => {
    const { person, notary, jobId, offer } = await ringingRequest();
    const [accepted, switched] = await Promise.all([accept(notary, offer.id), kit.switchToScheduled(person, jobId)]);
    expect([accepted.statusCode, switched.statusCode].sort()).toEqual([200, 409]);
    const state = await stateOf(jobId);
    if (accepted.statusCode === 200) {
      expectSentence(switched);
      expect(state).toMatchObject({ request: 'matched', notaryId: notary.id, offers: ['accepted'] });
    } else {
      expect(accepted.json().error).toBe('offer_gone');
      expect(state).toMatchObject({ request: 'setup', notaryId: null, offers: ['withdrawn'] });
    }
    expect(state.payments).toEqual(['held']);
  });

  it('two starts of the instant search at once: one search, one sentence', slow, async () => {
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person, { lane: 'instant' });
    const start = () => kit.jobs.call(person, 'POST', '/api/gnw/instant', { jobId });
    const answers = await Promise.all([start(), start()]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((res) => res.statusCode === 409)!.json()).toEqual({ error: 'conflict', message: 'We are already looking for a notary for this job.' });
    expect(await auditCount(jobId, 'gnw.search_started')).toBe(1);
    expect((await stateOf(jobId)).request).not.toBe('setup');
  });
});
