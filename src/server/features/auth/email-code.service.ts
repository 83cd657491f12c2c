import { randomInt, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { LoginResponse } from '#shared/auth.ts';
import { emailSignInConstants } from '#shared/gnw.ts';
import { mfaMessages } from '#shared/mfa.ts';
import { emailSignInCodes, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { clearRateLimit, hitRateLimit, readRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { hashCode } from '#server/lib/secrets.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { startNewAccountSession, type SignedIn } from './auth.service.ts';
import { markEmailVerified } from './email-verification.service.ts';
import { getMfaRequirement } from './mfa.service.ts';
import { accountFailuresKey, findUserByEmail, isUniqueViolation, normalizeEmail, toSessionUser, type UserRow } from './users.ts';

/**
 * Sign in, or create a signer account, with a 6-digit code mailed to the address (decision 051): the
 * way into Notarize Now for someone with a document and no password. Only the code's keyed hash is
 * stored; a code lasts 10 minutes and five wrong tries, and a new one ends the older ones. It opens
 * only plain signer and witness accounts without a second factor: anything more needs the password.
 */

const codePurpose = 'email-sign-in';
/** The roles an emailed code alone may sign in: the people a Notarize Now job is for. */
const codeSignInRoles: readonly string[] = ['signer', 'witness'];

export const emailCodeMessages = {
  nameNeeded: 'There is no account for this address yet. Enter your full name to create one, and we will email you a code.',
  codeSent: (email: string) => `We emailed a 6-digit code to ${email}. It works for 10 minutes.`,
  noLiveCode: 'This code has expired or was already used. Ask for a new code.',
  wrongCode: (triesLeft: number) => `That code is not right. You have ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left.`,
  codeDead: 'That code is not right, and that was the fifth try: this code no longer works. Ask for a new code.',
  passwordNeeded:
    'Sign in with your password: this account is protected by more than an emailed code. If you have no password yet, use Forgot password on the sign-in page.',
  disabled: 'This account is disabled. Please contact your administrator.',
} as const;

export interface EmailCodeStart {
  message: string;
  isNewAccount: boolean;
  isCodeSent: boolean;
}

/**
 * Mails a code to the address. The answer is the same for an address with an account and without,
 * except `isNewAccount` (registration already tells whether an address is taken, decision 051); a
 * new account needs a name first. Limits: per network every call, per address every code sent, and
 * 30 s between two codes to one address.
 */
export async function startEmailCodeSignIn(ctx: Ctx, input: { email: string; name?: string | undefined }): Promise<EmailCodeStart> {
  const email = normalizeEmail(input.email);
  const perNetwork = await hitRateLimit(ctx.db, `email-code:address:${ctx.ipAddress}`, 3600_000);
  if (perNetwork.count > ctx.config.limits.registrationsPerAddressPerHour) throwRateLimited('sign-in codes requested from this network', perNetwork.resetAt);
  const user = await findUserByEmail(ctx.db, email);
  const isNewAccount = user === null;
  if (isNewAccount && !input.name) return { message: emailCodeMessages.nameNeeded, isNewAccount, isCodeSent: false };

  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await ctx.db.transaction(async (tx) => {
    // One step per address: two requests at once cannot both pass the cooldown and both mail a code.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`email-sign-in:${email}`}))`);
    const [latest] = await tx
      .select({ createdAt: emailSignInCodes.createdAt })
      .from(emailSignInCodes)
      .where(eq(emailSignInCodes.email, email))
      .orderBy(desc(emailSignInCodes.createdAt))
      .limit(1);
    const cooldownMs = emailSignInConstants.resendCooldownSeconds * 1000;
    if (latest && Date.now() - latest.createdAt.getTime() < cooldownMs) {
      const seconds = Math.max(1, Math.ceil((latest.createdAt.getTime() + cooldownMs - Date.now()) / 1000));
      throw new AppError(429, 'code_already_sent', mfaMessages.codeAlreadySent(seconds), { retryAfterSeconds: seconds }, { 'retry-after': String(seconds) });
    }
    const perAddress = await hitRateLimit(tx, `email-code:email:${email}`, 3600_000);
    if (perAddress.count > ctx.config.limits.emailCodesPerUserPerHour) throwRateLimited('codes requested for this address', perAddress.resetAt);
    await tx
      .update(emailSignInCodes)
      .set({ usedAt: new Date() })
      .where(and(eq(emailSignInCodes.email, email), isNull(emailSignInCodes.usedAt)));
    await tx.insert(emailSignInCodes).values({
      email,
      codeHash: hashCode(ctx.secretsKey, codePurpose, email, code),
      name: isNewAccount ? (input.name ?? null) : null,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + emailSignInConstants.lifetimeMs),
    });
    await queueEmail(tx, {
      to: email,
      kind: 'email_sign_in_code',
      ...mailTemplates.emailSignInCode.render({ name: user?.name ?? input.name ?? '', code, isNewAccount }),
    });
  });
  ctx.log.info({ event: 'email_code.sent', isNewAccount }, 'sign-in code queued');
  return { message: emailCodeMessages.codeSent(email), isNewAccount, isCodeSent: true };
}

function isSameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(computed, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks the code. The right one creates the signer account of a new address (its email confirmed,
 * no password) or signs in a plain signer or witness account, and starts the session exactly as
 * registration does (a role that must use a second factor gets only the step to set one up). A wrong
 * one counts as a failed sign-in of the address; the fifth ends the code.
 */
export async function verifyEmailCodeSignIn(ctx: Ctx, input: { email: string; code: string }): Promise<{ response: LoginResponse; signedIn: SignedIn }> {
  const { limits } = ctx.config;
  const email = normalizeEmail(input.email);
  const perNetwork = await hitRateLimit(ctx.db, `login:address:${ctx.ipAddress}`, limits.loginWindowMs);
  if (perNetwork.count > limits.loginAttemptsPerAddress) throwRateLimited('sign-in attempts from this network', perNetwork.resetAt);
  const accountKey = accountFailuresKey(email);
  const failures = await readRateLimit(ctx.db, accountKey);
  if (failures && failures.count >= limits.loginFailuresPerAccount) throwRateLimited('failed sign-in attempts for this account', failures.resetAt);

  const [current] = await ctx.db
    .select()
    .from(emailSignInCodes)
    .where(and(eq(emailSignInCodes.email, email), isNull(emailSignInCodes.usedAt), gt(emailSignInCodes.expiresAt, new Date())))
    .orderBy(desc(emailSignInCodes.createdAt))
    .limit(1);
  if (!current) throw new AppError(400, 'email_code_invalid', emailCodeMessages.noLiveCode, { triesLeft: 0 });
  if (!isSameHash(current.codeHash, hashCode(ctx.secretsKey, codePurpose, email, input.code))) {
    // Counted in one statement: wrong codes sent all at once cannot overwrite each other's count.
    const [counted] = await ctx.db
      .update(emailSignInCodes)
      .set({
        attempts: sql`${emailSignInCodes.attempts} + 1`,
        usedAt: sql`case when ${emailSignInCodes.attempts} + 1 >= ${emailSignInConstants.maxAttempts} then now() end`,
      })
      .where(and(eq(emailSignInCodes.id, current.id), isNull(emailSignInCodes.usedAt)))
      .returning({ attempts: emailSignInCodes.attempts });
    await hitRateLimit(ctx.db, accountKey, limits.loginWindowMs);
    ctx.log.info({ event: 'email_code.wrong' }, 'wrong sign-in code');
    const triesLeft = counted ? Math.max(0, emailSignInConstants.maxAttempts - counted.attempts) : 0;
    if (triesLeft === 0) throw new AppError(400, 'email_code_invalid', emailCodeMessages.codeDead, { triesLeft: 0 });
    throw new AppError(400, 'email_code_invalid', emailCodeMessages.wrongCode(triesLeft), { triesLeft });
  }
  // Used once: of two requests with the same code, one takes it.
  const taken = await ctx.db
    .update(emailSignInCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(emailSignInCodes.id, current.id), isNull(emailSignInCodes.usedAt)))
    .returning({ name: emailSignInCodes.name });
  if (taken.length === 0) throw new AppError(400, 'email_code_invalid', emailCodeMessages.noLiveCode, { triesLeft: 0 });

  const user = (await findUserByEmail(ctx.db, email)) ?? (await createCodeAccount(ctx, email, taken[0]?.name ?? null));
  await refuseUnlessCodeMayOpen(ctx, user);
  if (await markEmailVerified(ctx.db, user.id, email, 'email_code')) {
    await appendAuditEvent({ ...ctx, user: null }, { action: 'user.email_verified', data: { userId: user.id, userName: user.name, via: 'email_code' } });
  }
  await clearRateLimit(ctx.db, accountKey);
  const [signedInRow] = await ctx.db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, user.id)).returning();
  ctx.log.info({ event: 'email_code.signed_in', userId: user.id }, 'signed in with an emailed code');
  return startNewAccountSession(ctx, signedInRow ?? user);
}

/** The signer account of an address that had none, its email confirmed by the code just given. */
async function createCodeAccount(ctx: Ctx, email: string, name: string | null): Promise<UserRow> {
  // The code was asked for before an account existed, with no name: start again to give one.
  if (!name) throw new AppError(400, 'email_code_invalid', emailCodeMessages.nameNeeded, { triesLeft: 0 });
  try {
    return await ctx.db.transaction(async (tx) => {
      const now = new Date();
      const [created] = await tx
        .insert(users)
        .values({ email, name, passwordHash: null, roles: ['signer'], status: 'active', emailVerifiedAt: now, emailVerifiedVia: 'email_code' })
        .returning();
      if (!created) throw new Error('user insert returned no row');
      await appendAuditEvent(
        { ...ctx, db: tx, user: toSessionUser(created) },
        { action: 'user.created_with_email_code', data: { userId: created.id, userName: created.name, email: created.email, roles: ['signer'] } },
      );
      ctx.log.info({ event: 'account.created_with_email_code', userId: created.id }, 'signer account created with an emailed code');
      return created;
    });
  } catch (error) {
    // The address got an account meanwhile (registration in another tab): that account is checked instead.
    if (!isUniqueViolation(error)) throw error;
    const existing = await findUserByEmail(ctx.db, email);
    if (!existing) throw error;
    return existing;
  }
}

/** As sign-in refuses a closed account; and a code opens only a plain signer or witness account. */
async function refuseUnlessCodeMayOpen(ctx: Ctx, user: UserRow): Promise<void> {
  if (user.status === 'disabled') throw new AppError(403, 'account_disabled', emailCodeMessages.disabled);
  if (user.status === 'rejected') {
    const application = user.roles.includes('notary') ? 'notary application' : user.roles.includes('title') ? 'title company application' : 'application';
    throw new AppError(
      403,
      'account_rejected',
      `Your ${application} was not approved, so this account cannot sign in. The email we sent you gives the reason and whom to contact.`,
      'The application was not approved.',
    );
  }
  const hasOnlyCodeRoles = user.roles.length > 0 && user.roles.every((role) => codeSignInRoles.includes(role));
  const mfa = await getMfaRequirement(ctx, user);
  if (user.status !== 'active' || !hasOnlyCodeRoles || mfa.totpEnabled || mfa.emailEnabled) {
    ctx.log.info({ event: 'email_code.password_required', userId: user.id }, 'emailed code refused: the account needs its password');
    throw new AppError(409, 'password_sign_in_required', emailCodeMessages.passwordNeeded);
  }
}
