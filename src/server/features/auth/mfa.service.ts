import { randomInt } from 'node:crypto';
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import type { LoginResponse } from '#shared/auth.ts';
import { mfaConstants, mfaMessages, type MfaStatus } from '#shared/mfa.ts';
import { hasAnyRole } from '#shared/roles.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { mfaBackupCodes, mfaEmailCodes, mfaFactors, sessions, trustedDevices, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { createToken, hashToken } from '#server/lib/crypto.ts';
import { AppError, conflict, unauthorized } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { clearRateLimit, hitRateLimit, readRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { decryptSecret, encryptSecret, hashCode } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { findGnwNextAction } from '#server/features/gnw/gnw-jobs.service.ts';
import { createSession, resolveSession, revokeSessionById } from './sessions.service.ts';
import { accountFailuresKey, toSessionUser, type UserRow } from './users.ts';

const totpPeriodSeconds = 30;
const backupCodeAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const backupCodeCount = 10;
const backupCodeLength = 10;

type FactorRow = typeof mfaFactors.$inferSelect;

export interface MfaRequirement {
  isRoleRequired: boolean;
  totpEnabled: boolean;
  emailEnabled: boolean;
}

async function findFactors(db: DbOrTx, userId: string): Promise<FactorRow | null> {
  const [row] = await db.select().from(mfaFactors).where(eq(mfaFactors.userId, userId)).limit(1);
  return row ?? null;
}

export async function getMfaRequirement(ctx: Pick<Ctx, 'db' | 'config'>, user: UserRow): Promise<MfaRequirement> {
  const factors = await findFactors(ctx.db, user.id);
  return {
    isRoleRequired: hasAnyRole({ roles: user.roles }, ctx.config.mfa.requiredRoles),
    totpEnabled: Boolean(factors?.totpEnabledAt && factors.totpSecretEncrypted),
    emailEnabled: Boolean(factors?.emailEnabledAt),
  };
}

/** A live remember-this-device token of this user skips the second factor. */
export async function isTrustedDevice(db: DbOrTx, userId: string, deviceToken: string | null): Promise<boolean> {
  if (!deviceToken || deviceToken.length > 200) return false;
  const rows = await db
    .select({ id: trustedDevices.id })
    .from(trustedDevices)
    .where(
      and(
        eq(trustedDevices.tokenHash, hashToken(deviceToken)),
        eq(trustedDevices.userId, userId),
        isNull(trustedDevices.revokedAt),
        gt(trustedDevices.expiresAt, new Date()),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  const [domainName = '', ...rest] = domain.split('.');
  const maskPart = (part: string) => (part.length <= 1 ? `${part}*` : `${part[0]}${'*'.repeat(Math.min(6, part.length - 1))}`);
  return `${maskPart(local)}@${maskPart(domainName)}${rest.length ? `.${rest.join('.')}` : ''}`;
}

async function getUserRow(db: DbOrTx, userId: string): Promise<UserRow> {
  const [row] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!row) throw unauthorized();
  return row;
}

function requireUser(ctx: Ctx) {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

export async function getMfaStatus(ctx: Ctx): Promise<MfaStatus> {
  const user = requireUser(ctx);
  const row = await getUserRow(ctx.db, user.id);
  const requirement = await getMfaRequirement(ctx, row);
  const [remaining] = await ctx.db
    .select({ count: sql<number>`count(*)::int` })
    .from(mfaBackupCodes)
    .where(and(eq(mfaBackupCodes.userId, user.id), isNull(mfaBackupCodes.usedAt)));
  return {
    enrolled: requirement.totpEnabled || requirement.emailEnabled,
    totpEnabled: requirement.totpEnabled,
    required: requirement.isRoleRequired,
    backupCodesRemaining: remaining?.count ?? 0,
    maskedEmail: maskEmail(row.email),
  };
}

function buildTotp(secretBase32: string, email: string) {
  return new OTPAuth.TOTP({
    issuer: 'Open RON',
    label: email,
    algorithm: 'SHA1',
    digits: mfaConstants.codeDigits,
    period: totpPeriodSeconds,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
  });
}

/** The time step a code belongs to, or null when it is not valid now (one step of drift allowed). */
function matchTotpStep(secretBase32: string, email: string, token: string): number | null {
  const delta = buildTotp(secretBase32, email).validate({ token, window: 1 });
  if (delta === null) return null;
  return Math.floor(Date.now() / 1000 / totpPeriodSeconds) + delta;
}

/**
 * A session that proved only the password may link a first authenticator, never one beside an
 * existing factor: that would let a password alone replace the second factor.
 */
function assertMayEnrolFromPendingSession(ctx: Ctx, factors: FactorRow | null): void {
  if (!ctx.isMfaPending) return;
  if (factors?.totpEnabledAt) {
    throw new AppError(
      403,
      'verification_required',
      'An authenticator is already linked. Sign in with it, an email code or a backup code, then set up the new one.',
    );
  }
  if (factors?.emailEnabledAt) {
    throw new AppError(403, 'verification_required', 'Sign in with an email code or a backup code first, then set up the authenticator.');
  }
}

/** Starts (or restarts) authenticator set-up: a new secret, shown once as QR code and text. */
export async function startTotpSetup(ctx: Ctx): Promise<{ qrCodeDataUrl: string; secret: string; otpauth: string }> {
  const user = requireUser(ctx);
  const factors = await findFactors(ctx.db, user.id);
  assertMayEnrolFromPendingSession(ctx, factors);
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  const totp = buildTotp(secret, user.email);
  const otpauth = totp.toString();
  const sealed = encryptSecret(ctx.secretsKey, secret);
  await ctx.db
    .insert(mfaFactors)
    .values({ userId: user.id, totpPendingSecretEncrypted: sealed, totpPendingFailures: 0 })
    .onConflictDoUpdate({ target: mfaFactors.userId, set: { totpPendingSecretEncrypted: sealed, totpPendingFailures: 0, updatedAt: new Date() } });
  return { qrCodeDataUrl: await QRCode.toDataURL(otpauth, { margin: 1, width: 220 }), secret, otpauth };
}

/**
 * Confirms set-up with a code from the new authenticator. From a pending sign-in that code also
 * completes the sign-in (a new full session; it cannot be used again). From a full session it signs
 * nobody in, so the still-current code stays good for one later sign-in; null is returned.
 */
export async function verifyTotpSetup(ctx: Ctx, token: string, rememberDevice: boolean): Promise<SecondFactorResult | null> {
  const user = requireUser(ctx);
  const factors = await findFactors(ctx.db, user.id);
  if (!factors?.totpPendingSecretEncrypted) throw new AppError(409, 'setup_not_started', 'Start the authenticator set-up first.');
  assertMayEnrolFromPendingSession(ctx, factors);
  const secret = decryptSecret(ctx.secretsKey, factors.totpPendingSecretEncrypted);
  const step = matchTotpStep(secret, user.email, token);
  if (step === null) {
    const [counted] = await ctx.db
      .update(mfaFactors)
      .set({ totpPendingFailures: sql`${mfaFactors.totpPendingFailures} + 1` })
      .where(and(eq(mfaFactors.userId, user.id), eq(mfaFactors.totpPendingSecretEncrypted, factors.totpPendingSecretEncrypted)))
      .returning({ failures: mfaFactors.totpPendingFailures });
    if (counted && counted.failures >= mfaConstants.maxCodeAttempts) {
      await ctx.db
        .update(mfaFactors)
        .set({ totpPendingSecretEncrypted: null, totpPendingFailures: 0 })
        .where(and(eq(mfaFactors.userId, user.id), eq(mfaFactors.totpPendingSecretEncrypted, factors.totpPendingSecretEncrypted)));
      throw new AppError(429, 'setup_locked', 'Too many wrong codes. Start the set-up again for a new QR code.');
    }
    throw new AppError(401, 'invalid_code', mfaMessages.verificationFailed);
  }
  const isSignIn = ctx.isMfaPending;
  await ctx.db.transaction(async (tx) => {
    // Only while this set-up is still pending: two requests with one code cannot both link (and sign in).
    const linked = await tx
      .update(mfaFactors)
      .set({
        totpSecretEncrypted: factors.totpPendingSecretEncrypted,
        totpEnabledAt: new Date(),
        totpPendingSecretEncrypted: null,
        totpPendingFailures: 0,
        totpLastUsedStep: isSignIn ? step : null,
        updatedAt: new Date(),
      })
      .where(and(eq(mfaFactors.userId, user.id), eq(mfaFactors.totpPendingSecretEncrypted, factors.totpPendingSecretEncrypted ?? '')))
      .returning({ userId: mfaFactors.userId });
    if (linked.length === 0) throw new AppError(409, 'setup_not_started', 'Start the authenticator set-up first.');
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'mfa.totp_enabled', data: { userId: user.id } });
  });
  return isSignIn ? completeSecondFactor(ctx, user.id, rememberDevice, 'totp_enrolment') : null;
}

const mfaLocked = () => new AppError(401, 'mfa_locked', 'Too many wrong codes. Please sign in again.');

/**
 * Takes one of the pending session's five tries before any code is checked, in one statement, so
 * guesses sent all at once cannot check more than five codes. Null when none are left. Sessions
 * signed in fully are not counted.
 */
async function takeAttempt(ctx: Ctx): Promise<number | null> {
  if (!ctx.sessionId || !ctx.isMfaPending) return 0;
  const [row] = await ctx.db
    .update(sessions)
    .set({ mfaFailures: sql`${sessions.mfaFailures} + 1` })
    .where(and(eq(sessions.id, ctx.sessionId), isNull(sessions.revokedAt), lt(sessions.mfaFailures, mfaConstants.maxCodeAttempts)))
    .returning({ attempts: sessions.mfaFailures });
  return row ? row.attempts : null;
}

/**
 * During a sign-in, an account over its failure limit (LOGIN_MAX_FAILURES_PER_ACCOUNT) gets no code
 * checked, not even a right one: pending sessions opened earlier must not keep guessing.
 */
async function assertAccountNotLocked(ctx: Ctx): Promise<void> {
  if (!ctx.isMfaPending || !ctx.user) return;
  const failures = await readRateLimit(ctx.db, accountFailuresKey(ctx.user.email));
  if (failures && failures.count >= ctx.config.limits.loginFailuresPerAccount) {
    throwRateLimited('failed sign-in attempts for this account', failures.resetAt);
  }
}

/** A wrong code during a sign-in counts as a failed sign-in of the account, like a wrong password. */
async function countAccountFailure(ctx: Ctx): Promise<void> {
  if (ctx.isMfaPending && ctx.user) await hitRateLimit(ctx.db, accountFailuresKey(ctx.user.email), ctx.config.limits.loginWindowMs);
}

/**
 * A wrong code: it also counts as a failed sign-in of the account, so fresh sign-ins with the
 * password do not buy endless guesses; the fifth try of a pending session ends it.
 */
async function recordFailure(ctx: Ctx, attempt: number, message: string): Promise<never> {
  if (ctx.sessionId && ctx.isMfaPending) {
    await countAccountFailure(ctx);
    if (attempt >= mfaConstants.maxCodeAttempts) {
      await revokeSessionById(ctx, ctx.sessionId);
      throw mfaLocked();
    }
  }
  throw new AppError(401, 'invalid_code', message);
}

async function checkTotpCode(ctx: Ctx, user: { id: string; email: string }, token: string): Promise<boolean> {
  const factors = await findFactors(ctx.db, user.id);
  if (!factors?.totpSecretEncrypted || !factors.totpEnabledAt) return false;
  const step = matchTotpStep(decryptSecret(ctx.secretsKey, factors.totpSecretEncrypted), user.email, token);
  if (step === null) return false;
  // Claim the step atomically: a replayed code (same or earlier step) matches no row.
  const claimed = await ctx.db
    .update(mfaFactors)
    .set({ totpLastUsedStep: step })
    .where(and(eq(mfaFactors.userId, user.id), or(isNull(mfaFactors.totpLastUsedStep), lt(mfaFactors.totpLastUsedStep, step))))
    .returning({ userId: mfaFactors.userId });
  return claimed.length > 0;
}

async function checkBackupCode(ctx: Ctx, userId: string, backupCode: string): Promise<boolean> {
  const codeHash = hashCode(ctx.secretsKey, 'backup', userId, backupCode.toUpperCase());
  const used = await ctx.db
    .update(mfaBackupCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(mfaBackupCodes.userId, userId), eq(mfaBackupCodes.codeHash, codeHash), isNull(mfaBackupCodes.usedAt)))
    .returning({ id: mfaBackupCodes.id });
  return used.length > 0;
}

export interface SecondFactorResult {
  response: LoginResponse;
  token: string;
  expiresAt: Date;
  device: { token: string; expiresAt: Date } | null;
}

/** After a correct second factor: the pending session is replaced by a full one (a new token). */
async function completeSecondFactor(ctx: Ctx, userId: string, rememberDevice: boolean, method: string): Promise<SecondFactorResult> {
  if (ctx.sessionId && ctx.isMfaPending) await revokeSessionById(ctx, ctx.sessionId);
  const row = await getUserRow(ctx.db, userId);
  await clearRateLimit(ctx.db, accountFailuresKey(row.email));
  const session = await createSession(ctx, userId);
  let device: SecondFactorResult['device'] = null;
  if (rememberDevice) {
    const token = createToken();
    const expiresAt = new Date(Date.now() + mfaConstants.rememberDeviceDays * 86_400_000);
    await ctx.db.insert(trustedDevices).values({ userId, tokenHash: hashToken(token), expiresAt, userAgent: ctx.userAgent?.slice(0, 400) ?? null });
    device = { token, expiresAt };
  }
  await ctx.db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, userId));
  ctx.log.info({ event: 'mfa.succeeded', userId, method }, 'second factor verified');
  const user = toSessionUser(row);
  // A person whose Notarize Now request is still in setup goes back to it.
  const nextAction = await findGnwNextAction(ctx.db, user);
  return {
    token: session.token,
    expiresAt: session.expiresAt,
    device,
    response: { user, sessionToken: session.token, mfa_required: false, enrolled: true, twofaRequired: false, ticket: null, nextAction },
  };
}

/** POST /api/auth/mfa/verify: an authenticator code or a backup code. */
export async function verifySecondFactor(
  ctx: Ctx,
  input: { token?: string | undefined; backupCode?: string | undefined; rememberDevice: boolean },
  failureMessage: string = mfaMessages.verificationFailed,
): Promise<SecondFactorResult> {
  const user = requireUser(ctx);
  await assertAccountNotLocked(ctx);
  const attempt = await takeAttempt(ctx);
  if (attempt === null) {
    if (ctx.sessionId) await revokeSessionById(ctx, ctx.sessionId);
    throw mfaLocked();
  }
  const isValid = input.token ? await checkTotpCode(ctx, user, input.token) : input.backupCode ? await checkBackupCode(ctx, user.id, input.backupCode) : false;
  if (!isValid) return recordFailure(ctx, attempt, failureMessage);
  return completeSecondFactor(ctx, user.id, input.rememberDevice, input.token ? 'totp' : 'backup_code');
}

/** The login page's two-factor step says this for any wrong code. */
const invalidTwoFactorCode = 'Invalid 2FA code';

/** POST /api/auth/2fa/verify: the inline step of the login page, by ticket (the pending session token). */
export async function verifyTwoFactorTicket(ctx: Ctx, ticket: string, code: string, rememberDevice: boolean): Promise<SecondFactorResult> {
  const resolved = await resolveSession(ctx.db, ctx.sessionCache, ticket);
  if (!resolved?.isMfaPending) throw new AppError(401, 'invalid_ticket', 'Your sign-in expired. Please sign in again.');
  const ticketCtx: Ctx = { ...ctx, user: resolved.user, sessionId: resolved.sessionId, isMfaPending: true };
  const normalized = code.replace(/\s/g, '');
  if (/^\d{6}$/.test(normalized)) return verifySecondFactor(ticketCtx, { token: normalized, rememberDevice }, invalidTwoFactorCode);
  if (/^[A-Za-z0-9]{1,12}$/.test(normalized)) {
    return verifySecondFactor(ticketCtx, { backupCode: normalized.toUpperCase(), rememberDevice }, invalidTwoFactorCode);
  }
  return verifySecondFactor(ticketCtx, { rememberDevice }, invalidTwoFactorCode);
}

/** New single-use backup codes, shown once; earlier unused codes stop working. */
export async function generateBackupCodes(ctx: Ctx): Promise<string[]> {
  const user = requireUser(ctx);
  const row = await getUserRow(ctx.db, user.id);
  const requirement = await getMfaRequirement(ctx, row);
  if (!requirement.totpEnabled && !requirement.emailEnabled) {
    throw conflict('Set up an authenticator app or email codes before creating backup codes.');
  }
  const codes = Array.from({ length: backupCodeCount }, () =>
    Array.from({ length: backupCodeLength }, () => backupCodeAlphabet[randomInt(backupCodeAlphabet.length)]).join(''),
  );
  await ctx.db.transaction(async (tx) => {
    await tx.delete(mfaBackupCodes).where(and(eq(mfaBackupCodes.userId, user.id), isNull(mfaBackupCodes.usedAt)));
    await tx.insert(mfaBackupCodes).values(codes.map((code) => ({ userId: user.id, codeHash: hashCode(ctx.secretsKey, 'backup', user.id, code) })));
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'mfa.backup_codes_generated', data: { userId: user.id, count: codes.length } });
  });
  return codes;
}

/**
 * Sends a 6-digit code by email, honouring the 120 s cooldown and an hourly cap. A lock per user
 * makes the check and the new code one step, so racing requests cannot each send a code.
 */
export async function requestEmailCode(ctx: Ctx): Promise<{ maskedEmail: string; cooldownSeconds: number }> {
  const user = requireUser(ctx);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`mfa-email:${user.id}`}))`);
    const [latest] = await tx
      .select({ createdAt: mfaEmailCodes.createdAt })
      .from(mfaEmailCodes)
      .where(eq(mfaEmailCodes.userId, user.id))
      .orderBy(desc(mfaEmailCodes.createdAt))
      .limit(1);
    const cooldownMs = mfaConstants.emailResendCooldownSeconds * 1000;
    if (latest && Date.now() - latest.createdAt.getTime() < cooldownMs) {
      const seconds = Math.max(1, Math.ceil((latest.createdAt.getTime() + cooldownMs - Date.now()) / 1000));
      throw new AppError(429, 'code_already_sent', mfaMessages.codeAlreadySent(seconds), { retryAfterSeconds: seconds }, { 'retry-after': String(seconds) });
    }
    const hourly = await hitRateLimit(tx, `mfa-email:user:${user.id}`, 3600_000);
    if (hourly.count > ctx.config.limits.emailCodesPerUserPerHour) throwRateLimited('email codes requested', hourly.resetAt);
    await tx
      .update(mfaEmailCodes)
      .set({ consumedAt: new Date() })
      .where(and(eq(mfaEmailCodes.userId, user.id), isNull(mfaEmailCodes.consumedAt)));
    await tx.insert(mfaEmailCodes).values({
      userId: user.id,
      codeHash: hashCode(ctx.secretsKey, 'email', user.id, code),
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + mfaConstants.emailCodeLifetimeMs),
    });
    await queueEmail(tx, {
      to: user.email,
      kind: 'mfa_email_code',
      ...mailTemplates.mfaEmailCode.render({ name: user.name, code }),
    });
  });
  return { maskedEmail: maskEmail(user.email), cooldownSeconds: mfaConstants.emailResendCooldownSeconds };
}

/** Checks an emailed code: five wrong tries lock it; a correct one completes the sign-in. */
export async function verifyEmailCode(ctx: Ctx, code: string, rememberDevice: boolean): Promise<SecondFactorResult> {
  const user = requireUser(ctx);
  await assertAccountNotLocked(ctx);
  const [current] = await ctx.db
    .select()
    .from(mfaEmailCodes)
    .where(and(eq(mfaEmailCodes.userId, user.id), isNull(mfaEmailCodes.consumedAt), gt(mfaEmailCodes.expiresAt, new Date())))
    .orderBy(desc(mfaEmailCodes.createdAt))
    .limit(1);
  if (!current) throw new AppError(401, 'invalid_code', mfaMessages.emailVerifyFailed);
  if (current.codeHash !== hashCode(ctx.secretsKey, 'email', user.id, code)) {
    // Counted in one statement: wrong codes sent all at once cannot overwrite each other's count.
    const [counted] = await ctx.db
      .update(mfaEmailCodes)
      .set({
        failures: sql`${mfaEmailCodes.failures} + 1`,
        consumedAt: sql`case when ${mfaEmailCodes.failures} + 1 >= ${mfaConstants.maxCodeAttempts} then now() end`,
      })
      .where(and(eq(mfaEmailCodes.id, current.id), isNull(mfaEmailCodes.consumedAt)))
      .returning({ failures: mfaEmailCodes.failures });
    await countAccountFailure(ctx);
    if (counted && counted.failures >= mfaConstants.maxCodeAttempts) throw new AppError(401, 'code_locked', 'Too many wrong codes. Request a new code.');
    throw new AppError(401, 'invalid_code', mfaMessages.emailVerifyFailed);
  }
  const consumed = await ctx.db
    .update(mfaEmailCodes)
    .set({ consumedAt: new Date() })
    .where(and(eq(mfaEmailCodes.id, current.id), isNull(mfaEmailCodes.consumedAt)))
    .returning({ id: mfaEmailCodes.id });
  if (consumed.length === 0) throw new AppError(401, 'invalid_code', mfaMessages.emailVerifyFailed);
  await ctx.db
    .insert(mfaFactors)
    .values({ userId: user.id, emailEnabledAt: new Date() })
    .onConflictDoUpdate({ target: mfaFactors.userId, set: { emailEnabledAt: sql`coalesce(${mfaFactors.emailEnabledAt}, now())` } });
  return completeSecondFactor(ctx, user.id, rememberDevice, 'email');
}

/** Forgets every remembered device of the signed-in user. */
export async function revokeTrustedDevices(ctx: Pick<Ctx, 'db'>, userId: string): Promise<number> {
  const rows = await ctx.db
    .update(trustedDevices)
    .set({ revokedAt: new Date() })
    .where(and(eq(trustedDevices.userId, userId), isNull(trustedDevices.revokedAt)))
    .returning({ id: trustedDevices.id });
  return rows.length;
}
