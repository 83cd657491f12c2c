import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { getCalendarDay } from '#shared/dates.ts';
import { auditEvents, instantOffers, instantRequests, jobs, payments, sessionBookings } from '#server/db/schema/index.ts';
import { type TestApp } from '#test/create-test-app.ts';
import { addMinutes, wholeHourAhead, type BookingKit, closeStripeBookingApp, startStripeBookingApp } from '#test/booking-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import type { StripeStandIn } from '#test/stripe-stand-in.ts';
import { formatSessionLabel } from './gnw-booking-mail.ts';

/** The scheduled lane (decision 051) through the real app, the held card on the Stripe stand-in. */

let t: TestApp;
let stripe: StripeStandIn;
let kit: BookingKit;

beforeAll(async () => {
  ({ t, stripe, kit } = await startStripeBookingApp());
});
afterAll(() => closeStripeBookingApp({ t, stripe }));

const iso = (date: Date) => date.toISOString();
type Slot = { notaryId: string; notaryName: string; startsAt: string; endsAt: string; label: string; commissionState: string };

async function sentences(jobId: string, prefix: string): Promise<string[]> {
  const rows = await t.db.select().from(auditEvents).where(eq(auditEvents.jobId, jobId)).orderBy(auditEvents.sequence);
  return rows
    .filter((row) => row.action.startsWith(prefix))
    .map((row) => describeAuditEvent({ action: row.action, actorName: 'Sam Signer', data: (row.data ?? {}) as Record<string, unknown> }));
}

describe('the open times', () => {
  it('cut each eligible notary’s slots into 30-minute pieces, less booked, scheduled and too-soon ones, sorted by time then notary, labelled in the person’s zone', async () => {
    const day = wholeHourAhead(24 * 20);
    const ann = await kit.createNotaryWithSlots([[day, addMinutes(day, 120)]], { name: 'Ann Able' });
    const bob = await kit.createNotaryWithSlots([[addMinutes(day, 30), addMinutes(day, 90)]], { name: 'Bob Baker' });
    // Ineligible notaries' slots never show.
    await kit.createNotaryWithSlots([[day, addMinutes(day, 60)]], { name: 'Pending Pat', approvalStatus: 'pending' });
    await kit.createNotaryWithSlots([[day, addMinutes(day, 60)]], { name: 'Expired Eve', commissionExpiresOn: '2020-01-01' });
    await kit.createNotaryWithSlots([[day, addMinutes(day, 60)]], { name: 'Inactive Ida', isActive: false });
    // Ann is booked at +30 and has a title company's job at +60.
    const person = await kit.createPerson();
    const otherJob = await kit.createRequest(await kit.createPerson('Olive Other'), { isHeld: false });
    await t.db
      .insert(sessionBookings)
      .values({ jobId: otherJob, notaryId: ann.id, startsAt: addMinutes(day, 30), endsAt: addMinutes(day, 60), timeZone: 'UTC' });
    const [scheduled] = await t.db
      .select()
      .from(jobs)
      .where(eq(jobs.id, await kit.createRequest(await kit.createPerson('Tia Title'), { isHeld: false })));
    await t.db
      .update(jobs)
      .set({ notaryId: ann.id, scheduledAt: addMinutes(day, 60), status: 'scheduled' })
      .where(eq(jobs.id, scheduled!.id));

    // The day the slots fall on where the person is (a UTC date would miss them in a US evening).
    const from = getCalendarDay(day, 'America/Chicago');
    const res = await kit.slots(person, { from, days: 2, timeZone: 'America/Chicago' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { timeZone: string; slots: Slot[]; message: string };
    expect(body.timeZone).toBe('America/Chicago');
    const mine = body.slots.filter((slot) => slot.notaryId === ann.id || slot.notaryId === bob.id);
    expect(mine.map((slot) => [slot.notaryName, slot.startsAt, slot.endsAt])).toEqual([
      ['Ann Able', iso(day), iso(addMinutes(day, 30))],
      ['Bob Baker', iso(addMinutes(day, 30)), iso(addMinutes(day, 60))],
      ['Bob Baker', iso(addMinutes(day, 60)), iso(addMinutes(day, 90))],
      ['Ann Able', iso(addMinutes(day, 90)), iso(addMinutes(day, 120))],
    ]);
    expect(mine[0]).toMatchObject({ commissionState: 'VA', label: formatSessionLabel(day, 'America/Chicago') });
    expect(mine[0]!.label).toMatch(/^[A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}, \d{1,2}:\d{2} (AM|PM) C[SD]T$/);
    expect(body.slots.some((slot) => /Pat|Eve|Ida/.test(slot.notaryName))).toBe(false);
    const starts = body.slots.map((slot) => Date.parse(slot.startsAt));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(body.message).toMatch(/times? (is|are) open from .+ shown in America\/Chicago time\.$/);
  });

  it('never offer a piece starting within 15 minutes or in the past', async () => {
    const person = await kit.createPerson();
    const now = new Date();
    now.setUTCSeconds(0, 0);
    const notary = await kit.createNotaryWithSlots([[addMinutes(now, -60), addMinutes(now, 60)]], { name: 'Nell Now' });
    const res = await kit.slots(person, { days: 2, timeZone: 'UTC', from: addMinutes(now, -60).toISOString().slice(0, 10) });
    const hers = (res.json().slots as Slot[]).filter((slot) => slot.notaryId === notary.id);
    expect(hers.map((slot) => slot.startsAt)).toEqual([iso(addMinutes(now, 30))]);
  });

  it('never offer the person themselves as the notary', async () => {
    const day = wholeHourAhead(24 * 25);
    const notaryPerson = await createNotary(t, { name: 'Self Sally' });
    await kit.addSlots(notaryPerson, [[day, addMinutes(day, 60)]]);
    const others = await kit.slots(await kit.createPerson(), { from: iso(day).slice(0, 10), days: 1, timeZone: 'UTC' });
    expect((others.json().slots as Slot[]).filter((slot) => slot.notaryId === notaryPerson.id)).toHaveLength(2);
    const own = await kit.slots(notaryPerson, { from: iso(day).slice(0, 10), days: 1, timeZone: 'UTC' });
    expect((own.json().slots as Slot[]).filter((slot) => slot.notaryId === notaryPerson.id)).toHaveLength(0);
  });

  it('list at most 200 times', async () => {
    const day = wholeHourAhead(24 * 40);
    await kit.createNotaryWithSlots([[day, addMinutes(day, 60 * 24 * 5)]], { name: 'Long Lou' });
    const res = await kit.slots(await kit.createPerson(), { from: iso(day).slice(0, 10), days: 7, timeZone: 'UTC' });
    expect(res.json().slots).toHaveLength(200);
  });

  it('say in a sentence when none are open, and to try later days', async () => {
    const res = await kit.slots(await kit.createPerson(), { from: '2031-02-03', days: 3, timeZone: 'America/Chicago' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      timeZone: 'America/Chicago',
      slots: [],
      message: 'No notary has a time open from Feb 3, 2031 to Feb 5, 2031. Try later days.',
    });
  });
});

describe('booking a time', () => {
  it('books the piece for the person’s held job: notary, time and status on the job, the request booked, offers withdrawn, both sides mailed an invitation', async () => {
    const day = wholeHourAhead(24 * 3);
    const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 60)]], { name: 'Nora Notary' });
    const ringing = await createNotary(t, { name: 'Rita Ringing' });
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person, { status: 'unmatched', lane: 'instant' });
    const offer = await kit.addOpenOffer(jobId, ringing);

    const res = await kit.book(person, { jobId, notaryId: notary.id, startsAt: iso(addMinutes(day, 30)) });
    expect(res.statusCode, res.body).toBe(200);
    const label = formatSessionLabel(addMinutes(day, 30), 'America/Chicago');
    expect(res.json()).toMatchObject({
      jobId,
      lane: 'scheduled',
      status: 'booked',
      step: 'session',
      jobStatus: 'scheduled',
      notaryName: 'Nora Notary',
      payment: { status: 'held' },
      booking: { startsAt: iso(addMinutes(day, 30)), endsAt: iso(addMinutes(day, 60)), timeZone: 'America/Chicago', notaryName: 'Nora Notary', label },
      cancelFeeCents: 0,
    });
    expect(res.json().nextStep).toContain(label);

    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job).toMatchObject({ notaryId: notary.id, status: 'scheduled', scheduledAt: addMinutes(day, 30) });
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, jobId));
    expect(request).toMatchObject({ lane: 'scheduled', status: 'booked', step: 'session' });
    const [withdrawn] = await t.db.select().from(instantOffers).where(eq(instantOffers.id, offer.id));
    expect(withdrawn?.status).toBe('withdrawn');
    const [booking] = await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId));
    expect(booking).toMatchObject({ notaryId: notary.id, status: 'booked', sequence: 0, createdBy: person.id });
    expect(await sentences(jobId, 'booking.')).toEqual([`Sam Signer booked a session with Nora Notary for ${label}.`]);
    expect(await sentences(jobId, 'job.status')).toEqual([
      'Sam Signer moved the job from Draft to Ready. Reason: Booked through Notarize Now.',
      `Sam Signer moved the job from Ready to Scheduled. Reason: Booked through Notarize Now for ${label}.`,
    ]);

    for (const [who, subject] of [
      [person, `Your notarization is booked: ${label}`],
      [notary, /^New booked session: /],
    ] as const) {
      const mail = (await kit.mailTo(who.email)).find((row) => row.kind === 'session_booked');
      expect(mail?.subject).toMatch(subject);
      expect(mail?.textBody).toContain(`${t.config.publicUrl}/jobs/detail?jobId=${jobId}`);
      const ics = mail?.attachments?.[0];
      expect(ics).toMatchObject({ filename: 'invite.ics', contentType: 'text/calendar; charset=utf-8; method=REQUEST' });
      const lines = ics!.content.replace(/\r\n /g, '').split('\r\n');
      const host = new URL(t.config.publicUrl).hostname;
      expect(lines).toEqual(
        expect.arrayContaining([
          'METHOD:REQUEST',
          `UID:booking-${booking!.id}@${host}`,
          'SEQUENCE:0',
          `DTSTART:${iso(addMinutes(day, 30))
            .replace(/\.000Z$/, 'Z')
            .replace(/[-:]/g, '')}`,
          `DTEND:${iso(addMinutes(day, 60))
            .replace(/\.000Z$/, 'Z')
            .replace(/[-:]/g, '')}`,
          'SUMMARY:Notarization: Power of attorney',
          `ATTENDEE;CN="Sam Signer";ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:${person.email}`,
          `ATTENDEE;CN="Nora Notary";ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:${notary.email}`,
        ]),
      );
      expect(lines.find((line) => line.startsWith('DESCRIPTION:'))).toContain(`jobId=${jobId}`);
    }
    // The hold is untouched, and the time is no longer open.
    expect(stripe.capturesDone()).toBe(0);
    const after = await kit.slots(await kit.createPerson(), { from: iso(day).slice(0, 10), days: 1, timeZone: 'UTC' });
    expect((after.json().slots as Slot[]).filter((slot) => slot.notaryId === notary.id).map((slot) => slot.startsAt)).toEqual([iso(day)]);
  });

  it('lets one of two people racing for one time win; the other gets a sentence and fresh times', async () => {
    const day = wholeHourAhead(24 * 4);
    const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 60)]], { name: 'Rae Race' });
    const [first, second] = [await kit.createPerson('Ada First'), await kit.createPerson('Ben Second')];
    const [firstJob, secondJob] = [await kit.createRequest(first), await kit.createRequest(second)];
    const answers = await Promise.all([
      kit.book(first, { jobId: firstJob, notaryId: notary.id, startsAt: iso(day) }),
      kit.book(second, { jobId: secondJob, notaryId: notary.id, startsAt: iso(day) }),
    ]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    const loser = answers.find((res) => res.statusCode === 409)!;
    expect(loser.json()).toMatchObject({ error: 'slot_taken', message: expect.stringMatching(/^That time was just taken/) });
    const fresh = loser.json().detail.slots.slots as Slot[];
    expect(fresh.filter((slot) => slot.notaryId === notary.id).map((slot) => slot.startsAt)).toEqual([iso(addMinutes(day, 30))]);
    const booked = await t.db
      .select()
      .from(sessionBookings)
      .where(and(eq(sessionBookings.notaryId, notary.id), eq(sessionBookings.status, 'booked')));
    expect(booked).toHaveLength(1);
    // The loser's request is as it was, and books the fresh time.
    const loserJob = answers[0]!.statusCode === 409 ? firstJob : secondJob;
    const loserPerson = loserJob === firstJob ? first : second;
    const [request] = await t.db.select().from(instantRequests).where(eq(instantRequests.jobId, loserJob));
    expect(request?.status).toBe('setup');
    const retry = await kit.book(loserPerson, { jobId: loserJob, notaryId: notary.id, startsAt: iso(addMinutes(day, 30)) });
    expect(retry.statusCode, retry.body).toBe(200);
  });

  it('asks for the payment first when nothing is held, and books nothing', async () => {
    const day = wholeHourAhead(24 * 5);
    const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 30)]]);
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person, { isHeld: false });
    const res = await kit.book(person, { jobId, notaryId: notary.id, startsAt: iso(day) });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'payment_required', message: expect.stringMatching(/^Authorise the payment first/) });
    expect(await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, jobId))).toEqual([]);
  });

  it('refuses a time that is not open, one too soon, and a second booking of the same request, each with a sentence', async () => {
    const day = wholeHourAhead(24 * 6);
    const notary = await kit.createNotaryWithSlots([[day, addMinutes(day, 60)]]);
    const soon = new Date(Date.now() + 10 * 60_000);
    soon.setUTCSeconds(0, 0);
    await kit.addSlots(notary, [[addMinutes(soon, -5), addMinutes(soon, 60)]]);
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person);
    const offGrid = await kit.book(person, { jobId, notaryId: notary.id, startsAt: iso(addMinutes(day, 10)) });
    expect(offGrid.statusCode).toBe(409);
    expect(offGrid.json()).toMatchObject({ error: 'slot_taken', message: 'That time is not open with this notary. Choose one from the open times.' });
    const tooSoon = await kit.book(person, { jobId, notaryId: notary.id, startsAt: iso(addMinutes(soon, -5)) });
    expect(tooSoon.statusCode).toBe(409);
    expect((await kit.book(person, { jobId, notaryId: notary.id, startsAt: iso(day) })).statusCode).toBe(200);
    const again = await kit.book(person, { jobId, notaryId: notary.id, startsAt: iso(addMinutes(day, 30)) });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'This request already has a booked time; cancel it first to choose another.' });
  });
});

describe('switching to a scheduled time', () => {
  it('takes back the ringing offer and leaves the search for a time to book, the card hold kept', async () => {
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person, { status: 'searching', lane: 'instant' });
    const offer = await kit.addOpenOffer(jobId, await createNotary(t));
    const res = await kit.switchToScheduled(person, jobId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ jobId, lane: 'scheduled', status: 'setup', step: 'notary', payment: { status: 'held' }, booking: null });
    const [after] = await t.db.select().from(instantOffers).where(eq(instantOffers.id, offer.id));
    expect(after?.status).toBe('withdrawn');
    const [payment] = await t.db.select().from(payments).where(eq(payments.jobId, jobId));
    expect(payment?.status).toBe('held');
    expect(stripe.intents.get(payment!.externalId!)?.status).toBe('requires_capture');
    expect(await sentences(jobId, 'gnw.')).toEqual([
      'Sam Signer stopped waiting for a notary to be free now and chose to book a time instead; the card hold was kept.',
    ]);
  });

  it('works from an unmatched search too, and refuses a request that is not searching', async () => {
    const person = await kit.createPerson();
    const jobId = await kit.createRequest(person, { status: 'unmatched', lane: 'instant' });
    expect((await kit.switchToScheduled(person, jobId)).statusCode).toBe(200);
    const again = await kit.switchToScheduled(person, jobId);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: 'conflict', message: 'This request is already set to book a time.' });
  });
});
