import { and, asc, desc, eq, isNotNull, ne } from 'drizzle-orm';
import {
  resumeLinkLifetimeMs,
  type IdentityCheck,
  type IdentityReviewInput,
  type IdentityStartInput,
  type JobIdentityList,
  type ResumeLink,
} from '#shared/identity.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { identityChecks, jobParticipants } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict, forbidden } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { encryptSecret } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { getJobAccess, type JobAccess, type ParticipantRow } from '#server/features/jobs/job-access.ts';
import type { PersonData } from '#server/providers/identity/identity-data-provider.ts';
import { attemptsOf, findCurrentCheck, openForOwner, settleStatus, stepsStatusOf, toCheck } from './check-rows.ts';
import { checkNotFound, getCheckAccess, mustProveIdentity, policyOfJob } from './identity-access.ts';

/**
 * The identity check's lifecycle: started from what the person states, read back settled to now,
 * reviewed by the notary, continued on a phone through a resume link, and ended when a session ends
 * or the person on the row changes.
 */

function requireParticipantWhoProves(access: JobAccess, policy: IdentityPolicy): ParticipantRow {
  const participant = access.participant;
  if (!participant) throw forbidden('Only the job’s signers (and witnesses where the state requires it) take the identity step.');
  if (!mustProveIdentity(participant.role, policy)) {
    throw forbidden(
      participant.role === 'observer'
        ? 'Observers do not take the identity step.'
        : 'Witnesses of this job do not take the identity step under its state’s rules.',
    );
  }
  return participant;
}

/** POST /api/jobs/{id}/identity/start: the caller's current check, or a new one from what they state. */
export async function startIdentityCheck(ctx: Ctx, jobId: string, input: IdentityStartInput): Promise<IdentityCheck> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    const policy = await policyOfJob(tx, access.job);
    const participant = requireParticipantWhoProves(access, policy);
    if (access.job.status === 'completed' || access.job.status === 'cancelled') throw conflict(`This job is ${access.job.status}.`);
    const now = new Date();
    const sealed = encryptSecret(ctx.secretsKey, JSON.stringify(input satisfies PersonData));
    const current = await findCurrentCheck(tx, participant.id, policy, now);
    if (current) {
      // What the person states may change only before anything was checked against it.
      const isUntouched = current.check.credentialAttempts === 0 && current.attempts.length === 0 && !current.check.selfieReceivedAt;
      const check = isUntouched
        ? ((await tx.update(identityChecks).set({ statementSealed: sealed }).where(eq(identityChecks.id, current.check.id)).returning())[0] ?? current.check)
        : current.check;
      return toCheck(tx, { viewer: 'owner', policy, participant }, check, current.attempts, now);
    }
    const [check] = await tx
      .insert(identityChecks)
      .values({
        jobId,
        jobParticipantId: participant.id,
        userId: access.userId,
        policyCode: policy.code,
        statementSealed: sealed,
        createdAt: now,
        expiresAt: new Date(now.getTime() + policy.validForHours * 3600_000),
        purgeAfter: addYears(now, policy.retentionYears),
      })
      .returning();
    if (!check) throw new Error('identity check was not saved');
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'identity.started',
      data: { checkId: check.id, participantId: participant.id, name: participant.name, policy: policy.code },
    });
    return toCheck(tx, { viewer: 'owner', policy, participant }, check, [], now);
  });
}

function addYears(date: Date, years: number): Date {
  const next = new Date(date);
  next.setUTCFullYear(next.getUTCFullYear() + years);
  return next;
}

/** GET /api/identity/{checkId}. */
export async function getIdentityCheck(ctx: Ctx, checkId: string, resumeToken: string | null): Promise<IdentityCheck> {
  const access = await getCheckAccess(ctx, checkId, resumeToken);
  const now = new Date();
  const { check, attempts } = await settleStatus(ctx.db, access.check, access.policy, now);
  return toCheck(ctx.db, access, check, attempts, now);
}

/** POST /api/identity/{checkId}/review: the job's notary confirms or rejects, with a reason. */
export async function reviewIdentityCheck(ctx: Ctx, checkId: string, input: IdentityReviewInput): Promise<IdentityCheck> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getCheckAccess(txCtx, checkId, null, { forUpdate: true });
    if (access.viewer !== 'notary') throw forbidden('Only the job’s notary decides on a person’s identity.');
    if (access.job.status === 'completed' || access.job.status === 'cancelled') throw conflict(`This job is ${access.job.status}.`);
    const now = new Date();
    const { check } = await settleStatus(tx, access.check, access.policy, now);
    if (check.status === 'expired') throw conflict('This identity check has expired; the person starts a new one.');
    const attemptsSoFar = await attemptsOf(tx, checkId);
    if (input.decision === 'confirmed' && stepsStatusOf(check, attemptsSoFar, access.policy, now) !== 'ready') {
      throw conflict('This person has not finished the identity step yet; you can confirm it once every step has passed.', { status: check.status });
    }
    const [saved] = await tx
      .update(identityChecks)
      .set({ reviewDecision: input.decision, reviewReason: input.reason, reviewedBy: access.userId, reviewedAt: now, status: input.decision })
      .where(eq(identityChecks.id, checkId))
      .returning();
    if (!saved) throw checkNotFound();
    await appendAuditEvent(txCtx, {
      jobId: access.job.id,
      action: 'identity.reviewed',
      data: { checkId, name: access.participant.name, decision: input.decision, reason: input.reason },
    });
    if (input.decision === 'confirmed') {
      await queueWebhookEvent(tx, access.job.companyId, 'identity.passed', {
        jobId: access.job.id,
        participantId: access.participant.id,
        checkId,
        passedAt: now.toISOString(),
      });
    }
    const attempts = await attemptsOf(tx, checkId);
    return toCheck(tx, access, saved, attempts, now);
  });
}

/** POST /api/identity/{checkId}/resume-link: a link that continues the step on a phone, emailed and returned (for a QR code). */
export async function createResumeLink(ctx: Ctx, checkId: string): Promise<ResumeLink> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await openForOwner(txCtx, checkId, null);
    const token = createToken();
    const expiresAt = new Date(Date.now() + resumeLinkLifetimeMs);
    await tx
      .update(identityChecks)
      .set({ resumeTokenHash: hashToken(token), resumeExpiresAt: expiresAt })
      .where(eq(identityChecks.id, checkId));
    const path = `/verify/resume/${token}`;
    await queueEmail(tx, {
      to: access.participant.email,
      kind: 'identity_resume',
      ...mailTemplates.identityResume.render({ name: access.participant.name, link: `${ctx.config.publicUrl}${path}` }),
    });
    await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.resume_link_created', data: { checkId, name: access.participant.name } });
    return { url: path, expiresAt: expiresAt.toISOString() };
  });
}

/** GET /api/identity/resume/{token}: the check a phone's link continues. */
export async function findCheckByResumeToken(ctx: Ctx, token: string): Promise<IdentityCheck> {
  const [row] = await ctx.db
    .select({ id: identityChecks.id })
    .from(identityChecks)
    .where(eq(identityChecks.resumeTokenHash, hashToken(token)))
    .limit(1);
  if (!row) throw new AppError(404, 'not_found', 'This link is not valid. Open a new one from your computer.');
  return getIdentityCheck(ctx, row.id, token);
}

/** GET /api/jobs/{id}/identity: each person who must prove identity, with their latest check (the notary and admins). */
export async function listJobIdentity(ctx: Ctx, jobId: string): Promise<JobIdentityList> {
  const access = await getJobAccess(ctx, jobId);
  if (!access.actors.includes('notary') && !access.actors.includes('admin')) throw forbidden('Only the job’s notary and administrators see identity evidence.');
  const policy = await policyOfJob(ctx.db, access.job);
  const people = (await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId)).orderBy(asc(jobParticipants.position))).filter((person) =>
    mustProveIdentity(person.role, policy),
  );
  const viewer = access.actors.includes('notary') ? 'notary' : 'admin';
  const now = new Date();
  const items: JobIdentityList['items'] = [];
  for (const person of people) {
    const [latest] = await ctx.db
      .select()
      .from(identityChecks)
      .where(eq(identityChecks.jobParticipantId, person.id))
      .orderBy(desc(identityChecks.createdAt))
      .limit(1);
    let check: IdentityCheck | null = null;
    if (latest) {
      const settled = await settleStatus(ctx.db, latest, policy, now);
      check = await toCheck(ctx.db, { viewer, policy, participant: person }, settled.check, settled.attempts, now);
    }
    items.push({
      participantId: person.id,
      name: person.name,
      role: person.role,
      bypass: person.isIdBypassed ? { method: person.idBypassMethod, reason: person.idBypassReason ?? '' } : null,
      check,
    });
  }
  return { items };
}

/** When a session ends, a person's step is redone before the next one, where the policy says so. */
export async function expireIdentityAfterSession(ctx: Ctx & { db: DbOrTx }, job: { id: string; notaryId: string | null }): Promise<void> {
  const policy = await policyOfJob(ctx.db, job);
  if (!policy.redoOnRejoin) return;
  const ended = await ctx.db
    .update(identityChecks)
    .set({ status: 'expired', expiredAt: new Date() })
    .where(and(eq(identityChecks.jobId, job.id), ne(identityChecks.status, 'expired')))
    .returning({ id: identityChecks.id, participantId: identityChecks.jobParticipantId });
  for (const row of ended) {
    const [person] = await ctx.db.select({ name: jobParticipants.name }).from(jobParticipants).where(eq(jobParticipants.id, row.participantId)).limit(1);
    await appendAuditEvent(ctx, { jobId: job.id, action: 'identity.expired', data: { checkId: row.id, name: person?.name ?? null, reason: 'session_ended' } });
  }
}

/**
 * The person on a participant's row changed (name or email): what proved the identity of the one
 * before proves nothing about the one now. Their checks end and a bypass is withdrawn.
 */
export async function forgetIdentityOfChangedPerson(ctx: Ctx & { db: DbOrTx }, jobId: string, participant: { id: string; name: string }): Promise<void> {
  const ended = await ctx.db
    .update(identityChecks)
    .set({ status: 'expired', expiredAt: new Date() })
    .where(and(eq(identityChecks.jobParticipantId, participant.id), ne(identityChecks.status, 'expired')))
    .returning({ id: identityChecks.id });
  for (const row of ended) {
    await appendAuditEvent(ctx, { jobId, action: 'identity.expired', data: { checkId: row.id, name: participant.name, reason: 'person_changed' } });
  }
  // A phone's resume link stood for the person who asked for it: it stops answering now, on every
  // check of the row (an ended one included), so it never shows whoever took their place.
  await ctx.db
    .update(identityChecks)
    .set({ resumeTokenHash: null, resumeExpiresAt: null })
    .where(and(eq(identityChecks.jobParticipantId, participant.id), isNotNull(identityChecks.resumeTokenHash)));
  await ctx.db.update(jobParticipants).set({ isIdBypassed: false, idBypassReason: null, idBypassMethod: null }).where(eq(jobParticipants.id, participant.id));
}
