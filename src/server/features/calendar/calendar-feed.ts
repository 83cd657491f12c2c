import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { calendarLimits, type CalendarFeed } from '#shared/calendar.ts';
import { calendarFeeds, users } from '#server/db/schema/index.ts';
import type { DbOrTx } from '#server/db/client.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { escapeCalendarText, foldCalendarLine, formatCalendarTime } from '#server/features/gnw/calendar-invite.ts';
import { findCalendarParts, type CalendarParts } from './calendar.service.ts';

/**
 * A person's secret iCalendar feed (decision 052): the address holds 32 random bytes; only their
 * SHA-256 is stored, so the address is shown once, when made. Making a new one revokes the old.
 */
const feedPath = '/api/calendar/feed/';
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const feedUrl = (ctx: Pick<Ctx, 'config'>, token: string) => `${ctx.config.publicUrl}${feedPath}${token}.ics`;

function signedInUserId(ctx: Ctx): string {
  if (!ctx.user) throw unauthorized();
  return ctx.user.id;
}

export async function getFeed(ctx: Ctx): Promise<CalendarFeed> {
  const userId = signedInUserId(ctx);
  const [live] = await ctx.db
    .select()
    .from(calendarFeeds)
    .where(and(eq(calendarFeeds.userId, userId), isNull(calendarFeeds.revokedAt)))
    .limit(1);
  return { isActive: Boolean(live), createdAt: live?.createdAt.toISOString() ?? null, lastReadAt: live?.lastReadAt?.toISOString() ?? null };
}

/** POST: a new address; the live one, if any, stops working in the same transaction. */
export async function createFeed(ctx: Ctx): Promise<CalendarFeed> {
  const userId = signedInUserId(ctx);
  const token = randomBytes(32).toString('base64url');
  const row = await ctx.db.transaction(async (tx) => {
    // One person's feed changes one at a time: two clicks racing leave exactly one live address.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    const revoked = await tx
      .update(calendarFeeds)
      .set({ revokedAt: new Date() })
      .where(and(eq(calendarFeeds.userId, userId), isNull(calendarFeeds.revokedAt)))
      .returning({ id: calendarFeeds.id });
    const [created] = await tx
      .insert(calendarFeeds)
      .values({ userId, tokenHash: hashToken(token) })
      .returning();
    if (!created) throw new Error('calendar feed insert returned no row');
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'calendar.feed_created', data: { userId, replacedEarlier: revoked.length > 0 } });
    return created;
  });
  return { isActive: true, createdAt: row.createdAt.toISOString(), lastReadAt: null, url: feedUrl(ctx, token) };
}

/** DELETE: the address stops working at once. */
export async function revokeFeed(ctx: Ctx): Promise<CalendarFeed> {
  const userId = signedInUserId(ctx);
  await ctx.db.transaction(async (tx) => {
    const revoked = await tx
      .update(calendarFeeds)
      .set({ revokedAt: new Date() })
      .where(and(eq(calendarFeeds.userId, userId), isNull(calendarFeeds.revokedAt)))
      .returning({ id: calendarFeeds.id });
    if (revoked.length === 0) throw notFound('You have no calendar feed address to turn off.');
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'calendar.feed_revoked', data: { userId } });
  });
  return { isActive: false, createdAt: null, lastReadAt: null };
}

const feedNotFound = () => notFound('This calendar feed address is not in use. Make a new one on the Calendar page.');

/**
 * GET /api/calendar/feed/{token}.ics, for calendar apps (no cookie): the person's sessions, slots and
 * events from 60 days back to 400 days ahead, written as UTC instants (RFC 5545 form 2), which every
 * calendar app shows in its own zone. The account must still be active.
 */
export async function readFeed(db: DbOrTx, config: Ctx['config'], file: string, now = new Date()): Promise<string> {
  const token = file.endsWith('.ics') ? file.slice(0, -4) : file;
  if (!tokenPattern.test(token)) throw feedNotFound();
  const [feed] = await db
    .select({ id: calendarFeeds.id, userId: calendarFeeds.userId, lastReadAt: calendarFeeds.lastReadAt, status: users.status, name: users.name })
    .from(calendarFeeds)
    .innerJoin(users, eq(users.id, calendarFeeds.userId))
    .where(and(eq(calendarFeeds.tokenHash, hashToken(token)), isNull(calendarFeeds.revokedAt)))
    .limit(1);
  if (!feed || feed.status !== 'active') throw feedNotFound();
  const from = new Date(now.getTime() - calendarLimits.feedPastDays * 86_400_000);
  const to = new Date(now.getTime() + calendarLimits.feedFutureDays * 86_400_000);
  const parts = await findCalendarParts(db, feed.userId, from, to);
  // Calendar apps poll every few minutes to hours; the time is written at most once a minute.
  if (!feed.lastReadAt || now.getTime() - feed.lastReadAt.getTime() > 60_000) {
    await db
      .update(calendarFeeds)
      .set({ lastReadAt: sql`now()` })
      .where(eq(calendarFeeds.id, feed.id));
  }
  return buildFeed(parts, { publicUrl: config.publicUrl, stampedAt: now });
}

function hostOf(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

interface FeedEvent {
  uid: string;
  sequence: number;
  startsAt: Date;
  endsAt: Date | null;
  summary: string;
  description: string | null;
  url: string | null;
  isFree: boolean;
}

/** The VCALENDAR a subscribed calendar reads (METHOD:PUBLISH), one VEVENT per item, stable UIDs. */
export function buildFeed(parts: CalendarParts, options: { publicUrl: string; stampedAt: Date }): string {
  const host = hostOf(options.publicUrl);
  const events: FeedEvent[] = [
    ...parts.sessions.map((session) => ({
      // The same UID as the booking's invitation, so a calendar holding both shows one event.
      uid: session.bookingId ? `booking-${session.bookingId}@${host}` : `job-${session.jobId}@${host}`,
      sequence: session.sequence ?? 0,
      startsAt: session.scheduledAt as Date,
      endsAt: session.bookedEnd,
      summary: `Notarization session: ${session.title}`,
      description: 'Open the job page to join the session.',
      url: `${options.publicUrl}/jobs/detail?jobId=${session.jobId}`,
      isFree: false,
    })),
    ...parts.slots.map((slot) => ({
      uid: `slot-${slot.id}@${host}`,
      sequence: 0,
      startsAt: slot.startsAt,
      endsAt: slot.endsAt,
      summary: 'Available for notarizations',
      description: null,
      url: `${options.publicUrl}/dashboard?tab=availability`,
      isFree: true,
    })),
    ...parts.events.map((event) => ({
      uid: `event-${event.id}@${host}`,
      sequence: event.sequence,
      startsAt: event.startsAt,
      endsAt: event.endsAt,
      summary: event.title,
      description: event.notes,
      url: null,
      isFree: false,
    })),
  ];
  const lines = ['BEGIN:VCALENDAR', 'PRODID:-//Open RON//Calendar feed//EN', 'VERSION:2.0', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH', 'X-WR-CALNAME:Open RON'];
  for (const event of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${event.uid}`,
      `SEQUENCE:${event.sequence}`,
      `DTSTAMP:${formatCalendarTime(options.stampedAt)}`,
      `DTSTART:${formatCalendarTime(event.startsAt)}`,
      ...(event.endsAt ? [`DTEND:${formatCalendarTime(event.endsAt)}`] : []),
      `SUMMARY:${escapeCalendarText(event.summary)}`,
      ...(event.description ? [`DESCRIPTION:${escapeCalendarText(event.description)}`] : []),
      ...(event.url ? [`URL:${event.url.replace(/[\s"]/g, '')}`] : []),
      `TRANSP:${event.isFree ? 'TRANSPARENT' : 'OPAQUE'}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldCalendarLine).join('\r\n') + '\r\n';
}
