import { formatDateTime } from '#shared/dates.ts';
import { and, eq, sql } from 'drizzle-orm';
import type { CanEnter } from '#shared/jobs.ts';
import { notaryParticipantId, type JoinSessionInput, type LobbyState, type JoinSessionResult, type VideoSession, type VideoTokenInput } from '#shared/video.ts';
import { videoChangedMessage, type SessionPlace } from '#shared/video-signaling.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documents, jobs, users, videoSessionParticipants } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { publishJobChange } from '#server/features/fields/fields.service.ts';
import { getJobAccess, type JobAccess } from '#server/features/jobs/job-access.ts';
import { findEmailInvitations } from '#server/features/jobs/job-invitations.ts';
import { describeSession, findOpenSession, getSessionAccess, isNotaryPresent, requireNotary, toParticipantId, type SessionRow } from '../video-access.ts';
import { findRunningRecording } from '../recording/recordings.service.ts';
import { signVideoToken } from '../signaling/video-token.ts';
import { mustProveIdentity, policyOfJob } from '#server/features/identity/identity-access.ts';
import { findIdentityPlace, identityReason } from '#server/features/identity/identity-evidence.ts';

const sessionOpensBeforeMs = 15 * 60_000;

/** While the only identity-data provider is the development one (decision 025), said plainly to everyone who takes the step. */
export const identityNotice =
  'The identity questions of this platform come from its development provider: they are made from what the person typed and prove nothing on their own. The notary’s judgement in the session decides.';

const notOnJobReason = 'Only the job’s notary and its signers, witnesses and observers enter the session. Ask the job’s preparer to invite you as an observer.';

/** Every reason the caller may not enter now; the session is read, never changed. */
async function findEntryReasons(ctx: Ctx, access: JobAccess, role: string | null, session: SessionRow | null): Promise<string[]> {
  const { job } = access;
  const reasons: string[] = [];
  if (job.status === 'completed' || job.status === 'cancelled') reasons.push(`This job is ${job.status}.`);
  if (job.status === 'draft') reasons.push('The job is not ready yet.');
  if (!job.notaryId) reasons.push('No notary is assigned yet.');
  const [{ count = 0 } = {}] = await ctx.db
    .select({ count: sql<number>`count(*)::int` })
    .from(documents)
    .where(eq(documents.jobId, job.id));
  if (count === 0) reasons.push('The job has no documents yet.');
  if (job.status === 'scheduled' && job.scheduledAt && Date.now() < job.scheduledAt.getTime() - sessionOpensBeforeMs) {
    reasons.push(`The session opens 15 minutes before its time, ${formatDateTime(job.scheduledAt, { locale: 'en-US', timeZone: 'UTC' })}.`);
  }
  if (!role) {
    reasons.push(notOnJobReason);
    return reasons;
  }
  if (role === 'notary') return reasons;
  const identity = identityReason(await findIdentityPlace(ctx.db, access, role));
  if (identity) reasons.push(identity);
  if (!session) {
    reasons.push('The notary has not opened the session yet.');
    return reasons;
  }
  if (!(await isNotaryPresent(ctx.db, session.id, job.notaryId))) reasons.push('The notary is not in the session yet.');
  const [own] = await ctx.db
    .select({ lobbyState: videoSessionParticipants.lobbyState })
    .from(videoSessionParticipants)
    .where(and(eq(videoSessionParticipants.sessionId, session.id), eq(videoSessionParticipants.userId, access.userId)))
    .limit(1);
  if (own?.lobbyState === 'denied') reasons.push('The notary did not admit you to this session.');
  return reasons;
}

export function roleOf(access: JobAccess): 'notary' | 'signer' | 'witness' | 'observer' | null {
  if (access.actors.includes('notary')) return 'notary';
  return access.participant?.role ?? null;
}

/**
 * GET /api/jobs/{id}/can-enter: who may enter the live session now and every reason why not. A
 * person invited by confirmed email who has not accepted yet is told to accept, not shown a 404.
 */
export async function checkCanEnter(ctx: Ctx, jobId: string): Promise<CanEnter> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  let access: JobAccess;
  try {
    access = await getJobAccess(ctx, jobId);
  } catch (error) {
    const [invitation] = error instanceof AppError && error.statusCode === 404 ? await findEmailInvitations(ctx.db, user.id, { jobId }) : [];
    if (!invitation) throw error;
    const [invitedJob] = await ctx.db.select({ notaryId: jobs.notaryId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
    const policy = await policyOfJob(ctx.db, { notaryId: invitedJob?.notaryId ?? null });
    const required = mustProveIdentity(invitation.participant.role, policy);
    const place = { required, satisfied: !required, checkId: null, status: null, policyCode: policy.code };
    return {
      canEnter: false,
      role: invitation.participant.role,
      reasons: ['Accept your invitation to this job first.'],
      notices: required ? [identityNotice] : [],
      session: noSessionPlace,
      identity: place,
    };
  }
  const role = roleOf(access);
  const session = await findOpenSession(ctx.db, jobId);
  const reasons = await findEntryReasons(ctx, access, role, session);
  const identity = await findIdentityPlace(ctx.db, access, role);
  const notices = identity.required ? [identityNotice] : [];
  return { canEnter: reasons.length === 0, role, reasons, notices, session: await findSessionPlace(ctx.db, session, access.userId), identity };
}

const noSessionPlace: SessionPlace = { sessionId: null, sessionStatus: null, participantId: null, lobbyState: null, recording: null };

/** The caller's row in the open session (if they entered it) and the recording running in it, if any. */
async function findSessionPlace(db: DbOrTx, session: SessionRow | null, userId: string): Promise<SessionPlace> {
  if (!session) return noSessionPlace;
  const [own] = await db
    .select()
    .from(videoSessionParticipants)
    .where(and(eq(videoSessionParticipants.sessionId, session.id), eq(videoSessionParticipants.userId, userId)))
    .limit(1);
  const running = await findRunningRecording(db, session.id);
  return {
    sessionId: session.id,
    sessionStatus: session.status,
    participantId: own ? toParticipantId(own) : null,
    lobbyState: own?.lobbyState ?? null,
    recording: running ? { recordingId: running.id, startedAt: running.startedAt.toISOString() } : null,
  };
}

/**
 * POST /api/jobs/{id}/session/join: the caller enters the lobby of the job's open session (the notary
 * enters admitted). Entering again (a reload, another device) keeps an admission: a dropped
 * participant comes back without the notary acting. Consent to recording is required by the schema.
 */
export async function joinSession(ctx: Ctx, jobId: string, input: JoinSessionInput): Promise<JoinSessionResult> {
  const result = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId);
    const role = roleOf(access);
    if (!role) throw forbidden(notOnJobReason);
    const session = await findOpenSession(tx, jobId, { forUpdate: true });
    if (!session) throw conflict(role === 'notary' ? 'Open the session first.' : 'The notary has not opened the session yet.');
    const reasons = await findEntryReasons(txCtx, access, role, session);
    if (reasons.length > 0) {
      const isDenied = reasons.includes('The notary did not admit you to this session.');
      throw new AppError(
        isDenied ? 403 : 409,
        isDenied ? 'forbidden' : 'cannot_enter',
        isDenied ? 'The notary did not admit you to this session.' : (reasons[0] ?? ''),
        { reasons },
      );
    }
    const [existing] = await tx
      .select()
      .from(videoSessionParticipants)
      .where(and(eq(videoSessionParticipants.sessionId, session.id), eq(videoSessionParticipants.userId, access.userId)))
      .limit(1);
    const now = new Date();
    // An admission holds for the role it was given in: someone whose role on the job changed waits again.
    const lobbyState: LobbyState = role === 'notary' || (existing?.lobbyState === 'admitted' && existing.role === role) ? 'admitted' : 'waiting';
    const jobParticipantId = role === 'notary' ? null : (access.participant?.id ?? null);
    const values = { role, jobParticipantId, deviceGroupId: input.deviceGroupId, consentedToRecordingAt: now, lastHeartbeatAt: now, lobbyState } as const;
    if (existing) {
      await tx.update(videoSessionParticipants).set(values).where(eq(videoSessionParticipants.id, existing.id));
    } else {
      await tx.insert(videoSessionParticipants).values({
        sessionId: session.id,
        userId: access.userId,
        joinedAt: now,
        ...values,
      });
    }
    const [person] = await tx.select({ name: users.name }).from(users).where(eq(users.id, access.userId)).limit(1);
    const participantId = role === 'notary' ? notaryParticipantId : (access.participant?.id ?? '');
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'video.joined',
      data: {
        sessionId: session.id,
        participantId,
        name: person?.name ?? null,
        role,
        lobbyState,
        deviceGroupId: input.deviceGroupId,
        consentedToRecording: true,
      },
    });
    const canSign = role === 'signer' || role === 'witness';
    const message =
      lobbyState === 'admitted'
        ? 'You are in the session. It is recorded.'
        : `You are in the lobby. The notary will admit you shortly. The session is recorded.${canSign ? '' : ' As an observer you watch and listen but never sign.'}`;
    return { sessionId: session.id, participantId, role, lobbyState, canSign, message };
  });
  await publishJobChange(ctx, jobId, videoChangedMessage);
  return result;
}

/** admit|deny: the notary lets a participant of the lobby in, or keeps them out (and out again after an admission). */
export async function decideParticipant(ctx: Ctx, sessionId: string, participantId: string, decision: 'admit' | 'deny'): Promise<VideoSession> {
  const session = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const found = await getSessionAccess(txCtx, sessionId, { forUpdate: true });
    requireNotary(found, decision === 'admit' ? 'admit people to the session' : 'keep people out of the session');
    if (found.session.status === 'finalized') throw conflict('This session has ended.');
    const [row] = await tx
      .select({ participant: videoSessionParticipants, name: users.name })
      .from(videoSessionParticipants)
      .innerJoin(users, eq(users.id, videoSessionParticipants.userId))
      .where(and(eq(videoSessionParticipants.sessionId, sessionId), eq(videoSessionParticipants.jobParticipantId, participantId)))
      .limit(1);
    if (!row) throw notFound('No one with that participant id has entered this session.');
    const lobbyState = decision === 'admit' ? 'admitted' : 'denied';
    if (row.participant.lobbyState !== lobbyState) {
      await tx.update(videoSessionParticipants).set({ lobbyState, decidedAt: new Date() }).where(eq(videoSessionParticipants.id, row.participant.id));
      await appendAuditEvent(txCtx, {
        jobId: found.session.jobId,
        action: decision === 'admit' ? 'video.admitted' : 'video.denied',
        data: { sessionId, participantId, name: row.name, role: row.participant.role },
      });
    }
    return found.session;
  });
  await publishJobChange(ctx, session.jobId, videoChangedMessage);
  return describeSession(ctx.db, session);
}

async function getOwnRow(ctx: Ctx, sessionId: string) {
  const found = await getSessionAccess(ctx, sessionId);
  const [row] = await ctx.db
    .select()
    .from(videoSessionParticipants)
    .where(and(eq(videoSessionParticipants.sessionId, sessionId), eq(videoSessionParticipants.userId, found.access.userId)))
    .limit(1);
  if (!row) throw forbidden('Enter the session first.');
  // The row keeps the role the person entered with; their place on the job may have changed since.
  if (roleOf(found.access) !== row.role) throw forbidden('Your role on this job changed since you entered; enter the session again.');
  if (found.access.job.status === 'cancelled') throw conflict('This job is cancelled.');
  return { found, row };
}

/** POST /api/video/heartbeat: the participant is still there; 90 s without one shows them as away. */
export async function recordHeartbeat(ctx: Ctx, sessionId: string, role: string): Promise<{ ok: true; lastHeartbeatAt: string }> {
  const { found, row } = await getOwnRow(ctx, sessionId);
  if (row.role !== role) throw forbidden(`You are in this session as ${row.role}, not ${role}.`);
  if (found.session.status === 'finalized') throw conflict('This session has ended.');
  if (row.lobbyState === 'denied' || row.lobbyState === 'left') throw forbidden('You are no longer in this session.');
  const now = new Date();
  await ctx.db.update(videoSessionParticipants).set({ lastHeartbeatAt: now }).where(eq(videoSessionParticipants.id, row.id));
  return { ok: true, lastHeartbeatAt: now.toISOString() };
}

/** POST /api/video/token: a five-minute media token for an admitted participant (or the notary), bound to them. */
export async function issueVideoToken(ctx: Ctx, input: VideoTokenInput): Promise<{ token: string; expiresAt: string }> {
  const { found, row } = await getOwnRow(ctx, input.sessionId);
  if (toParticipantId(row) !== input.participantId) throw forbidden('That participant id is not yours in this session.');
  if (row.role !== input.role) throw forbidden(`You are in this session as ${row.role}, not ${input.role}.`);
  if (found.session.status === 'finalized') throw conflict('This session has ended.');
  if (row.lobbyState === 'waiting') throw forbidden('The notary has not admitted you yet.');
  if (row.lobbyState !== 'admitted') throw forbidden('You are no longer in this session.');
  if (row.deviceGroupId !== input.deviceGroupId) throw conflict('Enter the session again from this device first.');
  const { token, expiresAt } = signVideoToken(ctx.secretsKey, {
    userId: row.userId,
    sessionId: input.sessionId,
    participantId: input.participantId,
    deviceGroupId: input.deviceGroupId,
    role: row.role,
  });
  return { token, expiresAt: new Date(expiresAt).toISOString() };
}
