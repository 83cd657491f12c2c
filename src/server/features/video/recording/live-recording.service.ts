import { signalCloseCodes, videoChangedMessage } from '#shared/video-signaling.ts';
import type { Recording, VideoSession } from '#shared/video.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict } from '#server/lib/errors.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { liveSessionsOf } from '../signaling/live-sessions.ts';
import { startRecording, stopRecording } from './recordings.service.ts';
import { getSessionAccess, requireNotary } from '../video-access.ts';
import { finalizeVideoSession } from '../video-sessions.service.ts';

/**
 * POST /api/video/recording/start: the notary's decision (startRecording), then the media hub of
 * the session's home instance (this one, or the one its room lives on) records the room in segments, each stored with its SHA-256 in the audit
 * chain. Everyone in the room hears `recording` (through `video.changed`).
 */
export async function startSessionRecording(ctx: Ctx, sessionId: string): Promise<Recording> {
  const recording = await startRecording(ctx, sessionId);
  const { session } = await getSessionAccess(ctx, sessionId);
  if (ctx.video) {
    await liveSessionsOf(ctx.video).startRecorderAtHome(sessionId, recording.recordingId, ctx.config.dataDir, {
      db: ctx.db,
      realtime: ctx.realtime,
      storage: ctx.storage,
      log: ctx.log,
    });
  }
  await publishJobChange(ctx, session.jobId, videoChangedMessage);
  return recording;
}

/**
 * POST /api/video/recording/stop: the open segments are closed and stored first (so the stop's
 * audit event counts them), then the recording is marked stopped. Nothing received after is kept.
 */
export async function stopSessionRecording(ctx: Ctx, input: { recordingId: string; sessionId: string }): Promise<Recording> {
  const found = await getSessionAccess(ctx, input.sessionId);
  requireNotary(found, 'stop the recording');
  if (ctx.video) await liveSessionsOf(ctx.video).stopRecorderAtHome(input.sessionId, input.recordingId);
  const recording = await stopRecording(ctx, input);
  await publishJobChange(ctx, found.session.jobId, videoChangedMessage);
  return recording;
}

/**
 * finalize: a running recording is flushed and stops with the session (`recording.stopped`), every
 * signaling socket closes with 4410 and the media room closes.
 */
export async function finalizeLiveSession(ctx: Ctx, sessionId: string): Promise<VideoSession> {
  const found = await getSessionAccess(ctx, sessionId);
  requireNotary(found, 'end the session');
  if (found.session.status === 'finalized') throw conflict('This session has ended.');
  const sessions = ctx.video ? liveSessionsOf(ctx.video) : null;
  await sessions?.stopRecorderAtHome(sessionId);
  const session = await finalizeVideoSession(ctx, sessionId);
  await sessions?.endSessionEverywhere(sessionId, signalCloseCodes.sessionEnded, 'session ended');
  return session;
}
