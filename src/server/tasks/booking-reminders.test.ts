import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, jobs, sessionBookings } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { addMinutes, createBookingKit, type BookingKit } from '#test/booking-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { sendDueBookingReminders } from './booking-reminders.ts';

/** Reminders of booked sessions (decision 051), with the clock passed in. */

let t: TestApp;
let kit: BookingKit;
let notary: TestUser;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createBookingKit(t);
  notary = await createNotary(t, { name: 'Nora Notary' });
});
afterAll(async () => t?.close());

const hourMs = 3_600_000;
/** Bookings are far in the future so that only the clock passed in decides, whatever the real one says. */
let startCounter = 0;
function nextStart(): Date {
  startCounter += 1;
  return new Date(Date.UTC(2040, 0, 1 + startCounter, 15, 0));
}

/** A person's request booked (rows as /schedule/book leaves them) at `startsAt`, the booking made at `createdAt`. */
async function booking(startsAt: Date, createdAt: Date, status: 'booked' | 'cancelled' = 'booked') {
  const person = await kit.createPerson();
  const jobId = await kit.createRequest(person, { isHeld: false });
  await t.db.update(jobs).set({ notaryId: notary.id, scheduledAt: startsAt, status: 'scheduled' }).where(eq(jobs.id, jobId));
  const [row] = await t.db
    .insert(sessionBookings)
    .values({ jobId, notaryId: notary.id, startsAt, endsAt: addMinutes(startsAt, 30), timeZone: 'America/Chicago', status, createdAt })
    .returning();
  return { person, jobId, bookingId: row!.id };
}

/** The reminders queued for one job's booking, as [recipient, subject]. */
async function remindersOf(person: TestUser, jobId: string): Promise<string[][]> {
  const rows = await t.db
    .select()
    .from(emailOutbox)
    .where(inArray(emailOutbox.toAddress, [person.email, notary.email]))
    .orderBy(emailOutbox.createdAt);
  return rows
    .filter((row) => row.kind === 'session_reminder' && row.textBody.includes(`jobId=${jobId}`))
    .map((row) => [row.toAddress === person.email ? 'person' : 'notary', row.subject.startsWith('Starting soon') ? 'soon' : 'day before']);
}

describe('booking reminders', () => {
  it('remind both sides once within the last day, and once within the last 15 minutes, marking each on the booking', async () => {
    const startsAt = nextStart();
    const { person, jobId, bookingId } = await booking(startsAt, new Date(startsAt.getTime() - 3 * 24 * hourMs));
    await sendDueBookingReminders(t, new Date(startsAt.getTime() - 25 * hourMs));
    expect(await remindersOf(person, jobId)).toEqual([]);
    const dayBefore = new Date(startsAt.getTime() - 23 * hourMs);
    await sendDueBookingReminders(t, dayBefore);
    await sendDueBookingReminders(t, new Date(dayBefore.getTime() + 60_000));
    expect(await remindersOf(person, jobId)).toEqual([
      ['person', 'day before'],
      ['notary', 'day before'],
    ]);
    const [marked] = await t.db.select().from(sessionBookings).where(eq(sessionBookings.id, bookingId));
    expect(marked?.remindedDayBeforeAt).toEqual(dayBefore);
    expect(marked?.remindedSoonAt).toBeNull();
    await sendDueBookingReminders(t, addMinutes(startsAt, -20));
    expect(await remindersOf(person, jobId)).toHaveLength(2);
    const soon = addMinutes(startsAt, -14);
    await sendDueBookingReminders(t, soon);
    await sendDueBookingReminders(t, addMinutes(startsAt, -13));
    expect(await remindersOf(person, jobId)).toEqual([
      ['person', 'day before'],
      ['notary', 'day before'],
      ['person', 'soon'],
      ['notary', 'soon'],
    ]);
    const [after] = await t.db.select().from(sessionBookings).where(eq(sessionBookings.id, bookingId));
    expect(after?.remindedSoonAt).toEqual(soon);
    const [mail] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, person.email), eq(emailOutbox.kind, 'session_reminder')))
      .orderBy(emailOutbox.createdAt);
    expect(mail?.subject).toMatch(/^Reminder: your session on [A-Z][a-z]+day, January \d+, 9:00 AM CST$/);
    expect(mail?.textBody).toContain('Nora Notary');
    expect(mail?.textBody).toContain(`${t.config.publicUrl}/jobs/detail?jobId=${jobId}`);
  });

  it('send no day-before reminder for a booking made less than 24 hours ahead, nor once 15 minutes or less are left', async () => {
    const lateBooked = nextStart();
    const late = await booking(lateBooked, new Date(lateBooked.getTime() - 5 * hourMs));
    await sendDueBookingReminders(t, new Date(lateBooked.getTime() - 4 * hourMs));
    expect(await remindersOf(late.person, late.jobId)).toEqual([]);
    await sendDueBookingReminders(t, addMinutes(lateBooked, -10));
    expect(await remindersOf(late.person, late.jobId)).toEqual([
      ['person', 'soon'],
      ['notary', 'soon'],
    ]);
    // A task that was down all day sends only the 15-minute one.
    const missed = nextStart();
    const early = await booking(missed, new Date(missed.getTime() - 3 * 24 * hourMs));
    await sendDueBookingReminders(t, addMinutes(missed, -10));
    expect(await remindersOf(early.person, early.jobId)).toEqual([
      ['person', 'soon'],
      ['notary', 'soon'],
    ]);
  });

  it('skip cancelled bookings, cancelled jobs, and sessions already begun', async () => {
    const startsAt = nextStart();
    const cancelled = await booking(startsAt, new Date(startsAt.getTime() - 3 * 24 * hourMs), 'cancelled');
    const jobGone = await booking(addMinutes(startsAt, 60), new Date(startsAt.getTime() - 3 * 24 * hourMs));
    await t.db.update(jobs).set({ status: 'cancelled' }).where(eq(jobs.id, jobGone.jobId));
    for (const at of [new Date(startsAt.getTime() - 23 * hourMs), addMinutes(startsAt, -10), addMinutes(startsAt, 50)]) {
      await sendDueBookingReminders(t, at);
    }
    expect(await remindersOf(cancelled.person, cancelled.jobId)).toEqual([]);
    expect(await remindersOf(jobGone.person, jobGone.jobId)).toEqual([]);
    const begun = nextStart();
    const past = await booking(begun, new Date(begun.getTime() - 3 * 24 * hourMs));
    await sendDueBookingReminders(t, addMinutes(begun, 1));
    expect(await remindersOf(past.person, past.jobId)).toEqual([]);
  });
});
