import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { and, count, eq } from 'drizzle-orm';
import { notaryParticipantId, type Recording } from '#shared/video.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobParticipants, recordingSegments, recordings, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueJobWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import type { StorageProvider } from '#server/providers/storage/storage.ts';
import type { RecordedSegment } from '#server/providers/video/segment-recorder.ts';
import { getSessionAccess, requireNotary } from '../video-access.ts';

type RecordingRow = typeof recordings.$inferSelect;

const alreadyRunning = () => conflict('A recording of this session is already running.');

async function describeRecording(db: DbOrTx, row: RecordingRow): Promise<Recording> {
  const [counted] = await db.select({ value: count() }).from(recordingSegments).where(eq(recordingSegments.recordingId, row.id));
  return {
    recordingId: row.id,
    sessionId: row.sessionId,
    status: row.status,
    startedAt: row.startedAt.toISOString(),
    stoppedAt: row.stoppedAt?.toISOString() ?? null,
    segmentCount: counted?.value ?? 0,
  };
}

/**
 * The job's notary starts recording a started session. This records the notary's decision only;
 * segments are stored (storeRecordingSegment) as the media hub actually receives them.
 */
export async function startRecording(ctx: Ctx, sessionId: string): Promise<Recording> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const found = await getSessionAccess(txCtx, sessionId, { forUpdate: true });
      requireNotary(found, 'start the recording');
      if (found.session.status !== 'started') throw conflict('Start the session before recording it.');
      if (await findRunningRecording(tx, sessionId)) throw alreadyRunning();
      const [created] = await tx.insert(recordings).values({ sessionId, jobId: found.session.jobId, startedBy: found.access.userId }).returning();
      if (!created) throw new Error('recording insert returned no row');
      await appendAuditEvent(txCtx, { jobId: found.session.jobId, action: 'recording.started', data: { sessionId, recordingId: created.id } });
      return describeRecording(tx, created);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyRunning();
    throw error;
  }
}

/** Marks a running recording stopped and writes `recording.stopped`, inside the caller's transaction. */
async function markStopped(txCtx: Ctx, row: RecordingRow): Promise<Recording> {
  const [updated] = await txCtx.db.update(recordings).set({ status: 'stopped', stoppedAt: new Date() }).where(eq(recordings.id, row.id)).returning();
  const described = await describeRecording(txCtx.db, updated ?? row);
  await appendAuditEvent(txCtx, {
    jobId: row.jobId,
    action: 'recording.stopped',
    data: { sessionId: row.sessionId, recordingId: row.id, segmentCount: described.segmentCount },
  });
  await queueJobWebhookEvent(txCtx.db, row.jobId, 'recording.stored', {
    jobId: row.jobId,
    sessionId: row.sessionId,
    recordingId: row.id,
    segmentCount: described.segmentCount,
    stoppedAt: (updated?.stoppedAt ?? new Date()).toISOString(),
  });
  return described;
}

/** The job's notary stops a recording of this session; it may be stopped after the session ended. */
export async function stopRecording(ctx: Ctx, input: { recordingId: string; sessionId: string }): Promise<Recording> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const found = await getSessionAccess(txCtx, input.sessionId, { forUpdate: true });
    requireNotary(found, 'stop the recording');
    const [row] = await tx
      .select()
      .from(recordings)
      .where(and(eq(recordings.id, input.recordingId), eq(recordings.sessionId, input.sessionId)))
      .limit(1)
      .for('update');
    if (!row) throw notFound('No recording with that id in this session.');
    if (row.status === 'stopped') throw conflict('This recording has already stopped.');
    return markStopped(txCtx, row);
  });
}

/** The recording of the session that is running, if any (at most one: a partial unique index). */
export async function findRunningRecording(db: DbOrTx, sessionId: string): Promise<RecordingRow | null> {
  const [row] = await db
    .select()
    .from(recordings)
    .where(and(eq(recordings.sessionId, sessionId), eq(recordings.status, 'recording')))
    .limit(1);
  return row ?? null;
}

/** The session ends: its running recording stops with it (`recording.stopped`), in the caller's transaction. */
export async function stopRunningRecording(txCtx: Ctx, sessionId: string): Promise<void> {
  const row = await findRunningRecording(txCtx.db, sessionId);
  if (row) await markStopped(txCtx, row);
}

export interface RecordingStoreDeps {
  db: DbOrTx;
  storage: StorageProvider;
  log: { warn(object: unknown, message: string): void; error(object: unknown, message: string): void };
}

async function participantName(db: DbOrTx, recording: RecordingRow, participantId: string): Promise<string | null> {
  if (participantId === notaryParticipantId) {
    if (!recording.startedBy) return 'the notary';
    const [notary] = await db.select({ name: users.name }).from(users).where(eq(users.id, recording.startedBy)).limit(1);
    return notary?.name ?? 'the notary';
  }
  if (!/^[0-9a-f-]{36}$/i.test(participantId)) return null;
  const [person] = await db
    .select({ name: jobParticipants.name })
    .from(jobParticipants)
    .where(and(eq(jobParticipants.id, participantId), eq(jobParticipants.jobId, recording.jobId)))
    .limit(1);
  return person?.name ?? null;
}

async function storeOnce(deps: RecordingStoreDeps, recordingId: string, segment: RecordedSegment): Promise<string> {
  // Hash what is stored, not what was reported: the audit chain names the bytes kept.
  const content = await fs.promises.readFile(segment.filePath);
  const sha256 = createHash('sha256').update(content).digest('hex');
  if (sha256 !== segment.sha256 || content.length !== segment.bytes) {
    throw new Error(`recording segment ${segment.participantId}/${segment.sequence} changed on disk after it was reported`);
  }
  const storageKey = await deps.storage.putFile(segment.filePath, sha256, 'video/webm');
  await deps.db.transaction(async (tx) => {
    const [recording] = await tx.select().from(recordings).where(eq(recordings.id, recordingId)).limit(1);
    if (!recording) throw new Error(`no recording ${recordingId} for a stored segment`);
    const [saved] = await tx
      .insert(recordingSegments)
      .values({
        recordingId,
        participantId: segment.participantId,
        sequence: segment.sequence,
        sha256,
        bytes: content.length,
        startedAt: segment.startedAt,
        endedAt: segment.endedAt,
        storageKey,
      })
      .returning({ id: recordingSegments.id });
    await appendAuditEvent(
      { db: tx, user: null, ipAddress: 'media-hub', userAgent: null },
      {
        jobId: recording.jobId,
        action: 'recording.segment_saved',
        data: {
          recordingId,
          sessionId: recording.sessionId,
          segmentId: saved?.id ?? null,
          participantId: segment.participantId,
          participantName: await participantName(tx, recording, segment.participantId),
          sequence: segment.sequence,
          sha256,
          bytes: content.length,
          startedAt: segment.startedAt.toISOString(),
          endedAt: segment.endedAt.toISOString(),
          durationMs: Math.max(0, segment.endedAt.getTime() - segment.startedAt.getTime()),
        },
      },
    );
  });
  return storageKey;
}

/**
 * Stores one closed segment the media hub reported: the file into storage under its SHA-256, then
 * its row and a `recording.segment_saved` audit event in one transaction. A failure is logged and
 * tried once more; a second failure is logged as an error and thrown, never dropped in silence.
 * Returns the storage key.
 */
export async function storeRecordingSegment(deps: RecordingStoreDeps, recordingId: string, segment: RecordedSegment): Promise<string> {
  const about = { recordingId, participantId: segment.participantId, sequence: segment.sequence, sha256: segment.sha256 };
  try {
    return await storeOnce(deps, recordingId, segment);
  } catch (firstError) {
    deps.log.warn({ ...about, err: firstError }, 'Storing a recording segment failed; trying once more.');
    try {
      return await storeOnce(deps, recordingId, segment);
    } catch (secondError) {
      deps.log.error({ ...about, err: secondError }, 'A recording segment could not be stored.');
      throw secondError;
    }
  }
}
