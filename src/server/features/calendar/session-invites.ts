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

interface Recipient {
  name: string;
  email: string;
  timeZone: string;
}

/** The notary (in their profile's zone) and every participant (in UTC: the server knows no participant's zone). */
async function findRecipients(db: DbOrTx, jobId: string, notaryId: string | null): Promise<Recipient[]> {
  const people: Recipient[] = [];
  if (notaryId) {
    const notary = await findNotaryRecipient(db, notaryId);
    if (notary) people.push(notary);
  }
  const participants = await db
    .select({ name: jobParticipants.name, email: jobParticipants.email })
    .from(jobParticipants)
    .where(eq(jobParticipants.jobId, jobId));
  for (const person of participants) people.push({ ...person, timeZone: 'UTC' });
  const seen = new Set<string>();
  return people.filter((person) => {
    const key = person.email.trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function findNotaryRecipient(db: DbOrTx, notaryId: string): Promise<Recipient | null> {
  const [notary] = await db
    .select({ name: users.name, email: users.email, timeZone: notaryProfiles.timeZone })
    .from(users)
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, notaryId))
    .limit(1);
  return notary ? { name: notary.name, email: notary.email, timeZone: notary.timeZone ?? 'UTC' } : null;
}

/** A Notarize Now job's sessions are booked, and their booking mails the calendar (both lanes). */
async function isBookedJob(db: DbOrTx, jobId: string): Promise<boolean> {
  const [request] = await db.select({ id: instantRequests.id }).from(instantRequests).where(eq(instantRequests.jobId, jobId)).limit(1);
  return Boolean(request);
}

interface SessionMail {
  job: { id: string; title: string };
  method: CalendarMethod;
  kind: 'scheduled' | 'moved' | 'cancelled';
  at: Date;
  sequence: number;
}

/**
 * One person's mail and .ics: each invitation names only its own recipient as attendee, so nobody
 * learns another person's address from it (a participant's or the notary's).
 */
async function queueOne(ctx: MailCtx, mail: SessionMail, person: Recipient, now: Date): Promise<void> {
  const link = jobPageLink(ctx, mail.job.id);
  const title = toSingleLine(mail.job.title);
  const content = buildCalendarInvite({
    method: mail.method,
    uid: jobSessionUid(mail.job.id, ctx.config.publicUrl),
    sequence: mail.sequence,
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
    attendees: [{ name: toSingleLine(person.name), email: person.email }],
  });
  await queueEmail(ctx.db, {
    to: person.email,
    kind: 'session_scheduled',
    attachments: [
      { filename: mail.method === 'CANCEL' ? 'cancel.ics' : 'invite.ics', contentType: `text/calendar; charset=utf-8; method=${mail.method}`, content },
    ],
    ...mailTemplates.sessionScheduled.render({
      name: person.name,
      title: mail.job.title,
      when: formatSessionLabel(mail.at, person.timeZone),
      change: mail.kind,
      link,
    }),
  });
}

/** Queues the mail a schedule change calls for, in the transaction of the change; nothing when it calls for none. */
export async function queueSessionScheduleMail(ctx: MailCtx, change: ScheduleChange, now: Date): Promise<void> {
  const mail = scheduleMailOf(change);
  if (!mail) return;
  if (await isBookedJob(ctx.db, change.job.id)) return;
  const recipients = await findRecipients(ctx.db, change.job.id, change.job.notaryId);
  for (const person of recipients) {
    await queueOne(ctx, { job: change.job, method: mail.method, kind: mail.kind, at: mail.at, sequence: change.version }, person, now);
  }
}

/** A job whose session is announced now (out of draft, scheduled, not yet held): its time, else null. */
function announcedTime(job: { scheduledAt: Date | null; status: string }): Date | null {
  return job.scheduledAt && announcedStatuses.has(job.status) ? job.scheduledAt : null;
}

export interface PersonChange {
  job: { id: string; title: string; scheduledAt: Date | null; status: string };
  /** The job's version after the change: the SEQUENCE. */
  version: number;
  person: { kind: 'participant'; name: string; email: string } | { kind: 'notary'; userId: string };
  /** Joins the session (an invitation) or leaves it (the cancellation of their copy). */
  change: 'joins' | 'leaves';
}

/**
 * A person added to or removed from a job whose session is already announced: the newcomer gets the
 * invitation, the one who leaves (a removed participant, a replaced notary) its cancellation.
 */
export async function queueSessionMailForPerson(ctx: MailCtx, change: PersonChange, now: Date): Promise<void> {
  const at = announcedTime(change.job);
  if (!at) return;
  if (await isBookedJob(ctx.db, change.job.id)) return;
  const person =
    change.person.kind === 'notary'
      ? await findNotaryRecipient(ctx.db, change.person.userId)
      : { name: change.person.name, email: change.person.email, timeZone: 'UTC' };
  if (!person) return;
  const isJoining = change.change === 'joins';
  await queueOne(
    ctx,
    { job: change.job, method: isJoining ? 'REQUEST' : 'CANCEL', kind: isJoining ? 'scheduled' : 'cancelled', at, sequence: change.version },
    person,
    now,
  );
}
