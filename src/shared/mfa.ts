import { z } from 'zod';
import { loginResponseSchema } from './auth.ts';

/** Multi-factor texts, word for word as people see them, and constants: code lengths, lifetimes, cooldowns, delays. */
export const mfaMessages = {
  authenticatorLinked: 'Authenticator linked!',
  setupCodeInvalid: 'Enter the 6-digit code from your authenticator app.',
  verifyCodeMissing: 'Enter your 6-digit code or a backup code.',
  emailCodeInvalid: 'Please enter a valid 6-digit code.',
  statusLoadFailed: 'Unable to load MFA status. Please try logging in again.',
  setupStartFailed: 'Unable to start MFA setup.',
  verificationFailed: 'Verification failed. Please try again.',
  emailSendFailed: 'Failed to send email. Please try again.',
  emailVerifyFailed: 'Invalid or expired code. Please try again.',
  codeSent: (maskedEmail: string) => `Code sent to ${maskedEmail}`,
  codeAlreadySent: (seconds: number) => `A code was already sent. Please wait ${seconds} seconds before requesting another.`,
} as const;

export const mfaConstants = {
  codeDigits: 6,
  backupCodeMaxLength: 12,
  emailCodeLifetimeMs: 10 * 60_000,
  emailResendCooldownSeconds: 120,
  setupRedirectDelayMs: 900,
  codeSentNoticeMs: 5_000,
  rememberDeviceDays: 30,
  maxCodeAttempts: 5,
} as const;

export const totpCodeSchema = z.string().regex(/^\d{6}$/, { message: mfaMessages.setupCodeInvalid });
export const backupCodeSchema = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9]{1,12}$/, { message: 'A backup code has at most 12 letters and digits.' });
export const emailCodeSchema = z.string().regex(/^\d{6}$/, { message: mfaMessages.emailCodeInvalid });

/** Keeps digits only, at most six (authenticator and email code inputs). */
export function normalizeDigitsInput(value: string): string {
  return value.replace(/\D/g, '').slice(0, mfaConstants.codeDigits);
}

/** Keeps letters and digits only, uppercased, at most twelve (backup code input). */
export function normalizeBackupCodeInput(value: string): string {
  return value
    .replace(/[^a-z0-9]/gi, '')
    .toUpperCase()
    .slice(0, mfaConstants.backupCodeMaxLength);
}

const optionalIdSchema = z.string().trim().min(1).max(100).optional().nullable();

export const mfaStatusSchema = z.object({
  enrolled: z.boolean(),
  totpEnabled: z.boolean(),
  required: z.boolean(),
  backupCodesRemaining: z.number().int(),
  maskedEmail: z.string(),
});
export type MfaStatus = z.infer<typeof mfaStatusSchema>;

export const totpSetupStartSchema = z.object({ qrCodeDataUrl: z.string(), secret: z.string(), otpauth: z.string() });
export const totpSetupVerifyInputSchema = z.object({ token: totpCodeSchema, rememberDevice: z.boolean().default(true) });
/**
 * Linking from a pending sign-in completes it: `completedSignIn` answers like a finished sign-in (a
 * new session token). Linking from a full session (the Security tab) completes nothing: null.
 */
export const totpSetupVerifyResponseSchema = z.object({ ok: z.literal(true), completedSignIn: loginResponseSchema.nullable() });
export type TotpSetupVerifyResponse = z.infer<typeof totpSetupVerifyResponseSchema>;

export const mfaVerifyInputSchema = z
  .object({
    token: totpCodeSchema.optional(),
    backupCode: backupCodeSchema.optional(),
    rememberDevice: z.boolean().default(true),
    jobId: optionalIdSchema,
    signerId: optionalIdSchema,
  })
  .refine((value) => Boolean(value.token) !== Boolean(value.backupCode), { message: mfaMessages.verifyCodeMissing });

export const backupCodesSchema = z.object({ codes: z.array(z.string()) });
export const emailCodeRequestSchema = z.object({ maskedEmail: z.string(), cooldownSeconds: z.number().int() });
export const emailCodeVerifyInputSchema = z.object({ code: emailCodeSchema, rememberDevice: z.boolean().default(true) });

export const twoFactorVerifyInputSchema = z.object({
  ticket: z.string().min(1).max(200),
  code: z.string().trim().min(1, { message: 'Please enter the 2FA code.' }).max(12),
  rememberDevice: z.boolean().default(true),
  jobId: optionalIdSchema,
  signerId: optionalIdSchema,
});

export const forgotPasswordInputSchema = z.object({
  email: z.string().trim().min(1, { message: 'Please enter your email first.' }).max(254),
});
export const resetPasswordInputSchema = z.object({
  token: z.string().min(1).max(200),
  newPassword: z.string().min(8, { message: 'Password must be at least 8 characters.' }).max(256),
});
export const adminSetPasswordInputSchema = z.object({
  password: z.string().min(8, { message: 'Password must be at least 8 characters.' }).max(256),
});

export const passwordResetMessages = {
  forgotAccepted: 'If an account exists for that email, a reset link is on its way.',
  invalidLink: 'This reset link is invalid or expired.',
  updated: 'Password updated! You can now log in.',
} as const;

/**
 * Reads the cooldown from a rate-limit answer (429, the text 'rate limit', or
 * code_already_sent): the seconds value in its message, else the 120 s default. Null when the
 * failure is not a rate limit.
 */
export function readEmailCooldownSeconds(status: number, data: unknown, text: string): number | null {
  const record = (data && typeof data === 'object' ? data : {}) as { error?: unknown; detail?: unknown };
  const isRateLimit = status === 429 || /rate limit/i.test(text) || record.error === 'code_already_sent';
  if (!isRateLimit) return null;
  const match = text.match(/(\d+)\s*(?:s\b|sec|second)/i);
  if (match?.[1]) return Number(match[1]);
  const detail = record.detail as { retryAfterSeconds?: unknown } | undefined;
  if (detail && typeof detail.retryAfterSeconds === 'number') return detail.retryAfterSeconds;
  return mfaConstants.emailResendCooldownSeconds;
}
