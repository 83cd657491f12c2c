import { z } from 'zod';

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

export const participantRoles = ['signer', 'witness', 'observer'] as const;
export const participantRoleSchema = z.enum(participantRoles);
export type ParticipantRole = z.infer<typeof participantRoleSchema>;

export const signerInputSchema = z.object({
  name: z.string().trim().min(1, { message: "Enter the signer's name." }).max(120),
  email: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'Enter a valid email address.' })),
  role: participantRoleSchema.default('signer'),
});
export type SignerInput = z.input<typeof signerInputSchema>;

const scheduledAtSchema = z.iso.datetime({ offset: true, message: 'Enter a valid date and time.' }).nullable().optional();

export const createJobInputSchema = z.object({
  title: z.string().trim().min(1, { message: 'Enter a title for the job.' }).max(200),
  notarizationType: notarizationTypeSchema,
  signers: z.array(signerInputSchema).max(10, { message: 'A job has at most 10 participants.' }).default([]),
  scheduledAt: scheduledAtSchema,
  notaryId: z.uuid().nullable().optional(),
});
export type CreateJobInput = z.input<typeof createJobInputSchema>;

export const updateJobInputSchema = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    notarizationType: notarizationTypeSchema.optional(),
    scheduledAt: scheduledAtSchema,
    status: jobStatusSchema.optional(),
    reason: z.string().trim().max(500).optional(),
    version: z.number().int().min(1, { message: 'Send the version of the job you edited.' }),
  })
  .refine((value) => Object.keys(value).some((key) => key !== 'version' && key !== 'reason'), { message: 'Nothing to change.' });
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
  invitedAt: z.string().nullable(),
  lastRemindedAt: z.string().nullable(),
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

export const jobListQuerySchema = z.object({
  q: z.string().trim().max(200).optional(),
  status: jobStatusSchema.optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type JobListQuery = z.input<typeof jobListQuerySchema>;

export const jobListSchema = z.object({
  items: z.array(jobSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

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
  allowedTransitions: z.array(jobStatusSchema),
});
export type Job = z.infer<typeof jobSchema>;

export const addSignerInputSchema = signerInputSchema;
export const updateSignerInputSchema = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    email: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'Enter a valid email address.' })).optional(),
    role: participantRoleSchema.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, { message: 'Nothing to change.' });
export const remindSignerInputSchema = z.object({
  emailOverride: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'Enter a valid email address.' })).optional().nullable(),
});
export const idBypassInputSchema = z
  .object({ enabled: z.boolean(), reason: z.string().trim().max(500).optional().default('') })
  .refine((value) => !value.enabled || value.reason.length >= 3, { message: 'Give a reason for bypassing identity verification.', path: ['reason'] });
export const replaceNotaryInputSchema = z.object({ notaryId: z.uuid({ message: 'Choose a notary.' }).nullable() });

export const canEnterSchema = z.object({ canEnter: z.boolean(), role: z.string().nullable(), reasons: z.array(z.string()) });

export const notaryOptionSchema = z.object({ userId: z.string(), name: z.string(), commissionState: z.string(), county: z.string() });
export const notaryOptionListSchema = z.object({ items: z.array(notaryOptionSchema) });
