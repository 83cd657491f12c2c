import { eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { formatCents } from '#shared/pricing.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { instantRequests, jobs, notaryProfiles, sessionBookings, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import type { MailAttachment } from '#server/providers/email/email.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { jobPageLink } from '#server/features/jobs/job-mail.ts';
import { bookingUid, buildCalendarInvite, readMailAddress, type CalendarMethod } from './calendar-invite.ts';

/**
 * The mail of a booked Notarize Now session (decision 051): both sides get the booking, its cancel
 * and its two reminders, each queued in the transaction of the change; the booking and the cancel
 * carry a calendar invitation (METHOD REQUEST, then CANCEL with the same UID and a higher SEQUENCE).
 */

type MailCtx = Pick<Ctx, 'config'> & { db: DbOrTx };

interface MailPerson {
  name: string;
  email: string;
  /** The zone their times are written in. */
  timeZone: string;
}

export interface BookingFacts {
  id: string;
  jobId: string;
  title: string;
  startsAt: Date;
  endsAt: Date;
  sequence: number;
  person: MailPerson;
  notary: MailPerson;
}

const labelFormats = new Map<string, Intl.DateTimeFormat>();

/** "Tuesday, December 1, 9:30 AM CST": a session's start as a person reads it, in their zone. */
export function formatSessionLabel(date: Date, timeZone: string): string {
  let format = labelFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone,
    });
    labelFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  return `${parts.weekday}, ${parts.month} ${parts.day}, ${parts.hour}:${parts.minute} ${parts.dayPeriod} ${parts.timeZoneName}`;
}

/** A booking with the job's title and both sides' names, addresses and zones; null when it is gone. */
export async function findBookingFacts(db: DbOrTx, bookingId: string): Promise<BookingFacts | null> {
  const notaryUser = alias(users, 'notary_user');
  const personUser = alias(users, 'person_user');
  const [row] = await db
    .select({
      booking: sessionBookings,
      title: jobs.title,
      notary: { name: notaryUser.name, email: notaryUser.email },
      notaryZone: notaryProfiles.timeZone,
      person: { name: personUser.name, email: personUser.email },
    })
    .from(sessionBookings)
    .innerJoin(jobs, eq(jobs.id, sessionBookings.jobId))
    .innerJoin(notaryUser, eq(notaryUser.id, sessionBookings.notaryId))
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, sessionBookings.notaryId))
    .innerJoin(instantRequests, eq(instantRequests.jobId, sessionBookings.jobId))
    .innerJoin(personUser, eq(personUser.id, instantRequests.requestedBy))
    .where(eq(sessionBookings.id, bookingId))
    .limit(1);
  if (!row) return null;
  const { booking } = row;
  return {
    id: booking.id,
    jobId: booking.jobId,
    title: row.title,
    startsAt: booking.startsAt,
    endsAt: booking.endsAt,
    sequence: booking.sequence,
    person: { ...row.person, timeZone: booking.timeZone },
    // The notary reads times in their profile's zone when they set one, else in the person's.
    notary: { ...row.notary, timeZone: row.notaryZone ?? booking.timeZone },
  };
}

/** The .ics of this version of the booking, for both sides (one event, the two of them its attendees). */
export function buildBookingInvite(ctx: Pick<Ctx, 'config'>, facts: BookingFacts, method: CalendarMethod, now: Date): MailAttachment {
  const link = jobPageLink(ctx, facts.jobId);
  const title = toSingleLine(facts.title);
  const content = buildCalendarInvite({
    method,
    uid: bookingUid(facts.id, ctx.config.publicUrl),
    sequence: facts.sequence,
    startsAt: facts.startsAt,
    endsAt: facts.endsAt,
    stampedAt: now,
    summary: `Notarization: ${title}`,
    description: [
      `Remote online notarization of "${title}" with ${toSingleLine(facts.notary.name)} (notary) and ${toSingleLine(facts.person.name)}.`,
      method === 'CANCEL' ? 'This session was cancelled.' : `Join from the job page: ${link}`,
    ].join('\n'),
    url: link,
    organizer: { name: 'Open RON', email: readMailAddress(ctx.config.email.from) },
    attendees: [
      { name: toSingleLine(facts.person.name), email: facts.person.email },
      { name: toSingleLine(facts.notary.name), email: facts.notary.email },
    ],
  });
  return {
    filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics',
    contentType: `text/calendar; charset=utf-8; method=${method}`,
    content,
  };
}

/** Both sides learn the session is booked, each with the invitation. */
export async function queueBookingMail(ctx: MailCtx, facts: BookingFacts, now: Date): Promise<void> {
  const invite = buildBookingInvite(ctx, facts, 'REQUEST', now);
  const link = jobPageLink(ctx, facts.jobId);
  for (const [me, other, role] of [
    [facts.person, facts.notary, 'signer'],
    [facts.notary, facts.person, 'notary'],
  ] as const) {
    await queueEmail(ctx.db, {
      to: me.email,
      kind: 'session_booked',
      attachments: [invite],
      ...mailTemplates.sessionBooked.render({
        name: me.name,
        role,
        otherName: other.name,
        title: facts.title,
        when: formatSessionLabel(facts.startsAt, me.timeZone),
        link,
      }),
    });
  }
}

/** Both sides learn the session is cancelled, each with the calendar's CANCEL (facts carry the raised SEQUENCE). */
export async function queueBookingCancelMail(ctx: MailCtx, facts: BookingFacts, details: { cancelledBy: string; feeCents: number }, now: Date): Promise<void> {
  const cancel = buildBookingInvite(ctx, facts, 'CANCEL', now);
  const fee = details.feeCents > 0 ? formatCents(details.feeCents) : null;
  for (const [me, isPerson] of [
    [facts.person, true],
    [facts.notary, false],
  ] as const) {
    await queueEmail(ctx.db, {
      to: me.email,
      kind: 'session_cancelled',
      attachments: [cancel],
      ...mailTemplates.sessionCancelled.render({
        name: me.name,
        title: facts.title,
        when: formatSessionLabel(facts.startsAt, me.timeZone),
        cancelledBy: details.cancelledBy,
        feeCharged: isPerson ? fee : null,
      }),
    });
  }
}

/** Both sides are reminded: the day before, or 15 minutes before. */
export async function queueBookingReminder(ctx: MailCtx, facts: BookingFacts, isSoon: boolean): Promise<void> {
  const link = jobPageLink(ctx, facts.jobId);
  for (const [me, other, role] of [
    [facts.person, facts.notary, 'signer'],
    [facts.notary, facts.person, 'notary'],
  ] as const) {
    await queueEmail(ctx.db, {
      to: me.email,
      kind: 'session_reminder',
      ...mailTemplates.sessionReminder.render({
        name: me.name,
        role,
        otherName: other.name,
        title: facts.title,
        when: formatSessionLabel(facts.startsAt, me.timeZone),
        isSoon,
        link,
      }),
    });
  }
}
