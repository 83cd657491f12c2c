import { z } from 'zod';
import { singleLineTextSchema } from './text.ts';
import { roleSchema } from './roles.ts';
import { usStateCodes } from './us-states.ts';

export const minimumPasswordLength = 8;
export const maximumPasswordLength = 256;

export const authMessages = {
  missingCredentials: 'Please enter both email and password.',
  loginFailed: 'Login failed',
  invalidCredentials: 'Invalid email or password.',
  missingEmailForReset: 'Please enter your email first.',
  missingTwoFactorCode: 'Please enter the 2FA code.',
  missingPasswordFields: 'Please fill out both password fields.',
  passwordsDoNotMatch: 'Passwords do not match.',
  passwordTooShort: `Password must be at least ${minimumPasswordLength} characters.`,
  sessionExpired: 'Your session has expired. Please sign in again.',
  signInRequired: 'Please sign in to continue.',
} as const;

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'Enter a valid email address.' }));
const passwordSchema = z
  .string()
  .min(minimumPasswordLength, { message: authMessages.passwordTooShort })
  .max(maximumPasswordLength, { message: `Password must be at most ${maximumPasswordLength} characters.` });
const optionalIdSchema = z.string().trim().min(1).max(100).optional();

export const loginInputSchema = z.object({
  email: z.string().trim().min(1, { message: authMessages.missingCredentials }).max(254),
  password: z.string().min(1, { message: authMessages.missingCredentials }).max(maximumPasswordLength),
  rememberDevice: z.boolean().default(true),
  jobId: optionalIdSchema,
  signerId: optionalIdSchema,
});
export type LoginInput = z.input<typeof loginInputSchema>;

export const loginQuerySchema = z.object({ jobId: optionalIdSchema, signerId: optionalIdSchema });

export const approvalStatusSchema = z.enum(['active', 'pending', 'disabled', 'rejected']);
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>;

export const rejectionReasonMaxLength = 500;
const rejectionReasonMissing = 'Enter the reason for turning down this application; it is sent to the applicant.';
export const rejectionReasonSchema = z
  .string({ error: (issue) => (issue.input === undefined ? rejectionReasonMissing : 'The reason must be text.') })
  .pipe(singleLineTextSchema({ label: 'The reason', max: rejectionReasonMaxLength, requiredMessage: rejectionReasonMissing }));
/**
 * POST /api/notary/reject/{id} and POST /api/title-companies/{id}/reject: why an administrator
 * turns an application down, in one line (it is quoted in the email to the applicant and in the
 * audit trail). The review dialog validates with the same schema.
 */
export const rejectApplicationInputSchema = z.object(
  { reason: rejectionReasonSchema },
  { error: (issue) => (issue.input === undefined || issue.input === null ? rejectionReasonMissing : undefined) },
);
export type RejectApplicationInput = z.input<typeof rejectApplicationInputSchema>;

export const sessionUserSchema = z.object({
  id: z.string(),
  name: z.string(),
  fullName: z.string(),
  email: z.string(),
  roles: z.array(roleSchema),
  role: roleSchema,
  status: approvalStatusSchema,
  pendingApproval: z.string().nullable(),
  /** Whether the person confirmed their email address; jobs are never shown by email match before. */
  emailVerified: z.boolean(),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

export const nextActionSchema = z.object({
  nextAction: z.string().nullable(),
  jobId: z.string().nullable(),
  pendingSetup: z.object({ jobId: z.string(), start: z.string().nullable() }).nullable(),
  startWith: z.string().nullable(),
  route: z.string().nullable(),
});
export type NextAction = z.infer<typeof nextActionSchema>;

export const loginResponseSchema = z.object({
  user: sessionUserSchema.nullable(),
  sessionToken: z.string().nullable(),
  mfa_required: z.boolean(),
  enrolled: z.boolean(),
  twofaRequired: z.boolean(),
  ticket: z.string().nullable(),
  nextAction: nextActionSchema.nullable(),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const meResponseSchema = z.object({ user: sessionUserSchema });

export const personNameSchema = singleLineTextSchema({ label: 'Your name', max: 120, requiredMessage: 'Enter your full name.' });

export const registerUserInputSchema = z.object({
  name: personNameSchema,
  email: emailSchema,
  password: passwordSchema,
});
export type RegisterUserInput = z.input<typeof registerUserInputSchema>;

export const registerNotaryInputSchema = registerUserInputSchema.extend({
  commissionState: z.enum(usStateCodes, { message: 'Choose the state of your commission.' }),
  commissionNumber: singleLineTextSchema({ label: 'The commission number', max: 60, requiredMessage: 'Enter your commission number.' }),
  commissionExpiresOn: z.iso.date({ message: 'Enter the commission expiry date.' }),
  county: singleLineTextSchema({ label: 'The county', max: 80, requiredMessage: 'Enter the county of your commission.' }),
});
export type RegisterNotaryInput = z.input<typeof registerNotaryInputSchema>;

export const registerTitleCompanyInputSchema = registerUserInputSchema.extend({
  companyName: singleLineTextSchema({ label: 'The company name', max: 160, requiredMessage: 'Enter the company name.' }),
});
export type RegisterTitleCompanyInput = z.input<typeof registerTitleCompanyInputSchema>;

/**
 * Registration and invitation claims answer like a sign-in: a role in MFA_REQUIRED_ROLES gets
 * mfa_required and a ticket (a session that may only set up and pass a second factor), others the
 * user and a session token.
 */
export const registerResponseSchema = loginResponseSchema.extend({
  pendingApproval: z.boolean(),
  message: z.string(),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

export const passwordConfirmationSchema = z.object({ password: z.string(), confirmPassword: z.string() }).superRefine((value, context) => {
  if (!value.password || !value.confirmPassword) {
    context.addIssue({ code: 'custom', message: authMessages.missingPasswordFields });
  } else if (value.password !== value.confirmPassword) {
    context.addIssue({ code: 'custom', message: authMessages.passwordsDoNotMatch });
  } else if (value.password.length < minimumPasswordLength) {
    context.addIssue({ code: 'custom', message: authMessages.passwordTooShort });
  }
});

/** The answer of calls that only confirm what they did, in a sentence. */
export const okMessageSchema = z.object({ ok: z.literal(true), message: z.string() });

/** Confirming an email address with the link from /verify-email/:token (decision 010). */
export const verifyEmailInputSchema = z.object({
  token: z.string().trim().min(1, { message: 'The confirmation link is incomplete. Open the whole link from the email.' }).max(200),
});
export type VerifyEmailInput = z.input<typeof verifyEmailInputSchema>;

export const emailVerificationMessages = {
  confirmed: 'Your email address is confirmed.',
  invalidLink: 'This confirmation link is invalid or expired. Sign in and send yourself a new one.',
  alreadyConfirmed: 'Your email address is already confirmed.',
  sent: (email: string) => `We sent a new confirmation link to ${email}.`,
  notConfirmed: 'Confirm your email address first: open the link we emailed you, or send a new one from your dashboard.',
} as const;
