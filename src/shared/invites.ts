import { z } from 'zod';
import { minimumPasswordLength, authMessages, maximumPasswordLength, personNameSchema } from './auth.ts';
import { roleSchema } from './roles.ts';

export const invitePurposes = ['bootstrap_admin', 'job_participant'] as const;
export const invitePurposeSchema = z.enum(invitePurposes);

export const inviteSummarySchema = z.object({
  purpose: invitePurposeSchema,
  roles: z.array(roleSchema),
  email: z.string().nullable(),
  expiresAt: z.string(),
  jobId: z.string().nullable(),
  jobTitle: z.string().nullable(),
  hasAccount: z.boolean(),
});
export type InviteSummary = z.infer<typeof inviteSummarySchema>;

export const claimInviteInputSchema = z.object({
  name: personNameSchema,
  email: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'Enter a valid email address.' })),
  password: z
    .string()
    .min(minimumPasswordLength, { message: authMessages.passwordTooShort })
    .max(maximumPasswordLength),
});
export type ClaimInviteInput = z.input<typeof claimInviteInputSchema>;

export const inviteMessages = {
  invalid: 'This invitation link is invalid, expired or already used.',
} as const;

export const requestAccessInputSchema = z.object({
  email: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'Enter a valid email address.' })),
});
export const acceptInviteResponseSchema = z.object({ jobId: z.string().nullable() });

/** A job inviting the signed-in person's confirmed address, before they accept (decision 010). */
export const jobInvitationSchema = z.object({
  jobId: z.string(),
  jobTitle: z.string(),
  role: z.enum(['signer', 'witness', 'observer']),
  participantName: z.string(),
  status: z.string(),
});
export type JobInvitation = z.infer<typeof jobInvitationSchema>;
