import { and, asc, eq, ne } from 'drizzle-orm';
import { describeNextStep, type IdentityCheck, type IdentityCheckStatus } from '#shared/identity.ts';
import type { IdentityPolicy } from '#shared/identity-policies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { identityChecks, identityKbaAttempts, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { conflict } from '#server/lib/errors.ts';
import { decryptSecret } from '#server/lib/secrets.ts';
import type { PersonData } from '#server/providers/identity/identity-data-provider.ts';
import { getCheckAccess, requireOwner, type CheckAccess, type CheckRow } from './identity-access.ts';
import { listIdentityImageKinds } from './identity-images.ts';
import { kbaStanding, type KbaAttemptRecord } from './kba/kba-rules.ts';

/**
 * What the identity services share about one check's rows: its quiz attempts, its status settled
 * to now, the check as its viewer sees it, and the owner's check while it can still change.
 */

export type AttemptRow = typeof identityKbaAttempts.$inferSelect;

/** The name the development provider gives itself (development-provider.ts). */
export const developmentProviderName = 'development';

export function readStatement(ctx: Pick<Ctx, 'secretsKey'>, check: CheckRow): PersonData {
  return JSON.parse(decryptSecret(ctx.secretsKey, check.statementSealed)) as PersonData;
}

export function toRecord(row: AttemptRow): KbaAttemptRecord {
  return {
    attempt: row.attempt,
    startedAt: row.startedAt,
    deadlineAt: row.deadlineAt,
    submittedAt: row.submittedAt,
    passed: row.passed,
    questionKeys: row.questionKeys,
  };
}

export async function attemptsOf(db: DbOrTx, checkId: string): Promise<AttemptRow[]> {
  return db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.checkId, checkId)).orderBy(asc(identityKbaAttempts.attempt));
}

/**
 * The status a check has now, from its steps: the notary's decision stands; a check past its time is
 * expired; questions failed as often as allowed lock it; every required step passed makes it ready.
 */
export function statusOf(check: CheckRow, attempts: AttemptRow[], policy: IdentityPolicy, now: Date): IdentityCheckStatus {
  if (check.status === 'expired') return 'expired';
  if (check.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (check.reviewDecision === 'confirmed') return 'confirmed';
  if (check.reviewDecision === 'rejected') return 'rejected';
  return stepsStatusOf(check, attempts, policy, now);
}

/** Where the person's own steps stand, whatever the notary decided: in progress, locked or ready. */
export function stepsStatusOf(check: CheckRow, attempts: AttemptRow[], policy: IdentityPolicy, now: Date): 'in_progress' | 'locked' | 'ready' {
  const standing = kbaStanding(policy.kba, attempts.map(toRecord), now);
  // A failed quiz with a retake left keeps the check open; no quiz possible any more locks it.
  if (standing.status === 'locked' || (standing.status === 'failed' && !standing.canStart)) return 'locked';
  const isCredentialDone = !policy.credentialAnalysisRequired || check.credentialStatus === 'passed';
  const isSelfieDone = !policy.selfieRequired || check.selfieReceivedAt !== null;
  return isCredentialDone && isSelfieDone && standing.status === 'passed' ? 'ready' : 'in_progress';
}

/** Saves a changed status (and when it became ready or expired); returns the row as saved. */
export async function settleStatus(db: DbOrTx, check: CheckRow, policy: IdentityPolicy, now: Date): Promise<{ check: CheckRow; attempts: AttemptRow[] }> {
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

/** Only the development provider is built (decision 025): before a first quiz, it is the one that would ask. */
const isDevelopmentConfigured = true;

export async function toCheck(
  db: DbOrTx,
  access: Pick<CheckAccess, 'viewer' | 'policy' | 'participant'>,
  check: CheckRow,
  attempts: AttemptRow[],
  now: Date,
): Promise<IdentityCheck> {
  const policy = access.policy;
  const status = statusOf(check, attempts, policy, now);
  const standing = kbaStanding(policy.kba, attempts.map(toRecord), now);
  const last = [...attempts].reverse().find((attempt) => attempt.submittedAt !== null || attempt.deadlineAt.getTime() <= now.getTime());
  const [reviewer] = check.reviewedBy ? await db.select({ name: users.name }).from(users).where(eq(users.id, check.reviewedBy)).limit(1) : [];
  const canSeeEvidence = access.viewer !== 'owner';
  const kinds = canSeeEvidence ? await listIdentityImageKinds(db, check.id) : [];
  const view: Omit<IdentityCheck, 'nextStep'> = {
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
  };
  return { ...view, nextStep: describeNextStep(view) };
}

/** The current (not expired) check of a job participant, settled to now; null when there is none. */
export async function findCurrentCheck(
  db: DbOrTx,
  participantId: string,
  policy: IdentityPolicy,
  now: Date,
): Promise<{ check: CheckRow; attempts: AttemptRow[] } | null> {
  const [row] = await db
    .select()
    .from(identityChecks)
    .where(and(eq(identityChecks.jobParticipantId, participantId), ne(identityChecks.status, 'expired')))
    .limit(1);
  if (!row) return null;
  const settled = await settleStatus(db, row, policy, now);
  return settled.check.status === 'expired' ? null : settled;
}

/** Refuses a change to a check that is expired, decided by the notary or locked, with the reason. */
export function requireOpen(check: CheckRow, attempts: AttemptRow[], policy: IdentityPolicy, now: Date): void {
  const status = statusOf(check, attempts, policy, now);
  if (status === 'expired') throw conflict('This identity check has expired. Start a new one.');
  if (status === 'confirmed' || status === 'rejected') throw conflict('The notary has already decided on this identity check.');
  if (status === 'locked') throw conflict('You answered the questions wrongly too often; this check is locked.');
}

/** The owner's check while it can still change: not expired, not decided by the notary, not locked. */
export async function openForOwner(ctx: Ctx, checkId: string, resumeToken: string | null): Promise<CheckAccess & { attempts: AttemptRow[] }> {
  const access = await getCheckAccess(ctx, checkId, resumeToken, { forUpdate: true });
  requireOwner(access);
  if (access.job.status === 'completed' || access.job.status === 'cancelled') throw conflict(`This job is ${access.job.status}.`);
  const { check, attempts } = await settleStatus(ctx.db, access.check, access.policy, new Date());
  requireOpen(check, attempts, access.policy, new Date());
  return { ...access, check, attempts };
}
