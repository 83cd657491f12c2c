import { eq } from 'drizzle-orm';
import type { registerNotaryInputSchema, registerTitleCompanyInputSchema, registerUserInputSchema } from '#shared/auth.ts';
import { authMessages, type LoginResponse, type RegisterResponse, type SessionUser } from '#shared/auth.ts';
import type { z } from 'zod';
import { hasAnyRole } from '#shared/roles.ts';
import { notaryProfiles, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '#server/lib/crypto.ts';
import { AppError, conflict, unauthorized } from '#server/lib/errors.ts';
import { clearRateLimit, hitRateLimit, readRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { findGnwNextAction } from '#server/features/gnw/gnw-jobs.service.ts';
import { queueEmailVerification } from './email-verification.service.ts';
import { getMfaRequirement, isTrustedDevice } from './mfa.service.ts';
import { createSession, revokeSessionByToken } from './sessions.service.ts';
import { accountFailuresKey, findUserByEmail, isUniqueViolation, normalizeEmail, toSessionUser, type UserRow } from './users.ts';

export interface LoginCommand {
  email: string;
  password: string;
  rememberDevice: boolean;
  jobId?: string | undefined;
  signerId?: string | undefined;
}

export interface SignedIn {
  user: SessionUser;
  token: string;
  expiresAt: Date;
}

/**
 * Checks a password with limits per address and per account. Unknown accounts and wrong passwords
 * get the same answer after the same work, so the reply never tells whether an account exists.
 */
export async function logIn(ctx: Ctx, command: LoginCommand): Promise<{ response: LoginResponse; signedIn: SignedIn }> {
  const { limits } = ctx.config;
  const email = normalizeEmail(command.email);
  const addressHits = await hitRateLimit(ctx.db, `login:address:${ctx.ipAddress}`, limits.loginWindowMs);
  if (addressHits.count > limits.loginAttemptsPerAddress) throwRateLimited('sign-in attempts from this network', addressHits.resetAt);
  const accountKey = accountFailuresKey(email);
  const accountFailures = await readRateLimit(ctx.db, accountKey);
  if (accountFailures && accountFailures.count >= limits.loginFailuresPerAccount) {
    throwRateLimited('failed sign-in attempts for this account', accountFailures.resetAt);
  }

  const user = await findUserByEmail(ctx.db, email);
  const isValid = user?.passwordHash ? await verifyPassword(user.passwordHash, command.password) : (await verifyAgainstDummy(command.password), false);
  if (!user || !isValid) {
    await hitRateLimit(ctx.db, accountKey, limits.loginWindowMs);
    ctx.log.info({ event: 'login.failed' }, 'sign-in refused');
    throw new AppError(401, 'invalid_credentials', authMessages.invalidCredentials);
  }
  if (user.status === 'disabled') {
    throw new AppError(403, 'account_disabled', 'This account is disabled. Please contact your administrator.');
  }
  if (user.status === 'rejected') {
    const application = user.roles.includes('notary') ? 'notary application' : user.roles.includes('title') ? 'title company application' : 'application';
    throw new AppError(
      403,
      'account_rejected',
      `Your ${application} was not approved, so this account cannot sign in. The email we sent you gives the reason and whom to contact.`,
      'The application was not approved.',
    );
  }
  const mfa = await getMfaRequirement(ctx, user);
  const needsSecondFactor = (mfa.isRoleRequired || mfa.totpEnabled || mfa.emailEnabled) && !(await isTrustedDevice(ctx.db, user.id, ctx.deviceToken));
  const isEnrolled = mfa.totpEnabled || mfa.emailEnabled;
  if (needsSecondFactor) {
    ctx.log.info({ event: 'login.second_factor', userId: user.id }, 'password accepted, second factor needed');
    return startSecondFactorStep(ctx, user, { isInlineStep: !mfa.isRoleRequired && mfa.totpEnabled, isEnrolled });
  }
  // Failures are forgiven only once sign-in is complete: a right password alone does not reset the
  // count, or someone holding it could guess second-factor codes without end.
  await clearRateLimit(ctx.db, accountKey);
  await ctx.db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, user.id));
  ctx.log.info({ event: 'login.succeeded', userId: user.id }, 'signed in');
  return startFullSession(ctx, user, isEnrolled);
}

type SessionStart = { response: LoginResponse; signedIn: SignedIn };

/**
 * The password (or a new account's own choice of it) is right, but a second factor is still due:
 * a pending session (ten minutes) that may only set up and pass it. `isInlineStep` answers on the
 * login page (a voluntary authenticator) instead of the MFA pages.
 */
async function startSecondFactorStep(ctx: Ctx, user: UserRow, step: { isInlineStep: boolean; isEnrolled: boolean }): Promise<SessionStart> {
  const pending = await createSession(ctx, user.id, { isMfaPending: true });
  return {
    signedIn: { user: toSessionUser(user), token: pending.token, expiresAt: pending.expiresAt },
    response: {
      user: null,
      sessionToken: null,
      mfa_required: !step.isInlineStep,
      enrolled: step.isEnrolled,
      twofaRequired: step.isInlineStep,
      ticket: pending.token,
      nextAction: null,
    },
  };
}

async function startFullSession(ctx: Ctx, user: UserRow, isEnrolled: boolean): Promise<SessionStart> {
  const session = await createSession(ctx, user.id);
  const sessionUser = toSessionUser(user);
  // A person whose Notarize Now request is still in setup goes back to it.
  const nextAction = await findGnwNextAction(ctx.db, sessionUser);
  return {
    signedIn: { user: sessionUser, token: session.token, expiresAt: session.expiresAt },
    response: {
      user: sessionUser,
      sessionToken: session.token,
      mfa_required: false,
      enrolled: isEnrolled,
      twofaRequired: false,
      ticket: null,
      nextAction,
    },
  };
}

/**
 * The first session of a new account (registration, an invitation claim). A role in
 * MFA_REQUIRED_ROLES gets what sign-in gives it: a session that may only set up and pass a second
 * factor, so no account of such a role ever works without one.
 */
export async function startNewAccountSession(ctx: Ctx, user: UserRow): Promise<SessionStart> {
  if (hasAnyRole({ roles: user.roles }, ctx.config.mfa.requiredRoles)) {
    return startSecondFactorStep(ctx, user, { isInlineStep: false, isEnrolled: false });
  }
  return startFullSession(ctx, user, false);
}

/** Ends every session the request presented: a bearer token and a cookie may name different ones. */
export async function logOut(ctx: Ctx, tokens: readonly string[]): Promise<void> {
  for (const token of tokens) await revokeSessionByToken(ctx, token);
}

export function getCurrentUser(ctx: Ctx): SessionUser {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

type RegisterUserCommand = z.output<typeof registerUserInputSchema>;
type RegisterNotaryCommand = z.output<typeof registerNotaryInputSchema>;
type RegisterTitleCompanyCommand = z.output<typeof registerTitleCompanyInputSchema>;

export type RegistrationCommand =
  ({ kind: 'user' } & RegisterUserCommand) | ({ kind: 'notary' } & RegisterNotaryCommand) | ({ kind: 'title-company' } & RegisterTitleCompanyCommand);

const emailTakenMessage = 'An account with this email already exists. Sign in instead, or use Forgot password.';

const registrationMessages = {
  user: 'Your account is ready.',
  notary: 'Your notary account was created and is pending approval. An administrator will review your commission before you can take notarizations.',
  'title-company':
    'Your title company account was created and is pending approval. An administrator will review it before your team can create signing requests.',
} as const;

/** Creates an account of one of the three self-service kinds and signs the person in. */
export async function register(ctx: Ctx, command: RegistrationCommand): Promise<{ response: RegisterResponse; signedIn: SignedIn }> {
  const hourly = await hitRateLimit(ctx.db, `register:address:${ctx.ipAddress}`, 3600_000);
  if (hourly.count > ctx.config.limits.registrationsPerAddressPerHour) throwRateLimited('registrations from this network', hourly.resetAt);
  if (await findUserByEmail(ctx.db, command.email)) throw conflict(emailTakenMessage);
  const passwordHash = await hashPassword(command.password);
  const isPending = command.kind !== 'user';
  const roles = command.kind === 'notary' ? ['notary'] : command.kind === 'title-company' ? ['title'] : ['signer'];
  let row;
  try {
    row = await ctx.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(users)
        .values({ email: command.email, name: command.name, passwordHash, roles, status: isPending ? 'pending' : 'active' })
        .returning();
      if (!created) throw new Error('user insert returned no row');
      if (command.kind === 'notary') {
        await tx.insert(notaryProfiles).values({
          userId: created.id,
          commissionState: command.commissionState,
          commissionNumber: command.commissionNumber,
          commissionExpiresOn: command.commissionExpiresOn,
          county: command.county,
        });
      } else if (command.kind === 'title-company') {
        const [company] = await tx.insert(titleCompanies).values({ name: command.companyName, createdBy: created.id }).returning();
        if (!company) throw new Error('company insert returned no row');
        await tx.insert(titleCompanyMembers).values({ companyId: company.id, userId: created.id, role: 'title' });
      }
      await queueEmailVerification({ ...ctx, db: tx }, created);
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(emailTakenMessage);
    throw error;
  }
  ctx.log.info({ event: 'account.registered', userId: row.id, kind: command.kind }, 'account registered');
  const { response, signedIn } = await startNewAccountSession(ctx, row);
  return { signedIn, response: { ...response, pendingApproval: isPending, message: registrationMessages[command.kind] } };
}
