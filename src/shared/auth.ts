import { z } from 'zod';
import { roleSchema } from './roles.ts';

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

const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'Enter a valid email address.' }));
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

export const approvalStatusSchema = z.enum(['active', 'pending', 'disabled']);
export type ApprovalStatus = z.infer<typeof approvalStatusSchema>;

export const sessionUserSchema = z.object({
  id: z.string(),
  name: z.string(),
  fullName: z.string(),
  email: z.string(),
  roles: z.array(roleSchema),
  role: roleSchema,
  status: approvalStatusSchema,
  pendingApproval: z.string().nullable(),
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

const nameSchema = z.string().trim().min(1, { message: 'Enter your full name.' }).max(120);

export const registerUserInputSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  password: passwordSchema,
});
export type RegisterUserInput = z.input<typeof registerUserInputSchema>;

export const usStateCodes = [
  'AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME',
  'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI',
  'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY',
] as const;

export const registerNotaryInputSchema = registerUserInputSchema.extend({
  commissionState: z.enum(usStateCodes, { message: 'Choose the state of your commission.' }),
  commissionNumber: z.string().trim().min(1, { message: 'Enter your commission number.' }).max(60),
  commissionExpiresOn: z.iso.date({ message: 'Enter the commission expiry date.' }),
  county: z.string().trim().min(1, { message: 'Enter the county of your commission.' }).max(80),
});
export type RegisterNotaryInput = z.input<typeof registerNotaryInputSchema>;

export const registerTitleCompanyInputSchema = registerUserInputSchema.extend({
  companyName: z.string().trim().min(1, { message: 'Enter the company name.' }).max(160),
});
export type RegisterTitleCompanyInput = z.input<typeof registerTitleCompanyInputSchema>;

export const registerResponseSchema = z.object({
  user: sessionUserSchema,
  sessionToken: z.string(),
  pendingApproval: z.boolean(),
  message: z.string(),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

export const passwordConfirmationSchema = z
  .object({ password: z.string(), confirmPassword: z.string() })
  .superRefine((value, context) => {
    if (!value.password || !value.confirmPassword) {
      context.addIssue({ code: 'custom', message: authMessages.missingPasswordFields });
    } else if (value.password !== value.confirmPassword) {
      context.addIssue({ code: 'custom', message: authMessages.passwordsDoNotMatch });
    } else if (value.password.length < minimumPasswordLength) {
      context.addIssue({ code: 'custom', message: authMessages.passwordTooShort });
    }
  });
