import { and, eq, inArray } from 'drizzle-orm';
import { formatDuration, formatRecordSpan } from '#shared/dates.ts';
import { describeInterruptionRule, type InterruptionRule } from '#shared/identity-policies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { auditEvents, jobParticipants, jobs, users, videoSessionParticipants, videoSessions } from '#server/db/schema/index.ts';

/**
 * Each person's share of the recording (decision 033): while they were admitted to the call and it
 * was recorded, the stretches in which none of their media was stored (they left, lost the
 * connection). A gap used to count only when nobody's media was stored, so the notary's own 40 s
 * absence went unmentioned while the signer was recorded.
 */

/** Shorter holes are not listed: segments are cut every 4 s and the one being recorded at the seal is stored after it. */
export const interruptionListedMs = 5_000;

export type PersonRole = 'notary' | 'signer' | 'witness' | 'observer';

export interface Interruption {
  from: Date;
  to: Date;
}

export interface PersonRecording {
  /** "notary" or the job participant's id, as on the segments. */
  participantId: string;
  name: string;
  role: PersonRole;
  /** Admitted to the call at some time while it was recorded. */
  wasInRecordedCall: boolean;
  segmentCount: number;
  /** Time covered by their stored segments (overlaps counted once). */
  recordedMs: number;
  /** Stretches longer than interruptionListedMs, while admitted and recorded, with none of their media stored. */
  interruptions: Interruption[];
}

interface Span {
  recordingId: string;
  sessionId: string;
  from: Date;
  to: Date;
}

interface Interval {
  startedAt: Date;
  endedAt: Date;
}

/** Stretches of [from, to] longer than minimumMs that no interval covers. */
export function findUncovered(intervals: Interval[], from: Date, to: Date, minimumMs: number): Interruption[] {
  const sorted = [...intervals].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  const holes: Interruption[] = [];
  let covered = from.getTime();
  for (const interval of sorted) {
    const start = Math.min(interval.startedAt.getTime(), to.getTime());
    if (start - covered > minimumMs) holes.push({ from: new Date(covered), to: new Date(start) });
    covered = Math.max(covered, interval.endedAt.getTime());
    if (covered >= to.getTime()) break;
  }
  if (to.getTime() - covered > minimumMs) holes.push({ from: new Date(covered), to });
  return holes;
}

/** The length of the union of the intervals. */
function coveredMs(intervals: Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  let total = 0;
  let end = -Infinity;
  for (const interval of sorted) {
    const start = Math.max(interval.startedAt.getTime(), end);
    if (interval.endedAt.getTime() > start) total += interval.endedAt.getTime() - start;
    end = Math.max(end, interval.endedAt.getTime());
  }
  return total;
}

/**
 * When each person was in the call, per session, from what the session recorded: the notary from
 * entering; anyone else from the notary's admission until the notary removed them (a removed
 * person's admission time is read from the trail's `video.admitted`), and everyone until the
 * session ended.
 */
async function findAdmissions(db: DbOrTx, jobId: string, sessionIds: string[]) {
  const sessions = await db
    .select({ id: videoSessions.id, finalizedAt: videoSessions.finalizedAt })
    .from(videoSessions)
    .where(inArray(videoSessions.id, sessionIds));
  const rows = await db.select().from(videoSessionParticipants).where(inArray(videoSessionParticipants.sessionId, sessionIds));
  const removed = rows.filter((row) => row.lobbyState === 'denied' && row.jobParticipantId);
  const admittedEvents = removed.length
    ? await db
        .select({ data: auditEvents.data, createdAt: auditEvents.createdAt })
        .from(auditEvents)
        .where(and(eq(auditEvents.scope, `job:${jobId}`), eq(auditEvents.action, 'video.admitted')))
    : [];
  const admissions: Array<{ sessionId: string; participantId: string; from: Date; until: Date | null }> = [];
  for (const row of rows) {
    const endedAt = sessions.find((session) => session.id === row.sessionId)?.finalizedAt ?? null;
    if (row.role === 'notary') {
      admissions.push({ sessionId: row.sessionId, participantId: 'notary', from: row.joinedAt, until: endedAt });
    } else if (row.jobParticipantId && (row.lobbyState === 'admitted' || row.lobbyState === 'left')) {
      admissions.push({ sessionId: row.sessionId, participantId: row.jobParticipantId, from: row.decidedAt ?? row.joinedAt, until: endedAt });
    } else if (row.jobParticipantId && row.lobbyState === 'denied' && row.decidedAt) {
      const decidedAt = row.decidedAt;
      const admitted = admittedEvents
        .filter(({ data, createdAt }) => {
          const fields = (data ?? {}) as Record<string, unknown>;
          return fields.sessionId === row.sessionId && fields.participantId === row.jobParticipantId && createdAt <= decidedAt;
        })
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
      if (admitted) admissions.push({ sessionId: row.sessionId, participantId: row.jobParticipantId, from: admitted.createdAt, until: decidedAt });
    }
  }
  return admissions;
}

/**
 * Each person of the job (its notary, signers, witnesses and observers) with their stored segments
 * and their interruptions inside the recorded spans (each recording from its start to its stop, or
 * to the seal while it runs).
 */
export async function findPersonRecordings(
  db: DbOrTx,
  jobId: string,
  spans: Span[],
  segments: Array<Interval & { participantId: string }>,
): Promise<PersonRecording[]> {
  const [job] = await db.select({ notaryName: users.name }).from(jobs).leftJoin(users, eq(users.id, jobs.notaryId)).where(eq(jobs.id, jobId)).limit(1);
  const participants = await db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId)).orderBy(jobParticipants.position);
  const admissions = spans.length ? await findAdmissions(db, jobId, [...new Set(spans.map((span) => span.sessionId))]) : [];
  const people = [
    { participantId: 'notary', name: job?.notaryName ?? 'The notary', role: 'notary' as PersonRole },
    ...participants.map((participant) => ({ participantId: participant.id, name: participant.name, role: participant.role as PersonRole })),
  ];
  return people.map((person) => {
    const own = segments.filter((segment) => segment.participantId === person.participantId);
    const windows = spans.flatMap((span) =>
      admissions
        .filter((admission) => admission.sessionId === span.sessionId && admission.participantId === person.participantId)
        .map((admission) => ({
          from: new Date(Math.max(span.from.getTime(), admission.from.getTime())),
          to: new Date(Math.min(span.to.getTime(), admission.until?.getTime() ?? Infinity)),
        }))
        .filter((window) => window.to > window.from),
    );
    const interruptions = windows
      .flatMap((window) => findUncovered(own, window.from, window.to, interruptionListedMs))
      .sort((a, b) => a.from.getTime() - b.from.getTime());
    return { ...person, wasInRecordedCall: windows.length > 0, segmentCount: own.length, recordedMs: coveredMs(own), interruptions };
  });
}

/**
 * Why the act cannot be sealed, or null: the notary or a signer out of the recorded call for longer
 * than the commission state's rule allows, or a signer never in it. Names who, when and the rule.
 */
export function describeBlockingInterruptions(people: PersonRecording[], rule: InterruptionRule, timeZone = 'UTC'): string | null {
  const limitMs = rule.maxSeconds * 1000;
  const findings = people
    .filter((person) => person.role === 'notary' || person.role === 'signer')
    .flatMap((person) => {
      const who = `${person.name} (${person.role})`;
      if (!person.wasInRecordedCall) return [`${who} was not in the recorded call at any time`];
      return person.interruptions
        .filter((gap) => gap.to.getTime() - gap.from.getTime() > limitMs)
        .map(
          (gap) =>
            `${who} was out of the recorded call ${formatRecordSpan(gap.from, gap.to, timeZone)} (${formatDuration(gap.to.getTime() - gap.from.getTime())})`,
        );
    });
  if (findings.length === 0) return null;
  return `Sealing is blocked: ${findings.join('; ')}. ${describeInterruptionRule(rule)}`;
}
