import { z } from 'zod';
import { formatRecordTime } from './dates.ts';

/**
 * The identity step (decision 025): credential analysis of a government photo ID, a
 * selfie, knowledge-based questions, then the notary's judgement in the session. The contract of
 * every identity call, shared by the server and the pages.
 */

export const documentTypes = ['drivers_license', 'id_card', 'passport'] as const;
export const documentTypeSchema = z.enum(documentTypes, { message: 'documentType is drivers_license, id_card or passport.' });
export type DocumentType = z.infer<typeof documentTypeSchema>;

export const documentTypeNames: Record<DocumentType, string> = {
  drivers_license: 'Driver’s licence',
  id_card: 'State ID card',
  passport: 'Passport',
};

/** Largest ID photograph or selfie accepted, in bytes. */
export const maxIdentityImageBytes = 8 * 1024 * 1024;
export const identityImageTypes = ['image/jpeg', 'image/png', 'image/webp'] as const;

const isoDate = (name: string) =>
  z.string({ message: `${name} is required.` }).regex(/^\d{4}-\d{2}-\d{2}$/, { message: `${name} must be a date as YYYY-MM-DD.` });

/** What the person states about themselves when the step starts: matched against the ID, and the source of the development questions. */
export const identityStartInputSchema = z.object({
  legalName: z.string({ message: 'Enter your full legal name.' }).trim().min(2, { message: 'Enter your full legal name.' }).max(200),
  birthDate: isoDate('birthDate'),
  address: z.object({
    street: z.string({ message: 'Enter your street address.' }).trim().min(3, { message: 'Enter your street address.' }).max(200),
    city: z.string({ message: 'Enter your city.' }).trim().min(2, { message: 'Enter your city.' }).max(100),
    state: z
      .string({ message: 'Enter your state.' })
      .trim()
      .regex(/^[A-Za-z]{2}$/, { message: 'Enter your state as two letters, for example TX.' }),
    postalCode: z
      .string({ message: 'Enter your ZIP code.' })
      .trim()
      .regex(/^\d{5}(-\d{4})?$/, { message: 'Enter a 5-digit ZIP code.' }),
  }),
});
export type IdentityStartInput = z.infer<typeof identityStartInputSchema>;

/** One check made on an ID, with its result in a sentence. */
export const credentialCheckSchema = z.object({
  id: z.enum(['readable', 'format', 'check_digits', 'not_expired', 'name_matches', 'birth_date_matches', 'front_matches']),
  passed: z.boolean(),
  sentence: z.string(),
});
export type CredentialCheck = z.infer<typeof credentialCheckSchema>;

/** What was read from the ID. The document number is shown only as its last four characters. */
export const credentialFieldsSchema = z.object({
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  birthDate: z.string().nullable(),
  expiryDate: z.string().nullable(),
  issuer: z.string().nullable(),
  address: z.string().nullable(),
  documentNumberLast4: z.string().nullable(),
});
export type CredentialFields = z.infer<typeof credentialFieldsSchema>;

export const stepStatuses = ['pending', 'passed', 'failed'] as const;
export const kbaStatuses = ['pending', 'in_progress', 'passed', 'failed', 'locked'] as const;
/**
 * The check as a whole: in_progress (steps left), ready (every step passed; the notary's review is
 * next), confirmed or rejected by the notary, locked (questions failed as often as the policy
 * allows), expired (a new day or a rejoin: a new step begins).
 */
export const identityCheckStatuses = ['in_progress', 'ready', 'confirmed', 'rejected', 'locked', 'expired'] as const;
export type IdentityCheckStatus = (typeof identityCheckStatuses)[number];

/**
 * A participant's identity as the job page shows it: not needed for their role, not
 * started, a check's own status, or waived (the notary identified them another way, or let them
 * skip the step). On a closed job, the last check's outcome.
 */
export const participantIdentityStates = ['not_required', 'not_started', 'waived', ...identityCheckStatuses] as const;
export type ParticipantIdentityState = (typeof participantIdentityStates)[number];

export const identityCheckSchema = z.object({
  checkId: z.string(),
  jobId: z.string(),
  participantId: z.string(),
  personName: z.string(),
  policyCode: z.string(),
  status: z.enum(identityCheckStatuses),
  createdAt: z.string(),
  expiresAt: z.string(),
  credential: z.object({
    status: z.enum(stepStatuses),
    documentType: documentTypeSchema.nullable(),
    fields: credentialFieldsSchema.nullable(),
    checks: z.array(credentialCheckSchema),
    attempts: z.number(),
    required: z.boolean(),
  }),
  selfie: z.object({ status: z.enum(['pending', 'received']), required: z.boolean() }),
  kba: z.object({
    status: z.enum(kbaStatuses),
    attempts: z.number(),
    attemptsAllowed: z.number(),
    lastCorrect: z.number().nullable(),
    lastTotal: z.number().nullable(),
    /** A retake must start before this time. */
    retakeUntil: z.string().nullable(),
    lockedUntil: z.string().nullable(),
    /** Questions come from the development provider: they prove nothing about identity. */
    isDevelopmentProvider: z.boolean(),
  }),
  review: z.object({
    decision: z.enum(['confirmed', 'rejected']).nullable(),
    reason: z.string().nullable(),
    reviewerName: z.string().nullable(),
    reviewedAt: z.string().nullable(),
  }),
  /** The images the viewer may see (the job's notary and admins): relative URLs by kind. */
  images: z.array(z.object({ kind: z.enum(['front', 'back', 'passport', 'selfie']), url: z.string() })),
  /** What to do next, in a sentence, for the person whose check it is. */
  nextStep: z.string(),
});
export type IdentityCheck = z.infer<typeof identityCheckSchema>;

/** The part of the identity step to show the person next. */
export type IdentityStage = 'details' | 'credential' | 'selfie' | 'questions' | 'done' | 'locked' | 'rejected';

/** What decides the next part of the step: the check's status and each part's, as a check carries them. */
export interface IdentityProgress {
  status: IdentityCheckStatus;
  credential: { required: boolean; status: (typeof stepStatuses)[number] };
  selfie: { required: boolean; status: 'pending' | 'received' };
  kba: { status: (typeof kbaStatuses)[number]; lockedUntil: string | null };
}

/**
 * What the person does next, read from their check (null: no check yet): the one decision behind
 * the server's next-step sentence and the part of the step the pages show. A required part not
 * passed comes first, in the order ID photos, selfie, questions.
 */
export function getIdentityStage(check: IdentityProgress | null): IdentityStage {
  if (!check || check.status === 'expired') return 'details';
  if (check.status === 'ready' || check.status === 'confirmed') return 'done';
  if (check.status === 'rejected') return 'rejected';
  if (check.status === 'locked' || check.kba.status === 'locked') return 'locked';
  if (check.credential.required && check.credential.status !== 'passed') return 'credential';
  if (check.selfie.required && check.selfie.status !== 'received') return 'selfie';
  if (check.kba.status !== 'passed') return 'questions';
  return 'done';
}

/** The sentences of describeNextStep that the pages show on their own too. */
export const nextStepSentences = {
  expired: 'This identity check has expired. Start a new one.',
  confirmed: 'The notary confirmed your identity.',
  ready: 'Your identity step is complete. The notary will look at it in the session.',
} as const;

/** What to do next, in a sentence, for the person whose check it is (IdentityCheck.nextStep). */
export function describeNextStep(check: IdentityProgress): string {
  const stage = getIdentityStage(check);
  switch (stage) {
    case 'details':
      return nextStepSentences.expired;
    case 'done':
      return check.status === 'confirmed' ? nextStepSentences.confirmed : nextStepSentences.ready;
    case 'rejected':
      return 'The notary did not accept your identity proof. The notary will tell you what to do next.';
    case 'locked':
      return check.kba.lockedUntil
        ? `You answered the questions wrongly too often. You can try again after ${formatRecordTime(new Date(check.kba.lockedUntil))}.`
        : 'You answered the questions wrongly too often. Ask the notary about another way to prove your identity.';
    case 'credential':
      return check.credential.status === 'failed' ? 'Your ID could not be accepted. Take new photos of it.' : 'Take photos of your government photo ID.';
    case 'selfie':
      return 'Take a photo of your face.';
    case 'questions':
      return check.kba.status === 'in_progress' ? 'Answer the questions before the time runs out.' : 'Answer a few questions about yourself.';
  }
}

export const kbaQuestionsSchema = z.object({
  attemptId: z.string(),
  attempt: z.number(),
  deadlineAt: z.string(),
  timeLimitSeconds: z.number(),
  questions: z.array(z.object({ id: z.string(), prompt: z.string(), choices: z.array(z.object({ id: z.string(), label: z.string() })) })),
  providerNotice: z.string().nullable(),
});
export type KbaQuestions = z.infer<typeof kbaQuestionsSchema>;

export const kbaAnswersInputSchema = z.object({
  attemptId: z.uuid({ message: 'attemptId must be the id of the questions shown.' }),
  answers: z
    .array(z.object({ questionId: z.string().min(1).max(100), choiceId: z.string().min(1).max(100) }), { message: 'Send an answer for every question.' })
    .max(50),
});
export type KbaAnswersInput = z.infer<typeof kbaAnswersInputSchema>;

export const kbaResultSchema = z.object({ passed: z.boolean(), correct: z.number(), total: z.number(), timedOut: z.boolean(), check: identityCheckSchema });
export type KbaResult = z.infer<typeof kbaResultSchema>;

export const identityReviewInputSchema = z.object({
  decision: z.enum(['confirmed', 'rejected'], { message: 'decision is confirmed or rejected.' }),
  reason: z.string({ message: 'Give a reason.' }).trim().min(3, { message: 'Give a reason of a few words.' }).max(500),
});
export type IdentityReviewInput = z.infer<typeof identityReviewInputSchema>;

export const bypassMethods = ['personal_knowledge', 'credible_witness'] as const;
export const bypassMethodNames: Record<(typeof bypassMethods)[number], string> = {
  personal_knowledge: 'The notary knows the person personally',
  credible_witness: 'A credible witness vouched for the person',
};

export const resumeLinkSchema = z.object({ url: z.string(), expiresAt: z.string() });
export type ResumeLink = z.infer<typeof resumeLinkSchema>;
/** A resume link lasts this long. */
export const resumeLinkLifetimeMs = 30 * 60_000;
/** The header a phone opened from a resume link sends instead of a session. */
export const resumeTokenHeader = 'x-identity-resume';

/** GET /api/jobs/{id}/identity: the latest check of each person of the job who must prove identity (the notary and admins). */
export const jobIdentityListSchema = z.object({
  items: z.array(
    z.object({
      participantId: z.string(),
      name: z.string(),
      role: z.string(),
      /** Bypassed by the notary or an admin, with the reason. */
      bypass: z.object({ method: z.string().nullable(), reason: z.string() }).nullable(),
      check: identityCheckSchema.nullable(),
    }),
  ),
});
export type JobIdentityList = z.infer<typeof jobIdentityListSchema>;

/** The caller's identity step as the pre-join screen needs it (part of can-enter). */
export const identityPlaceSchema = z.object({
  /** This person must pass the step before entering (signers, and witnesses where the policy says). */
  required: z.boolean(),
  /** Passed, or bypassed by the notary: nothing left to do before entering. */
  satisfied: z.boolean(),
  checkId: z.string().nullable(),
  status: z.enum(identityCheckStatuses).nullable(),
  policyCode: z.string(),
});
export type IdentityPlace = z.infer<typeof identityPlaceSchema>;

export const identityPoliciesResponseSchema = z.object({ items: z.array(z.record(z.string(), z.unknown())), defaultCode: z.string() });

/** What a journal entry may say about the ID presented (the confirmed check), the number only where the state allows it. */
export const identityEvidenceSchema = z.object({
  documentType: z.string().nullable(),
  issuer: z.string().nullable(),
  expiryDate: z.string().nullable(),
  documentNumber: z.string().nullable(),
  documentNumberNote: z.string().nullable(),
});

/** What an administrator's identity reset ended: the person's checks, and their saved signatures where asked. */
export const identityResetResultSchema = z.object({ ok: z.literal(true), checksEnded: z.number(), signaturesCleared: z.number() });
export type IdentityResetResult = z.infer<typeof identityResetResultSchema>;
