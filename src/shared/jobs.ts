import { z } from 'zod';
import { documentTagSchema } from './documents.ts';
import { plainTextSchema, searchTextSchema, singleLineTextSchema } from './text.ts';
import { sessionPlaceSchema } from './video-signaling.ts';
import { bypassMethods, identityPlaceSchema, participantIdentityStates } from './identity.ts';

/** Job statuses and the only moves between them (the state machine every route obeys). */
export const jobStatuses = ['draft', 'ready', 'scheduled', 'in_session', 'completed', 'cancelled'] as const;
export const jobStatusSchema = z.enum(jobStatuses);
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const jobTransitions: Record<JobStatus, readonly JobStatus[]> = {
  draft: ['ready', 'cancelled'],
  ready: ['draft', 'scheduled', 'in_session', 'cancelled'],
  scheduled: ['ready', 'in_session', 'cancelled'],
  in_session: ['ready', 'completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

export const jobStatusLabels: Record<JobStatus, string> = {
  draft: 'Draft',
  ready: 'Ready',
  scheduled: 'Scheduled',
  in_session: 'In session',
  completed: 'Completed',
  cancelled: 'Cancelled',
};

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return jobTransitions[from].includes(to);
}

/**
 * Who acts on a job's status. One person may be several (a notary who created the job is its
 * preparer and its notary). preparer: the job's creator, whatever their role, or the staff (title,
 * title_agent) of its title company; notary: the notary assigned to the job; admin: an
 * administrator. Signers, witnesses, observers, billing and other notaries move nothing.
 */
export const jobActors = ['admin', 'preparer', 'notary'] as const;
export type JobActor = (typeof jobActors)[number];

const beforeSession: readonly JobActor[] = ['admin', 'preparer', 'notary'];
const owners: readonly JobActor[] = ['admin', 'preparer'];
const theNotary: readonly JobActor[] = ['notary'];

/**
 * Who may make each move of `jobTransitions` (the same moves, no others). Before a session the
 * people preparing it move it (the notary too, who may prepare and schedule their own sessions);
 * only the owners cancel it then. Only the job's notary starts and pauses a session; the notary or
 * an administrator (to rescue a stuck job) cancels one. `completed` is reached only through
 * POST /complete-job, when the notary seals the documents, never by PATCH.
 */
export const jobTransitionActors: Record<JobStatus, Partial<Record<JobStatus, readonly JobActor[]>>> = {
  draft: { ready: beforeSession, cancelled: owners },
  ready: { draft: beforeSession, scheduled: beforeSession, in_session: theNotary, cancelled: owners },
  scheduled: { ready: beforeSession, in_session: theNotary, cancelled: owners },
  in_session: { ready: theNotary, completed: theNotary, cancelled: ['notary', 'admin'] },
  completed: {},
  cancelled: {},
};

/** Moves made only by a route of their own, never by PATCH /api/jobs/:id. */
const movesByOwnRoute: Partial<Record<JobStatus, string>> = {
  completed: 'A job is completed only by sealing it: the notary uses “Seal and complete the job” in the signing workspace.',
};

const actorNames: Record<JobActor, string> = { admin: 'an administrator', preparer: 'the job’s creator or its title company', notary: 'the job’s notary' };

function describeMove(from: JobStatus, to: JobStatus): string {
  if (to === 'in_session') return 'start the session';
  if (from === 'in_session' && to === 'ready') return 'pause the session';
  if (to === 'completed') return 'complete the job';
  if (to === 'cancelled') return from === 'in_session' ? 'cancel a job in session' : 'cancel the job';
  if (to === 'draft') return 'move the job back to draft';
  if (to === 'scheduled') return 'schedule the job';
  return from === 'scheduled' ? 'unschedule the job' : 'mark the job ready';
}

export type TransitionRefusal = { kind: 'invalid_transition' | 'forbidden'; message: string };

/**
 * Why these actors may not make this move by PATCH, or null when they may: a move outside the
 * table is invalid (409), someone not allowed to make it is forbidden (403), and a move that has a
 * route of its own is invalid here (409). Preconditions come after (getTransitionBlocker).
 */
export function getTransitionRefusal(from: JobStatus, to: JobStatus, actors: readonly JobActor[]): TransitionRefusal | null {
  if (!canTransition(from, to))
    return { kind: 'invalid_transition', message: `A ${jobStatusLabels[from].toLowerCase()} job cannot become ${jobStatusLabels[to].toLowerCase()}.` };
  const allowed = jobTransitionActors[from][to] ?? [];
  if (!actors.some((actor) => allowed.includes(actor))) {
    const names = jobActors.filter((actor) => allowed.includes(actor)).map((actor) => actorNames[actor]);
    const who = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'no one');
    return { kind: 'forbidden', message: `Only ${who} may ${describeMove(from, to)}.` };
  }
  const ownRoute = movesByOwnRoute[to];
  return ownRoute ? { kind: 'invalid_transition', message: ownRoute } : null;
}

/** The moves these actors may make now with PATCH (what the job page offers as buttons). */
export function getAllowedTransitions(status: JobStatus, actors: readonly JobActor[]): JobStatus[] {
  return jobTransitions[status].filter((to) => getTransitionRefusal(status, to, actors) === null);
}

/** Statuses in which signers, documents and the schedule may still change. */
export function isJobEditable(status: JobStatus): boolean {
  return status === 'draft' || status === 'ready' || status === 'scheduled';
}

export interface TransitionFacts {
  signerCount: number;
  documentCount: number;
  hasNotary: boolean;
  scheduledAt: string | null;
}

/** Why a move is not allowed now, or null when it is (besides the transition table). */
export function getTransitionBlocker(from: JobStatus, to: JobStatus, facts: TransitionFacts): string | null {
  if (!canTransition(from, to)) return `A ${jobStatusLabels[from].toLowerCase()} job cannot become ${jobStatusLabels[to].toLowerCase()}.`;
  if (to === 'ready' && from === 'draft') {
    if (facts.signerCount === 0) return 'Add at least one signer before marking the job ready.';
    if (facts.documentCount === 0) return 'Upload at least one document before marking the job ready.';
  }
  if (to === 'scheduled') {
    if (!facts.scheduledAt) return 'Set a date and time before scheduling the job.';
    if (!facts.hasNotary) return 'Assign a notary before scheduling the job.';
  }
  if (to === 'in_session' && !facts.hasNotary) return 'Assign a notary before the session starts.';
  return null;
}

/**
 * The notary of a job may never be one of its people (signer, witness or observer): not by account
 * and not by email, compared without regard to case. Observers count too: the notary is in the
 * session anyway, and an observer row is one role change away from a signer.
 */
export const notaryConflictMessage = 'The notary of a job cannot also be one of its signers, witnesses or observers.';
export function isNotaryAmong(notary: { id: string; email: string }, people: ReadonlyArray<{ userId?: string | null; email: string }>): boolean {
  const notaryEmail = notary.email.trim().toLowerCase();
  return people.some((person) => person.userId === notary.id || person.email.trim().toLowerCase() === notaryEmail);
}

/** Notarization types (act types) a job can carry. */
export const notarizationTypes = [
  { key: 'acknowledgment', label: 'Acknowledgment', description: 'The signer acknowledges signing the document willingly.' },
  { key: 'jurat', label: 'Jurat', description: 'The signer swears or affirms the contents are true and signs before the notary.' },
  { key: 'oath_affirmation', label: 'Oath or affirmation', description: 'The notary administers an oath or affirmation.' },
  { key: 'signature_witnessing', label: 'Signature witnessing', description: 'The notary witnesses the signature being made.' },
  { key: 'copy_certification', label: 'Copy certification', description: 'The notary certifies a copy of an original document.' },
] as const;
export const notarizationTypeSchema = z.enum(['acknowledgment', 'jurat', 'oath_affirmation', 'signature_witnessing', 'copy_certification'], {
  message: 'Choose a notarization type.',
});
export type NotarizationType = z.infer<typeof notarizationTypeSchema>;

/** How a signer's identity may be established on a job (decision 052). */
export const identificationMethods = ['identity_step', 'personal_knowledge', 'credible_witness'] as const;

/**
 * GET /api/jobs/{id}/notarization-types: the acts this job may use and the ways its signers may be
 * identified, from the identity policy row of its notary's commissioning state and its participants.
 * Each choice that is not open says why, and each rule names its citation.
 */
export const jobNotarizationTypesSchema = z.object({
  /** The policy row used: the notary's commissioning state, or the RULONA default with no notary. */
  policy: z.object({ code: z.string(), name: z.string(), isDefault: z.boolean() }),
  current: notarizationTypeSchema,
  items: z.array(
    z.object({
      key: notarizationTypeSchema,
      label: z.string(),
      description: z.string(),
      allowed: z.boolean(),
      reason: z.string().nullable(),
      citation: z.string().nullable(),
    }),
  ),
  identification: z.array(
    z.object({
      method: z.enum(identificationMethods),
      label: z.string(),
      allowed: z.boolean(),
      reason: z.string().nullable(),
      citation: z.string().nullable(),
    }),
  ),
});
export type JobNotarizationTypes = z.infer<typeof jobNotarizationTypesSchema>;

export const participantRoles = ['signer', 'witness', 'observer'] as const;
export const participantRoleSchema = z.enum(participantRoles);
export type ParticipantRole = z.infer<typeof participantRoleSchema>;
/** What each participant is invited to do, as a verb ("invited to sign"). */
export const participantRoleVerbs: Record<ParticipantRole, string> = { signer: 'sign', witness: 'witness', observer: 'observe' };

const participantNameSchema = singleLineTextSchema({ label: 'The participant’s name', max: 120, requiredMessage: "Enter the signer's name." });
const jobTitleSchema = singleLineTextSchema({ label: 'The job title', max: 200, requiredMessage: 'Enter a title for the job.' });
const reasonSchema = plainTextSchema({ label: 'The reason', max: 500 });

export const signerInputSchema = z.object({
  name: participantNameSchema,
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: 'Enter a valid email address.' })),
  role: participantRoleSchema.default('signer'),
});
export type SignerInput = z.input<typeof signerInputSchema>;

/** An offset can carry a valid instant into year 0 or 10000, which the database cannot store. */
function isStorableInstant(value: string): boolean {
  const year = new Date(value).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

const scheduledAtSchema = z.iso
  .datetime({ offset: true, message: 'Enter a valid date and time.' })
  .refine(isStorableInstant, { message: 'Enter a valid date and time.' })
  .nullable()
  .optional();

export const createJobInputSchema = z.object({
  title: jobTitleSchema,
  notarizationType: notarizationTypeSchema,
  signers: z.array(signerInputSchema).max(10, { message: 'A job has at most 10 participants.' }).default([]),
  scheduledAt: scheduledAtSchema,
  /** Omitted: the company's default notary, if it has one; null: no notary yet. */
  notaryId: z.uuid().nullable().optional(),
  /** The company's job type the job is made from: its instructions for the notary go with the job. */
  jobTypeId: z.uuid({ message: 'Choose one of the company’s job types.' }).nullable().optional(),
});
export type CreateJobInput = z.input<typeof createJobInputSchema>;

export const updateJobInputSchema = z
  .object({
    title: jobTitleSchema.optional(),
    notarizationType: notarizationTypeSchema.optional(),
    scheduledAt: scheduledAtSchema,
    status: jobStatusSchema.optional(),
    reason: reasonSchema.optional(),
    /** With status cancelled: nobody came to the scheduled session, and the no-show fee of the prices applies (decision 049). */
    noShow: z.boolean({ message: 'noShow is true or false.' }).optional(),
    version: z.number().int().min(1, { message: 'Send the version of the job you edited.' }),
  })
  .refine((value) => !value.noShow || value.status === 'cancelled', { message: 'Only a cancellation can be a no-show.', path: ['noShow'] })
  .refine((value) => Object.keys(value).some((key) => key !== 'version' && key !== 'reason' && key !== 'noShow'), { message: 'Nothing to change.' });
export type UpdateJobInput = z.input<typeof updateJobInputSchema>;

export const participantSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: participantRoleSchema,
  position: z.number().int(),
  hasAccount: z.boolean(),
  isIdBypassed: z.boolean(),
  idBypassReason: z.string().nullable(),
  idBypassMethod: z.enum(bypassMethods).nullable(),
  invitedAt: z.string().nullable(),
  lastRemindedAt: z.string().nullable(),
  /** The person's identity now; given with the job's participants, left out of a single participant's change. */
  identityState: z.enum(participantIdentityStates).optional(),
});
export type Participant = z.infer<typeof participantSchema>;

export const jobSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  notarizationType: z.string(),
  status: jobStatusSchema,
  scheduledAt: z.string().nullable(),
  notaryName: z.string().nullable(),
  companyName: z.string().nullable(),
  participantCount: z.number().int(),
  documentCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type JobSummary = z.infer<typeof jobSummarySchema>;

const instantSchema = (name: string) => {
  const message = `Give ${name} as an ISO date and time with its time zone.`;
  return z.iso.datetime({ offset: true, message }).refine(isStorableInstant, { message }).optional();
};

/**
 * The jobs list's filters. notary=me: jobs whose notary is the caller. waitingFor=me: open jobs
 * where the caller still has to sign or witness, and invitations to accept. scheduledFrom (included)
 * and scheduledTo (excluded): a window of scheduled times. withStatusCounts: also count the jobs in
 * each status, with every filter but `status` applied.
 */
export const jobListQuerySchema = z.object({
  q: searchTextSchema(200).optional(),
  status: jobStatusSchema.optional(),
  notary: z.literal('me', { message: 'Use notary=me to list the jobs whose notary you are.' }).optional(),
  waitingFor: z.literal('me', { message: 'Use waitingFor=me to list the jobs waiting for you.' }).optional(),
  scheduledFrom: instantSchema('scheduledFrom'),
  scheduledTo: instantSchema('scheduledTo'),
  withStatusCounts: z.stringbool({ error: 'Use withStatusCounts=true or false.' }).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type JobListQuery = z.input<typeof jobListQuerySchema>;

/** A row of the jobs list: isInvitation marks a job that invited the viewer's confirmed address, not yet accepted. */
export const jobListItemSchema = jobSummarySchema.extend({ isInvitation: z.boolean() });
export type JobListItem = z.infer<typeof jobListItemSchema>;

const countSchema = z.number().int();
export const jobStatusCountsSchema = z.object({
  draft: countSchema,
  ready: countSchema,
  scheduled: countSchema,
  in_session: countSchema,
  completed: countSchema,
  cancelled: countSchema,
});
export type JobStatusCounts = z.infer<typeof jobStatusCountsSchema>;

export const jobListSchema = z.object({
  items: z.array(jobListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Present when asked with withStatusCounts=true. */
  statusCounts: jobStatusCountsSchema.optional(),
});
export type JobList = z.infer<typeof jobListSchema>;

export const jobPermissionsSchema = z.object({
  canEdit: z.boolean(),
  canManageNotary: z.boolean(),
  canBypassId: z.boolean(),
  canCompleteDocuments: z.boolean(),
  isParticipant: z.boolean(),
});
export type JobPermissions = z.infer<typeof jobPermissionsSchema>;

export const jobSchema = jobSummarySchema.extend({
  version: z.number().int(),
  notaryId: z.string().nullable(),
  companyId: z.string().nullable(),
  createdBy: z.string().nullable(),
  participants: z.array(participantSchema),
  permissions: jobPermissionsSchema,
  /** How the notary may identify a person instead of the identity step: what the notary's commissioning state allows. */
  idBypassMethods: z.array(z.enum(bypassMethods)),
  allowedTransitions: z.array(jobStatusSchema),
  /** The company job type the job was made from (its name now), and its instructions for the notary as they were when the job was created. */
  jobTypeName: z.string().nullable(),
  notaryInstructions: z.string().nullable(),
  /** The document tags of that job type as it lists them now (none without a type): an upload naming no tag takes the first (decision 043). */
  jobTypeDocumentTags: z.array(documentTagSchema),
});
export type Job = z.infer<typeof jobSchema>;

export const addSignerInputSchema = signerInputSchema;
export const updateSignerInputSchema = z
  .object({
    name: participantNameSchema.optional(),
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254)
      .pipe(z.email({ message: 'Enter a valid email address.' }))
      .optional(),
    role: participantRoleSchema.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, { message: 'Nothing to change.' });
export const remindSignerInputSchema = z.object({
  emailOverride: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: 'Enter a valid email address.' }))
    .optional()
    .nullable(),
});
export const idBypassInputSchema = z
  .object({
    enabled: z.boolean(),
    reason: reasonSchema.optional().default(''),
    /** How the notary knows who the person is instead: required to bypass, and allowed by the job's state policy. */
    method: z.enum(bypassMethods, { message: 'method is personal_knowledge or credible_witness.' }).optional(),
  })
  .refine((value) => !value.enabled || value.reason.length >= 3, { message: 'Give a reason for bypassing identity verification.', path: ['reason'] })
  .refine((value) => !value.enabled || value.method !== undefined, {
    message: 'Say how you identified the person instead: personal knowledge or a credible witness, as the rules of your commissioning state allow.',
    path: ['method'],
  });
export const replaceNotaryInputSchema = z.object({ notaryId: z.uuid({ message: 'Choose a notary.' }).nullable() });

/**
 * Who may enter the live session now: `reasons` says every reason why not, `notices` what the
 * person should know that does not keep them out (identity is not verified by the platform yet).
 */
export const canEnterSchema = z.object({
  canEnter: z.boolean(),
  role: z.string().nullable(),
  reasons: z.array(z.string()),
  notices: z.array(z.string()),
  /** The caller's place in the job's open session (lobby state, recording), for the pre-join screen and the lobby. */
  session: sessionPlaceSchema,
  /** The caller's identity step: the pre-join screen shows it until it is satisfied. */
  identity: identityPlaceSchema,
});
export type CanEnter = z.infer<typeof canEnterSchema>;

export const notaryOptionSchema = z.object({
  userId: z.string(),
  name: z.string(),
  commissionState: z.string(),
  county: z.string(),
  /** Online now by the availability rule (decision 028); absent where the option is not from the lookup. */
  isOnline: z.boolean().optional(),
});
export const notaryOptionListSchema = z.object({ items: z.array(notaryOptionSchema) });
