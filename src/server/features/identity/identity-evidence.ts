import { and, desc, eq } from 'drizzle-orm';
import type { IdentityPlace, ParticipantIdentityState } from '#shared/identity.ts';
import { formatCalendarDay, formatRecordTime } from '#shared/dates.ts';
import { isBypassAllowed } from '#shared/identity-policies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { identityChecks, jobParticipants, jobs, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { decryptSecret } from '#server/lib/secrets.ts';
import type { JobAccess, JobRow, ParticipantRow } from '#server/features/jobs/job-access.ts';
import { attemptsOf, developmentProviderName, findCurrentCheck, readStatement } from './check-rows.ts';
import { mustProveIdentity, policyOfJob, type CheckRow } from './identity-access.ts';

/**
 * What the identity step proved, read for others: can-enter and the job page (where each person
 * stands), complete-job (who is unproven), the sealed output and the journal (how each person was
 * identified, the ID presented, the address stated). Reads only; nothing here changes a check.
 */

/** The caller's identity step for can-enter: required by their role under the job's policy, satisfied when ready, confirmed or bypassed by a method the policy allows. */
export async function findIdentityPlace(db: DbOrTx, access: JobAccess, role: string | null): Promise<IdentityPlace> {
  const policy = await policyOfJob(db, access.job);
  const participant = access.participant;
  if (!participant || role === 'notary' || !role || !mustProveIdentity(role, policy)) {
    return { required: false, satisfied: true, checkId: null, status: null, policyCode: policy.code };
  }
  const current = await findCurrentCheck(db, participant.id, policy, new Date());
  const status = current?.check.status ?? null;
  const satisfied = isBypassAllowed(participant, policy) || status === 'ready' || status === 'confirmed';
  return { required: true, satisfied, checkId: current?.check.id ?? null, status, policyCode: policy.code };
}

/**
 * Each participant's identity now, for the job page: while the job is open, the
 * current check's status (or expired, or not started); on a closed job, the last check's outcome.
 * A bypass reads as waived; a role the state does not ask to prove reads as not required.
 */
export async function findIdentityStates(
  db: DbOrTx,
  job: Pick<JobRow, 'notaryId' | 'status'>,
  participants: ParticipantRow[],
  now = new Date(),
): Promise<Map<string, ParticipantIdentityState>> {
  const policy = await policyOfJob(db, job);
  const isClosed = job.status === 'completed' || job.status === 'cancelled';
  const states = new Map<string, ParticipantIdentityState>();
  for (const participant of participants) {
    if (!mustProveIdentity(participant.role, policy)) {
      states.set(participant.id, 'not_required');
      continue;
    }
    if (isBypassAllowed(participant, policy)) {
      states.set(participant.id, 'waived');
      continue;
    }
    const current = isClosed ? null : await findCurrentCheck(db, participant.id, policy, now);
    if (current) {
      states.set(participant.id, current.check.status);
      continue;
    }
    const [latest] = await db
      .select({ status: identityChecks.status, reviewDecision: identityChecks.reviewDecision })
      .from(identityChecks)
      .where(eq(identityChecks.jobParticipantId, participant.id))
      .orderBy(desc(identityChecks.createdAt))
      .limit(1);
    states.set(participant.id, !latest ? 'not_started' : isClosed ? (latest.reviewDecision ?? latest.status) : 'expired');
  }
  return states;
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
 * What a passed credential analysis examined, from the checks it recorded (a check not recorded is
 * not claimed), and what it did not examine.
 */
function describeCredentialAnalysis(check: CheckRow): string {
  const isPassport = check.documentType === 'passport';
  const passed = new Set(check.credentialChecks.filter((item) => item.passed).map((item) => item.id));
  const issuer = check.credentialFields?.issuer;
  const expiry = check.credentialFields?.expiryDate;
  const examined = [
    passed.has('readable') ? (isPassport ? 'the machine-readable lines on the photo page were read' : 'the barcode on the back was read') : null,
    passed.has('format')
      ? `${isPassport ? 'they are in the passport format' : 'it is in the AAMVA format'}${issuer ? ` and ${isPassport ? 'were' : 'was'} issued by ${issuer}` : ''}`
      : null,
    passed.has('check_digits') ? 'every check digit is right' : null,
    passed.has('front_matches') ? 'the name and date of birth printed on the front match the barcode' : null,
    passed.has('not_expired') ? (expiry ? `the ID is valid until ${formatCalendarDay(expiry, { locale: 'en-US' })}` : 'the ID had not expired') : null,
    passed.has('name_matches') && passed.has('birth_date_matches')
      ? 'the name and date of birth on the ID match those the person gave'
      : passed.has('name_matches')
        ? 'the name on the ID matches the one the person gave'
        : passed.has('birth_date_matches')
          ? 'the date of birth on the ID matches the one the person gave'
          : null,
  ].filter((part): part is string => part !== null);
  const notExamined = isPassport
    ? 'the printed page against its machine-readable lines, the passport’s chip, its security features such as holograms, microprint or ultraviolet ink, and the issuing authority’s records'
    : 'the ID’s security features such as holograms, microprint or ultraviolet ink, and the issuing authority’s records';
  const document = documentWords[check.documentType ?? ''] ?? 'government ID';
  return `credential analysis of a ${document} passed (${examined.length > 0 ? `examined: ${examined.join('; ')}. ` : ''}Not examined: ${notExamined})`;
}

/**
 * What the platform recorded about each person's identity on a job, for the sealed output and the
 * journal: proven when the notary confirmed a check whose steps passed, or identified the person by
 * a method the policy allows (personal knowledge, a credible witness). The method says what was
 * done, including that the questions came from the development provider.
 */
export async function findIdentityOutcomes(
  ctx: Pick<Ctx, 'db'>,
  jobId: string,
  at: Date = new Date(),
): Promise<{ participantId: string; isProven: boolean; method: string }[]> {
  const people = await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, jobId));
  const [job] = await ctx.db.select({ notaryId: jobs.notaryId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  const policy = await policyOfJob(ctx.db, { notaryId: job?.notaryId ?? null });
  const outcomes: { participantId: string; isProven: boolean; method: string }[] = [];
  for (const person of people) {
    if (isBypassAllowed(person, policy) && person.idBypassMethod) {
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
      check.credentialStatus === 'passed' ? describeCredentialAnalysis(check) : null,
      passed
        ? `knowledge-based questions passed (${passed.correct} of ${passed.total}, attempt ${passed.attempt}${passed.provider === developmentProviderName ? ', development provider' : ''})`
        : null,
      check.selfieReceivedAt ? 'selfie compared with the ID photo' : null,
      `confirmed by ${reviewer?.name ?? 'the notary'}${check.reviewedAt ? ` on ${formatRecordTime(check.reviewedAt)}` : ''}`,
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
 * confirmed nor a bypass by a method the job's policy allows.
 */
export async function findUnprovenPeople(ctx: Pick<Ctx, 'db'>, job: { id: string; notaryId: string | null }): Promise<string[]> {
  const policy = await policyOfJob(ctx.db, job);
  const people = (await ctx.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, job.id))).filter((person) =>
    mustProveIdentity(person.role, policy),
  );
  const outcomes = await findIdentityOutcomes(ctx, job.id);
  return people
    .filter((person) => !isBypassAllowed(person, policy) && !outcomes.some((outcome) => outcome.participantId === person.id && outcome.isProven))
    .map((person) => person.name);
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
export async function findIdentityEvidence(
  ctx: Pick<Ctx, 'db' | 'secretsKey'>,
  job: { notaryId: string | null },
  participantId: string,
  at: Date = new Date(),
): Promise<IdentityEvidence | null> {
  const policy = await policyOfJob(ctx.db, job);
  const check = await findConfirmedCheck(ctx.db, participantId, job.notaryId, at);
  if (!check || check.credentialStatus !== 'passed') return null;
  const mayRecordNumber = !policy.journalForbidsIdNumber;
  return {
    documentType: check.documentType,
    issuer: check.credentialFields?.issuer ?? null,
    expiryDate: check.credentialFields?.expiryDate ?? null,
    documentNumber: mayRecordNumber && check.documentNumberSealed ? decryptSecret(ctx.secretsKey, check.documentNumberSealed) : null,
    documentNumberNote: mayRecordNumber
      ? check.documentNumberSealed
        ? null
        : 'The number was deleted at the end of its retention.'
      : `Not recorded: ${policy.journalCitation ?? 'the state’s rules'} forbids the ID number in the journal.`,
  };
}

/**
 * The address the person stated in their confirmed identity step, for the journal draft (the notary
 * checks it against the ID). Null without a confirmed check or once the statement was purged.
 */
export async function findStatedAddress(
  ctx: Pick<Ctx, 'db' | 'secretsKey'>,
  job: { notaryId: string | null },
  participantId: string,
  at: Date = new Date(),
): Promise<string | null> {
  const check = await findConfirmedCheck(ctx.db, participantId, job.notaryId, at);
  if (!check || !check.statementSealed) return null;
  const { address } = readStatement(ctx, check);
  return address ? `${address.street}, ${address.city}, ${address.state} ${address.postalCode}` : null;
}
