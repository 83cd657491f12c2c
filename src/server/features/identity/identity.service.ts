import { and, asc, desc, eq, isNull, lte, ne } from 'drizzle-orm';
import {
  documentTypeNames,
  resumeLinkLifetimeMs,
  type DocumentType,
  type IdentityCheck,
  type IdentityCheckStatus,
  type IdentityPlace,
  type IdentityReviewInput,
  type IdentityStartInput,
  type JobIdentityList,
  type KbaAnswersInput,
  type KbaQuestions,
  type KbaResult,
  type ResumeLink,
} from '#shared/identity.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { identityChecks, identityKbaAttempts, jobParticipants, jobs, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict, forbidden } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { decryptSecret, encryptSecret } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getJobAccess, type JobAccess, type ParticipantRow } from '#server/features/jobs/job-access.ts';
import { createIdentityDataProvider, type IdentityDataProvider, type PersonData } from '#server/providers/identity/identity-data-provider.ts';
import { analyseCredential } from './credential-reader.ts';
import { checkNotFound, getCheckAccess, policyOfJob, requireOwner, type CheckAccess, type CheckRow } from './identity-access.ts';
import { listIdentityImageKinds, purgeIdentityImages, saveIdentityImage, sniffImageType, type IdentityImageKind } from './identity-images.ts';
import { chooseQuestionKeys, kbaStanding, scoreAttempt, type KbaAttemptRecord } from './kba-rules.ts';

type AttemptRow = typeof identityKbaAttempts.$inferSelect;

/** The name the development provider gives itself (development-provider.ts). */
const developmentProviderName = 'development';

/** A person may send new ID photographs this many times in one check. */
export const maxCredentialAttempts = 10;

/** One provider per configuration (an app's config object), built on first use. */
const providers = new WeakMap<Ctx['config'], IdentityDataProvider>();
function identityDataProvider(ctx: Pick<Ctx, 'config'>): IdentityDataProvider {
  const known = providers.get(ctx.config);
  if (known) return known;
  try {
    const created = createIdentityDataProvider({ NODE_ENV: ctx.config.nodeEnv, IDENTITY_DEV_PROVIDER: ctx.config.identity.developmentProvider ?? undefined });
    providers.set(ctx.config, created);
    return created;
  } catch (error) {
    throw new AppError(503, 'identity_provider_unavailable', error instanceof Error ? error.message : 'No identity-data provider is configured.');
  }
}

function readStatement(ctx: Pick<Ctx, 'secretsKey'>, check: CheckRow): PersonData {
  return JSON.parse(decryptSecret(ctx.secretsKey, check.statementSealed)) as PersonData;
}

function toRecord(row: AttemptRow): KbaAttemptRecord {
  return { attempt: row.attempt, startedAt: row.startedAt, deadlineAt: row.deadlineAt, submittedAt: row.submittedAt, passed: row.passed, questionKeys: row.questionKeys };
}

async function attemptsOf(db: DbOrTx, checkId: string): Promise<AttemptRow[]> {
  return db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.checkId, checkId)).orderBy(asc(identityKbaAttempts.attempt));
}

/** Does the participant's role take the identity step under this policy? */
export function mustProveIdentity(role: string, policy: IdentityPolicy): boolean {
  return role === 'signer' || (role === 'witness' && policy.witnessesProveIdentity);
}

/**
 * The status a check has now, from its steps: the notary's decision stands; a check past its time is
 * expired; questions failed as often as allowed lock it; every required step passed makes it ready.
 */
function statusOf(check: CheckRow, attempts: AttemptRow[], policy: IdentityPolicy, now: Date): IdentityCheckStatus {
  if (check.status === 'expired') return 'expired';
  if (check.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (check.reviewDecision === 'confirmed') return 'confirmed';
  if (check.reviewDecision === 'rejected') return 'rejected';
  return stepsStatusOf(check, attempts, policy, now);
}

/** Where the person's own steps stand, whatever the notary decided: in progress, locked or ready. */
function stepsStatusOf(check: CheckRow, attempts: AttemptRow[], policy: IdentityPolicy, now: Date): 'in_progress' | 'locked' | 'ready' {
  const standing = kbaStanding(policy.kba, attempts.map(toRecord), now);
  // A failed quiz with a retake left keeps the check open; no quiz possible any more locks it.
  if (standing.status === 'locked' || (standing.status === 'failed' && !standing.canStart)) return 'locked';
  const isCredentialDone = !policy.credentialAnalysisRequired || check.credentialStatus === 'passed';
  const isSelfieDone = !policy.selfieRequired || check.selfieReceivedAt !== null;
  return isCredentialDone && isSelfieDone && standing.status === 'passed' ? 'ready' : 'in_progress';
}

/** Saves a changed status (and when it became ready or expired); returns the row as saved. */
async function settleStatus(db: DbOrTx, check: CheckRow, policy: IdentityPolicy, now: Date): Promise<{ check: CheckRow; attempts: AttemptRow[] }> {
  const attempts = await attemptsOf(db, check.id);
  const status = statusOf(check, attempts, policy, now);
  if (status === check.status) return { check, attempts };
  const [saved] = await db
    .update(identityChecks)
    .set({ status, readyAt: status === 'ready' ? (check.readyAt ?? now) : check.readyAt, expiredAt: status === 'expired' ? now : check.expiredAt })
    .where(eq(identityChecks.id, check.id))
    .returning();
  return { check: saved ?? check, attempts };
}

function nextStepOf(check: CheckRow, status: IdentityCheckStatus, policy: IdentityPolicy, kbaStatus: string, lockedUntil: Date | null): string {
  if (status === 'expired') return 'This identity check has expired. Start a new one.';
  if (status === 'confirmed') return 'The notary confirmed your identity.';
  if (status === 'rejected') return 'The notary did not accept your identity proof. The notary will tell you what to do next.';
  if (status === 'locked') {
    return lockedUntil
      ? `You answered the questions wrongly too often. You can try again after ${lockedUntil.toISOString()}.`
      : 'You answered the questions wrongly too often. Ask the notary about another way to prove your identity.';
  }
  if (status === 'ready') return 'Your identity step is complete. The notary will look at it in the session.';
  if (policy.credentialAnalysisRequired && check.credentialStatus !== 'passed') {
    return check.credentialStatus === 'failed' ? 'Your ID could not be accepted. Take new photos of it.' : 'Take photos of your government photo ID.';
  }
  if (policy.selfieRequired && !check.selfieReceivedAt) return 'Take a photo of your face.';
  if (kbaStatus === 'in_progress') return 'Answer the questions before the time runs out.';
  return 'Answer a few questions about yourself.';
}

/** Only the development provider is built (decision 025): before a first quiz, it is the one that would ask. */
const isDevelopmentConfigured = true;

async function toCheck(db: DbOrTx, access: Pick<CheckAccess, 'viewer' | 'policy' | 'participant'>, check: CheckRow, attempts: AttemptRow[], now: Date): Promise<IdentityCheck> {
  const policy = access.policy;
  const status = statusOf(check, attempts, policy, now);
  const standing = kbaStanding(policy.kba, attempts.map(toRecord), now);
  const last = [...attempts].reverse().find((attempt) => attempt.submittedAt !== null || attempt.deadlineAt.getTime() <= now.getTime());
  const [reviewer] = check.reviewedBy ? await db.select({ name: users.name }).from(users).where(eq(users.id, check.reviewedBy)).limit(1) : [];
  const canSeeEvidence = access.viewer !== 'owner';
  const kinds = canSeeEvidence ? await listIdentityImageKinds(db, check.id) : [];
  return {
    checkId: check.id,
    jobId: check.jobId,
    participantId: check.jobParticipantId,
    personName: access.participant.name,
    policyCode: check.policyCode,
    status,
    createdAt: check.createdAt.toISOString(),
    expiresAt: check.expiresAt.toISOString(),
    credential: {
      status: check.credentialStatus,
      documentType: check.documentType,
      fields: check.credentialFields,
      checks: check.credentialChecks,
      attempts: check.credentialAttempts,
      required: policy.credentialAnalysisRequired,
    },
    selfie: { status: check.selfieReceivedAt ? 'received' : 'pending', required: policy.selfieRequired },
    kba: {
      status: standing.status,
      attempts: standing.attemptsUsed,
      attemptsAllowed: standing.attemptsAllowed,
      lastCorrect: last?.correct ?? (last ? 0 : null),
      lastTotal: last?.total ?? (last ? last.questionKeys.length : null),
      retakeUntil: standing.retakeUntil?.toISOString() ?? null,
      lockedUntil: standing.lockedUntil?.toISOString() ?? null,
      // Every quiz names its provider; before the first, the one configured would ask them.
      isDevelopmentProvider: attempts.length > 0 ? attempts.some((attempt) => attempt.provider === developmentProviderName) : isDevelopmentConfigured,
    },
    review: {
      decision: check.reviewDecision,
      reason: check.reviewReason,
      reviewerName: reviewer?.name ?? null,
      reviewedAt: check.reviewedAt?.toISOString() ?? null,
    },
    images: kinds.map((kind) => ({ kind, url: `/api/identity/${check.id}/images/${kind}` })),
    nextStep: nextStepOf(check, status, policy, standing.status, standing.lockedUntil),
  };
}

/** The current (not expired) check of a job participant, settled to now; null when there is none. */
async function findCurrentCheck(db: DbOrTx, participantId: string, policy: IdentityPolicy, now: Date): Promise<{ check: CheckRow; attempts: AttemptRow[] } | null> {
  const [row] = await db
    .select()
    .from(identityChecks)
    .where(and(eq(identityChecks.jobParticipantId, participantId), ne(identityChecks.status, 'expired')))
    .limit(1);
  if (!row) return null;
  const settled = await settleStatus(db, row, policy, now);
  return settled.check.status === 'expired' ? null : settled;
}

function requireParticipantWhoProves(access: JobAccess, policy: IdentityPolicy): ParticipantRow {
  const participant = access.participant;
  if (!participant) throw forbidden('Only the job’s signers (and witnesses where the state requires it) take the identity step.');
  if (!mustProveIdentity(participant.role, policy)) {
    throw forbidden(participant.role === 'observer' ? 'Observers do not take the identity step.' : 'Witnesses of this job do not take the identity step under its state’s rules.');
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
    await appendAuditEvent(txCtx, { jobId, action: 'identity.started', data: { checkId: check.id, participantId: participant.id, name: participant.name, policy: policy.code } });
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

/** The owner's check while it can still change: not expired, not decided by the notary, not locked. */
async function openForOwner(ctx: Ctx, checkId: string, resumeToken: string | null): Promise<CheckAccess & { attempts: AttemptRow[] }> {
  const access = await getCheckAccess(ctx, checkId, resumeToken, { forUpdate: true });
  requireOwner(access);
  if (access.job.status === 'completed' || access.job.status === 'cancelled') throw conflict(`This job is ${access.job.status}.`);
  const { check, attempts } = await settleStatus(ctx.db, access.check, access.policy, new Date());
  if (check.status === 'expired') throw conflict('This identity check has expired. Start a new one.');
  if (check.status === 'confirmed' || check.status === 'rejected') throw conflict('The notary has already decided on this identity check.');
  if (check.status === 'locked') throw conflict('You answered the questions wrongly too often; this check is locked.');
  return { ...access, check, attempts };
}

export interface CredentialUpload {
  documentType: DocumentType;
  front?: Buffer;
  back?: Buffer;
  passport?: Buffer;
}

const requiredImages: Record<DocumentType, IdentityImageKind[]> = { drivers_license: ['front', 'back'], id_card: ['front', 'back'], passport: ['passport'] };

/** POST /api/identity/{checkId}/credential: the ID's photographs, read and checked; they are kept encrypted. */
export async function submitCredential(ctx: Ctx, checkId: string, resumeToken: string | null, upload: CredentialUpload): Promise<IdentityCheck> {
  const kinds = requiredImages[upload.documentType];
  const images = kinds.map((kind) => ({ kind, content: upload[kind as 'front' | 'back' | 'passport'] }));
  const missing = images.filter((image) => !image.content || image.content.length === 0).map((image) => image.kind);
  if (missing.length > 0) {
    throw new AppError(400, 'missing_images', `Send the ${missing.join(' and ')} of your ${documentTypeNames[upload.documentType].toLowerCase()}.`, { missing });
  }
  const typed = images.map((image) => ({ ...image, content: image.content as Buffer, contentType: sniffImageType(image.content as Buffer) }));
  const notImage = typed.filter((image) => !image.contentType).map((image) => image.kind);
  if (notImage.length > 0) throw new AppError(415, 'not_an_image', `The ${notImage.join(' and ')} must be a photo (JPEG, PNG or WebP).`, { kinds: notImage });
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await openForOwner(txCtx, checkId, resumeToken);
    if (access.check.credentialStatus === 'passed') throw conflict('Your ID was already checked and accepted.');
    if (access.check.credentialAttempts >= maxCredentialAttempts) throw conflict(`You sent photos of your ID ${maxCredentialAttempts} times. Ask the notary about another way to prove your identity.`);
    const person = readStatement(ctx, access.check);
    const now = new Date();
    const reading = await analyseCredential(
      { documentType: upload.documentType, front: upload.front, back: upload.back, passport: upload.passport },
      { legalName: person.legalName, birthDate: person.birthDate },
      now,
    );
    for (const image of typed) await saveIdentityImage({ db: tx, storage: ctx.storage, secretsKey: ctx.secretsKey }, checkId, image.kind, image.content, image.contentType as string);
    const [saved] = await tx
      .update(identityChecks)
      .set({
        credentialStatus: reading.passed ? 'passed' : 'failed',
        documentType: upload.documentType,
        credentialFields: reading.fields,
        credentialChecks: reading.checks,
        documentNumberSealed: reading.documentNumber ? encryptSecret(ctx.secretsKey, reading.documentNumber) : null,
        credentialAttempts: access.check.credentialAttempts + 1,
      })
      .where(eq(identityChecks.id, checkId))
      .returning();
    if (!saved) throw checkNotFound();
    await appendAuditEvent(txCtx, {
      jobId: access.job.id,
      action: 'identity.credential_checked',
      data: {
        checkId,
        name: access.participant.name,
        documentType: upload.documentType,
        passed: reading.passed,
        failedChecks: reading.checks.filter((check) => !check.passed).map((check) => check.id),
      },
    });
    const settled = await settleStatus(tx, saved, access.policy, now);
    return toCheck(tx, access, settled.check, settled.attempts, now);
  });
}

/** POST /api/identity/{checkId}/selfie: a photograph of the person's face, for the notary to compare with the ID. */
export async function submitSelfie(ctx: Ctx, checkId: string, resumeToken: string | null, content: Buffer | null): Promise<IdentityCheck> {
  if (!content || content.length === 0) throw new AppError(400, 'missing_images', 'Send a photo of your face.');
  const contentType = sniffImageType(content);
  if (!contentType) throw new AppError(415, 'not_an_image', 'The selfie must be a photo (JPEG, PNG or WebP).');
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await openForOwner(txCtx, checkId, resumeToken);
    const now = new Date();
    await saveIdentityImage({ db: tx, storage: ctx.storage, secretsKey: ctx.secretsKey }, checkId, 'selfie', content, contentType);
    const [saved] = await tx.update(identityChecks).set({ selfieReceivedAt: now }).where(eq(identityChecks.id, checkId)).returning();
    if (!saved) throw checkNotFound();
    await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.selfie_received', data: { checkId, name: access.participant.name } });
    const settled = await settleStatus(tx, saved, access.policy, now);
    return toCheck(tx, access, settled.check, settled.attempts, now);
  });
}

function toQuestions(row: AttemptRow, policy: IdentityPolicy, notice: string | null): KbaQuestions {
  return {
    attemptId: row.id,
    attempt: row.attempt,
    deadlineAt: row.deadlineAt.toISOString(),
    timeLimitSeconds: policy.kba.timeLimitSeconds,
    questions: (row.quiz ?? []).map((question) => ({ id: question.key, prompt: question.prompt, choices: question.choices })),
    providerNotice: notice,
  };
}

/** Picks the quiz: enough new questions against the previous quiz and, for a later retake, the first one of the cycle. */
function pickQuestionKeys(policy: IdentityPolicy, pool: string[], previous: AttemptRow[]): string[] {
  const last = previous.at(-1)?.questionKeys ?? null;
  const first = previous[0]?.questionKeys ?? null;
  const neededAgainstFirst = first ? Math.ceil((policy.kba.minReplacedPercent * first.length) / 100 - 1e-9) : 0;
  for (let tries = 0; tries < 50; tries += 1) {
    const keys = chooseQuestionKeys(policy.kba, pool, last, Math.random);
    if (!first || keys.filter((key) => !first.includes(key)).length >= neededAgainstFirst) return keys;
  }
  throw new AppError(503, 'identity_provider_unavailable', 'Not enough different questions are available for another try. Ask the notary about another way to prove your identity.');
}

/**
 * GET /api/identity/{checkId}/kba/questions: starts a timed quiz (or shows the open one again, with
 * its deadline unchanged: a reload does not restart the clock). Refused when the policy allows no
 * quiz now (passed, locked, retake window over), with the reason.
 */
export async function startKbaQuiz(ctx: Ctx, checkId: string, resumeToken: string | null): Promise<KbaQuestions> {
  const dataProvider = identityDataProvider(ctx);
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await openForOwner(txCtx, checkId, resumeToken);
    const now = new Date();
    const notice = dataProvider.notice;
    const standing = kbaStanding(access.policy.kba, access.attempts.map(toRecord), now);
    const open = access.attempts.find((attempt) => attempt.attempt === standing.openAttempt?.attempt && attempt.submittedAt === null);
    if (open) return toQuestions(open, access.policy, notice);
    if (!standing.canStart) throw conflict(standing.reason ?? 'No new questions can be asked now.');
    const person = readStatement(ctx, access.check);
    const pool = await dataProvider.questionPool(person, access.policy.kba.choicesPerQuestion);
    // The retake rules count within the current cycle (attempts since the last lockout ended).
    const cycle = access.attempts.slice(Math.max(0, access.attempts.length - standing.attemptsUsed));
    const keys = pickQuestionKeys(access.policy, pool.map((question) => question.key), cycle);
    const quiz = keys.map((key) => pool.find((question) => question.key === key)).filter((question) => question !== undefined);
    const attemptNumber = (access.attempts.at(-1)?.attempt ?? 0) + 1;
    const [row] = await tx
      .insert(identityKbaAttempts)
      .values({
        checkId,
        attempt: attemptNumber,
        provider: dataProvider.name,
        questionKeys: keys,
        quiz,
        startedAt: now,
        deadlineAt: new Date(now.getTime() + access.policy.kba.timeLimitSeconds * 1000),
      })
      .returning();
    if (!row) throw new Error('quiz was not saved');
    await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.kba_started', data: { checkId, name: access.participant.name, attempt: attemptNumber, questions: keys.length, provider: dataProvider.name } });
    return toQuestions(row, access.policy, notice);
  });
}

/** POST /api/identity/{checkId}/kba/answers: scored by the server against its key; the answers are not kept. */
export async function answerKbaQuiz(ctx: Ctx, checkId: string, resumeToken: string | null, input: KbaAnswersInput): Promise<KbaResult> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    // Only an open check takes answers: not one ended, decided by the notary, or of a closed job.
    const access = await openForOwner(txCtx, checkId, resumeToken);
    const now = new Date();
    const [attempt] = await tx
      .select()
      .from(identityKbaAttempts)
      .where(and(eq(identityKbaAttempts.id, input.attemptId), eq(identityKbaAttempts.checkId, checkId)))
      .limit(1);
    if (!attempt) throw new AppError(404, 'not_found', 'Those questions are not part of this identity check.');
    if (attempt.submittedAt || !attempt.quiz) throw conflict('These questions were already answered. Ask for new ones if you may try again.');
    const key = attempt.quiz.map((question) => ({ questionKey: question.key, correctChoiceId: question.correctChoiceId }));
    const score = scoreAttempt(
      access.policy.kba,
      key,
      input.answers.map((answer) => ({ questionKey: answer.questionId, choiceId: answer.choiceId })),
      now,
      attempt.deadlineAt,
    );
    await tx
      .update(identityKbaAttempts)
      .set({ submittedAt: now, passed: score.passed, timedOut: score.timedOut, correct: score.correct, total: score.total, quiz: null })
      .where(eq(identityKbaAttempts.id, attempt.id));
    await appendAuditEvent(txCtx, {
      jobId: access.job.id,
      action: 'identity.kba_answered',
      data: { checkId, name: access.participant.name, attempt: attempt.attempt, correct: score.correct, total: score.total, passed: score.passed, timedOut: score.timedOut },
    });
    const settled = await settleStatus(tx, access.check, access.policy, now);
    if (settled.check.status === 'ready' && access.check.status !== 'ready') {
      await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.ready', data: { checkId, name: access.participant.name } });
    }
    return { ...score, check: await toCheck(tx, access, settled.check, settled.attempts, now) };
  });
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
    await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.reviewed', data: { checkId, name: access.participant.name, decision: input.decision, reason: input.reason } });
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
    await tx.update(identityChecks).set({ resumeTokenHash: hashToken(token), resumeExpiresAt: expiresAt }).where(eq(identityChecks.id, checkId));
    const path = `/verify/resume/${token}`;
    await queueEmail(tx, {
      to: access.participant.email,
      kind: 'identity_resume',
      subject: 'Continue your identity check on your phone',
      text: [
        `Hello ${toSingleLine(access.participant.name)},`,
        '',
        'Open this link on your phone within 30 minutes to take the photos of your ID and of your face there:',
        `${ctx.config.publicUrl}${path}`,
        '',
        'Your computer carries on by itself when you are done. If you did not ask for this link, ignore this message.',
      ].join('\n'),
    });
    await appendAuditEvent(txCtx, { jobId: access.job.id, action: 'identity.resume_link_created', data: { checkId, name: access.participant.name } });
    return { url: path, expiresAt: expiresAt.toISOString() };
  });
}

/** GET /api/identity/resume/{token}: the check a phone's link continues. */
export async function findCheckByResumeToken(ctx: Ctx, token: string): Promise<IdentityCheck> {
  const [row] = await ctx.db.select({ id: identityChecks.id }).from(identityChecks).where(eq(identityChecks.resumeTokenHash, hashToken(token))).limit(1);
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
    const [latest] = await ctx.db.select().from(identityChecks).where(eq(identityChecks.jobParticipantId, person.id)).orderBy(desc(identityChecks.createdAt)).limit(1);
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

/** The caller's identity step for can-enter: required by their role under the job's policy, satisfied when ready, confirmed or bypassed. */
export async function findIdentityPlace(db: DbOrTx, access: JobAccess, role: string | null): Promise<IdentityPlace> {
  const policy = await policyOfJob(db, access.job);
  const participant = access.participant;
  if (!participant || role === 'notary' || !role || !mustProveIdentity(role, policy)) {
    return { required: false, satisfied: true, checkId: null, status: null, policyCode: policy.code };
  }
  const current = await findCurrentCheck(db, participant.id, policy, new Date());
  const status = current?.check.status ?? null;
  const satisfied = participant.isIdBypassed || status === 'ready' || status === 'confirmed';
  return { required: true, satisfied, checkId: current?.check.id ?? null, status, policyCode: policy.code };
}

/** A sentence for can-enter when the step is not satisfied. */
export function identityReason(place: IdentityPlace): string | null {
  if (!place.required || place.satisfied) return null;
  if (place.status === 'rejected') return 'The notary did not accept your identity proof.';
  if (place.status === 'locked') return 'Your identity could not be proven with the questions; ask the notary about another way.';
  return 'Prove your identity first: photos of your ID, a photo of your face and a few questions.';
}

const documentWords: Record<string, string> = { drivers_license: 'driver’s licence', id_card: 'state ID card', passport: 'passport' };

/**
 * What the platform recorded about each person's identity on a job, for the sealed output and the
 * journal: proven when the notary confirmed a check whose steps passed, or identified the person by
 * a method the policy allows (personal knowledge, a credible witness). The method says what was
 * done, including that the questions came from the development provider.
 */
export async function findIdentityOutcomes(ctx: Pick<Ctx, 'db'>, jobId: string, at: Date = new Date()): Promise<{ participantId: string; isProven: boolean; method: string }[]> {
  const people = await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId));
  const [job] = await ctx.db.select({ notaryId: jobs.notaryId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  const outcomes: { participantId: string; isProven: boolean; method: string }[] = [];
  for (const person of people) {
    if (person.isIdBypassed && person.idBypassMethod) {
      const how = person.idBypassMethod === 'personal_knowledge' ? 'Personally known to the notary' : 'Identified through a credible witness';
      outcomes.push({ participantId: person.id, isProven: true, method: `${how} (the notary’s statement: ${person.idBypassReason ?? ''})` });
      continue;
    }
    const check = await findConfirmedCheck(ctx.db, person.id, job?.notaryId ?? null, at);
    if (!check) continue;
    const attempts = await attemptsOf(ctx.db, check.id);
    const passed = attempts.find((attempt) => attempt.passed);
    const [reviewer] = check.reviewedBy ? await ctx.db.select({ name: users.name }).from(users).where(eq(users.id, check.reviewedBy)).limit(1) : [];
    const parts = [
      check.credentialStatus === 'passed' ? `credential analysis of a ${documentWords[check.documentType ?? ''] ?? 'government ID'} passed` : null,
      passed ? `knowledge-based questions passed (${passed.correct} of ${passed.total}, attempt ${passed.attempt}${passed.provider === developmentProviderName ? ', development provider' : ''})` : null,
      check.selfieReceivedAt ? 'selfie compared with the ID photo' : null,
      `confirmed by ${reviewer?.name ?? 'the notary'} on ${check.reviewedAt?.toISOString() ?? ''}`,
    ].filter((part): part is string => part !== null);
    const sentence = parts.join('; ');
    outcomes.push({ participantId: person.id, isProven: true, method: sentence.charAt(0).toUpperCase() + sentence.slice(1) });
  }
  return outcomes;
}

/**
 * The check that proves a person's identity at `at`: confirmed by the job's notary (a notary who
 * took the job over confirms again), its steps passed, confirmed by then and not ended by then
 * (expired, reset, ended with a session, changed person).
 */
async function findConfirmedCheck(db: DbOrTx, participantId: string, notaryId: string | null, at: Date): Promise<CheckRow | null> {
  if (!notaryId) return null;
  const rows = await db
    .select()
    .from(identityChecks)
    .where(and(eq(identityChecks.jobParticipantId, participantId), eq(identityChecks.reviewDecision, 'confirmed'), eq(identityChecks.reviewedBy, notaryId)))
    .orderBy(desc(identityChecks.reviewedAt));
  for (const check of rows) {
    if (!check.reviewedAt || check.reviewedAt.getTime() > at.getTime()) continue;
    if (check.expiresAt.getTime() <= at.getTime()) continue;
    if (check.expiredAt && check.expiredAt.getTime() <= at.getTime()) continue;
    if (check.status === 'expired' && !check.expiredAt) continue;
    return check;
  }
  return null;
}

/**
 * complete-job refuses while a person who must prove identity has neither a check the notary
 * confirmed nor a bypass with a reason (issue 12).
 */
export async function findUnprovenPeople(ctx: Pick<Ctx, 'db'>, job: { id: string; notaryId: string | null }): Promise<string[]> {
  const policy = await policyOfJob(ctx.db, job);
  const people = (await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, job.id))).filter((person) => mustProveIdentity(person.role, policy));
  const outcomes = await findIdentityOutcomes(ctx, job.id);
  return people
    .filter((person) => !person.isIdBypassed && !outcomes.some((outcome) => outcome.participantId === person.id && outcome.isProven))
    .map((person) => person.name);
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
 * Deletes the evidence of every check whose retention ended by `now` (the policy's retentionYears
 * from its start): the ID photographs and selfie (blob and key), what the person stated, what was
 * read from the ID and its number. The outcome stays (status, decision, scores): the journal's.
 */
export async function purgeExpiredIdentityEvidence(deps: Pick<Ctx, 'db' | 'storage' | 'secretsKey'>, now: Date): Promise<number> {
  const due = await deps.db
    .select({ id: identityChecks.id, jobId: identityChecks.jobId, participantId: identityChecks.jobParticipantId })
    .from(identityChecks)
    .where(and(lte(identityChecks.purgeAfter, now), isNull(identityChecks.purgedAt)));
  for (const row of due) {
    await deps.db.transaction(async (tx) => {
      const images = await purgeIdentityImages({ db: tx, storage: deps.storage, secretsKey: deps.secretsKey }, row.id, now);
      await tx
        .update(identityChecks)
        .set({ statementSealed: '', credentialFields: null, documentNumberSealed: null, resumeTokenHash: null, resumeExpiresAt: null, purgedAt: now })
        .where(eq(identityChecks.id, row.id));
      await tx.update(identityKbaAttempts).set({ quiz: null }).where(eq(identityKbaAttempts.checkId, row.id));
      const [person] = await tx.select({ name: jobParticipants.name }).from(jobParticipants).where(eq(jobParticipants.id, row.participantId)).limit(1);
      await appendAuditEvent({ db: tx, user: null, ipAddress: 'identity-purge', userAgent: null }, { jobId: row.jobId, action: 'identity.purged', data: { checkId: row.id, name: person?.name ?? null, images } });
    });
  }
  return due.length;
}

/** Runs the purge now and then every `everyMs` (an hour by default) until stopped. */
export function startIdentityPurger(deps: Pick<Ctx, 'db' | 'storage' | 'secretsKey'> & { log: { error(object: unknown, message: string): void } }, everyMs = 3600_000): () => void {
  const run = () =>
    void purgeExpiredIdentityEvidence(deps, new Date()).catch((error: unknown) => deps.log.error({ err: error }, 'Purging identity evidence past its retention failed.'));
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}

export interface IdentityEvidence {
  documentType: string | null;
  issuer: string | null;
  expiryDate: string | null;
  /** The ID's number, only where the policy lets a journal hold it. */
  documentNumber: string | null;
  /** Why the number is left out, with the rule's citation, when it is. */
  documentNumberNote: string | null;
}

/** What a journal entry may say about the ID a person presented (the confirmed check), under the job's policy. */
export async function findIdentityEvidence(ctx: Pick<Ctx, 'db' | 'secretsKey'>, job: { notaryId: string | null }, participantId: string, at: Date = new Date()): Promise<IdentityEvidence | null> {
  const policy = await policyOfJob(ctx.db, job);
  const check = await findConfirmedCheck(ctx.db, participantId, job.notaryId, at);
  if (!check || check.credentialStatus !== 'passed') return null;
  const mayRecordNumber = !policy.journalForbidsIdNumber;
  return {
    documentType: check.documentType,
    issuer: check.credentialFields?.issuer ?? null,
    expiryDate: check.credentialFields?.expiryDate ?? null,
    documentNumber: mayRecordNumber && check.documentNumberSealed ? decryptSecret(ctx.secretsKey, check.documentNumberSealed) : null,
    documentNumberNote: mayRecordNumber ? (check.documentNumberSealed ? null : 'The number was deleted at the end of its retention.') : `Not recorded: ${policy.journalCitation ?? 'the state’s rules'} forbids the ID number in the journal.`,
  };
}

/**
 * The address the person stated in their confirmed identity step, for the journal draft (the notary
 * checks it against the ID). Null without a confirmed check or once the statement was purged.
 */
export async function findStatedAddress(ctx: Pick<Ctx, 'db' | 'secretsKey'>, job: { notaryId: string | null }, participantId: string, at: Date = new Date()): Promise<string | null> {
  const check = await findConfirmedCheck(ctx.db, participantId, job.notaryId, at);
  if (!check || !check.statementSealed) return null;
  const { address } = readStatement(ctx, check);
  return address ? `${address.street}, ${address.city}, ${address.state} ${address.postalCode}` : null;
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
  await ctx.db.update(jobParticipants).set({ isIdBypassed: false, idBypassReason: null, idBypassMethod: null }).where(eq(jobParticipants.id, participant.id));
}
