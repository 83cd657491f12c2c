import { z } from 'zod';
import { minimumPasswordLength, authMessages, maximumPasswordLength, personNameSchema } from './auth.ts';
import { roleSchema } from './roles.ts';

/** bootstrap_admin: the first administrator; job_participant: a seat on a job; company_member: joining a title company as title staff or agent. */
export const invitePurposes = ['bootstrap_admin', 'job_participant', 'company_member'] as const;
export const invitePurposeSchema = z.enum(invitePurposes);

export const inviteSummarySchema = z.object({
  purpose: invitePurposeSchema,
  roles: z.array(roleSchema),
  email: z.string().nullable(),
  expiresAt: z.string(),
  jobId: z.string().nullable(),
  jobTitle: z.string().nullable(),
  /** For company_member: the company the invitee joins ("Join Acme Title as an agent"); the role is in `roles`. */
  companyId: z.string().nullable(),
  companyName: z.string().nullable(),
  hasAccount: z.boolean(),
});
export type InviteSummary = z.infer<typeof inviteSummarySchema>;

export const claimInviteInputSchema = z.object({
  name: personNameSchema,
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: 'Enter a valid email address.' })),
  password: z.string().min(minimumPasswordLength, { message: authMessages.passwordTooShort }).max(maximumPasswordLength),
});
export type ClaimInviteInput = z.input<typeof claimInviteInputSchema>;

export const inviteMessages = {
  invalid: 'This invitation link is invalid, expired or already used.',
} as const;

export const requestAccessInputSchema = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: 'Enter a valid email address.' })),
});
/** What an accepted invitation opened: a job, or (company_member, with companyId) the company the person joined. */
export const acceptInviteResponseSchema = z.object({ jobId: z.string().nullable(), companyId: z.string().optional() });

/** A job inviting the signed-in person's confirmed address, before they accept (decision 010). */
export const jobInvitationSchema = z.object({
  jobId: z.string(),
  jobTitle: z.string(),
  role: z.enum(['signer', 'witness', 'observer']),
  participantName: z.string(),
  status: z.string(),
});
export type JobInvitation = z.infer<typeof jobInvitationSchema>;
/** GET /api/invites/jobs/{jobId}: the invitation, or null for someone who sees the job without one. */
export const jobInvitationLookupSchema = jobInvitationSchema.nullable();
