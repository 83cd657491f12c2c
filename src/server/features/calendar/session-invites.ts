import { eq } from 'drizzle-orm';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { instantRequests, jobParticipants, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { jobPageLink } from '#server/features/jobs/job-mail.ts';
import { buildCalendarInvite, readMailAddress, type CalendarMethod } from '#server/features/gnw/calendar-invite.ts';
import { formatSessionLabel } from '#server/features/gnw/gnw-booking-mail.ts';

/**
 * The calendar mail of a job's session set by the people running the job (decision 052): once the
 * job is out of draft, scheduling it sends the notary and every participant an invitation (REQUEST),
 * moving it an update (same UID, higher SEQUENCE: the job's version), and calling it off (cleared,
 * back to draft, cancelled) the CANCEL. A Notarize Now booking mails its own (gnw-booking-mail.ts).
 */
type MailCtx = Pick<Ctx, 'config'> & { db: DbOrTx };

export interface ScheduleChange {
  job: { id: string; title: string; notaryId: string | null };
  /** The job's version after the change: the invitation's SEQUENCE, so the newest always wins. */
  version: number;
  before: { scheduledAt: Date | null; status: string };
  after: { scheduledAt: Date | null; status: string };
}

/** Statuses in which a scheduled time is a session people should have in their calendar. */
const announcedStatuses = new Set(['ready', 'scheduled']);
/** Statuses in which the session is happening or done: a change then is no calendar news. */
const heldStatuses = new Set(['in_session', 'completed']);

export function scheduleMailOf(change: ScheduleChange): { method: CalendarMethod; kind: 'scheduled' | 'moved' | 'cancelled'; at: Date } | null {
  const { before, after } = change;
  if (heldStatuses.has(after.status)) return null;
  const wasAnnounced = before.scheduledAt !== null && announcedStatuses.has(before.status);
  const isAnnounced = after.scheduledAt !== null && announcedStatuses.has(after.status);
  if (isAnnounced && after.scheduledAt) {
    if (!wasAnnounced) return { method: 'REQUEST', kind: 'scheduled', at: after.scheduledAt };
    if (before.scheduledAt?.getTime() !== after.scheduledAt.getTime()) return { method: 'REQUEST', kind: 'moved', at: after.scheduledAt };
    return null;
  }
  if (wasAnnounced && before.scheduledAt) return { method: 'CANCEL', kind: 'cancelled', at: before.scheduledAt };
  return null;
}

export const jobSessionUid = (jobId: string, publicUrl: string) => {
  let host = 'localhost';
  try {
    host = new URL(publicUrl).hostname || host;
  } catch {
    // config checks PUBLIC_URL; the UID stays unique by the job's id.
  }
  return `job-${jobId}@${host}`;
};

/** Queues the mail a schedule change calls for, in the transaction of the change; nothing when it calls for none. */
export async function queueSessionScheduleMail(ctx: MailCtx, change: ScheduleChange, now: Date): Promise<void> {
  const mail = scheduleMailOf(change);
  if (!mail) return;
  // A Notarize Now job's sessions are booked, and their booking mails the calendar (both lanes).
  const [request] = await ctx.db.select({ id: instantRequests.id }).from(instantRequests).where(eq(instantRequests.jobId, change.job.id)).limit(1);
  if (request) return;
  const people: Array<{ name: string; email: string; timeZone: string }> = [];
  if (change.job.notaryId) {
    const [notary] = await ctx.db
      .select({ name: users.name, email: users.email, timeZone: notaryProfiles.timeZone })
      .from(users)
      .leftJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
      .where(eq(users.id, change.job.notaryId))
      .limit(1);
    if (notary) people.push({ name: notary.name, email: notary.email, timeZone: notary.timeZone ?? 'UTC' });
  }
  const participants = await ctx.db
    .select({ name: jobParticipants.name, email: jobParticipants.email })
    .from(jobParticipants)
    .where(eq(jobParticipants.jobId, change.job.id));
  // The server knows no participant's zone: their times are written in UTC, and say so.
  for (const person of participants) people.push({ ...person, timeZone: 'UTC' });
  const seen = new Set<string>();
  const recipients = people.filter((person) => {
    const key = person.email.trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (recipients.length === 0) return;
  const link = jobPageLink(ctx, change.job.id);
  const title = toSingleLine(change.job.title);
  const invite = buildCalendarInvite({
    method: mail.method,
    uid: jobSessionUid(change.job.id, ctx.config.publicUrl),
    sequence: change.version,
    startsAt: mail.at,
    endsAt: null,
    stampedAt: now,
    summary: `Notarization: ${title}`,
    description: [
      `Remote online notarization of "${title}".`,
      mail.method === 'CANCEL' ? 'This session was called off.' : `Join from the job page: ${link}`,
    ].join('\n'),
    url: link,
    organizer: { name: 'Open RON', email: readMailAddress(ctx.config.email.from) },
    attendees: recipients.map((person) => ({ name: toSingleLine(person.name), email: person.email })),
  });
  const attachment = {
    filename: mail.method === 'CANCEL' ? 'cancel.ics' : 'invite.ics',
    contentType: `text/calendar; charset=utf-8; method=${mail.method}`,
    content: invite,
  };
  for (const person of recipients) {
    await queueEmail(ctx.db, {
      to: person.email,
      kind: 'session_scheduled',
      attachments: [attachment],
      ...mailTemplates.sessionScheduled.render({
        name: person.name,
        title: change.job.title,
        when: formatSessionLabel(mail.at, person.timeZone),
        change: mail.kind,
        link,
      }),
    });
  }
}
