import { and, asc, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Config } from '#server/config.ts';
import type { Db } from '#server/db/client.ts';
import { jobs, sessionBookings } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { findBookingFacts, queueBookingReminder } from '#server/features/gnw/gnw-booking-mail.ts';
import { bookingLeadMinutes } from '#server/features/gnw/gnw-slots.ts';

/**
 * Reminders of booked Notarize Now sessions (decision 051), to both sides: one within the last 24 hours
 * before the session (not for a booking made less than 24 hours ahead, nor once 15 minutes or less are
 * left), and one within the last 15 minutes. Each is marked on the booking in the transaction that
 * queues its mail, by an update that only the first instance wins, so it goes once. Cancelled
 * bookings, and bookings of a cancelled or finished job, get none.
 */

const hourMs = 3_600_000;
const batchSize = 100;

type Kind = 'day_before' | 'soon';

async function sendDue(deps: { db: Db; config: Config }, kind: Kind, now: Date): Promise<number> {
  const soonLimit = new Date(now.getTime() + bookingLeadMinutes * 60_000);
  const column = kind === 'soon' ? sessionBookings.remindedSoonAt : sessionBookings.remindedDayBeforeAt;
  const due = await deps.db
    .select({ id: sessionBookings.id })
    .from(sessionBookings)
    .innerJoin(jobs, eq(jobs.id, sessionBookings.jobId))
    .where(
      and(
        eq(sessionBookings.status, 'booked'),
        isNull(column),
        inArray(jobs.status, ['draft', 'ready', 'scheduled']),
        ...(kind === 'soon'
          ? [gt(sessionBookings.startsAt, now), lte(sessionBookings.startsAt, soonLimit)]
          : [
              gt(sessionBookings.startsAt, soonLimit),
              lte(sessionBookings.startsAt, new Date(now.getTime() + 24 * hourMs)),
              // Booked less than a day ahead: the booking mail itself was the day-before notice.
              lte(sessionBookings.createdAt, sql`${sessionBookings.startsAt} - interval '24 hours'`),
            ]),
      ),
    )
    .orderBy(asc(sessionBookings.startsAt))
    .limit(batchSize);
  let sent = 0;
  for (const { id } of due) {
    const isSent = await deps.db.transaction(async (tx) => {
      const [claimed] = await tx
        .update(sessionBookings)
        .set(kind === 'soon' ? { remindedSoonAt: now } : { remindedDayBeforeAt: now })
        .where(and(eq(sessionBookings.id, id), eq(sessionBookings.status, 'booked'), isNull(column)))
        .returning({ id: sessionBookings.id });
      if (!claimed) return false;
      const facts = await findBookingFacts(tx, id);
      if (!facts) return false;
      await queueBookingReminder({ db: tx, config: deps.config }, facts, kind === 'soon');
      return true;
    });
    if (isSent) sent += 1;
  }
  return sent;
}

/** One pass at `now`: the reminders due are queued; returns how many bookings were reminded. */
export async function sendDueBookingReminders(deps: { db: Db; config: Config }, now = new Date()): Promise<number> {
  return (await sendDue(deps, 'soon', now)) + (await sendDue(deps, 'day_before', now));
}

/** Runs a pass now and every `everyMs` (a minute); the returned function stops it. */
export function startBookingReminders(deps: { db: Db; config: Config; log: Ctx['log'] }, everyMs = 60_000): () => void {
  let isRunning = false;
  const run = () => {
    if (isRunning) return;
    isRunning = true;
    void sendDueBookingReminders(deps)
      .catch((error: unknown) => deps.log.error({ err: error }, 'Sending the reminders of booked sessions failed.'))
      .finally(() => {
        isRunning = false;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}
