import type { LoginResponse, NextAction } from './auth.ts';
import { getEffectiveRole, getRoleHome, hasElevatedRole, type RoleBearer } from './roles.ts';

export const dashboardFallbackPath = '/dashboard';

/** Login query parameters and their aliases, as the login page accepts them. */
export interface LoginQuery {
  jobId: string | null;
  signerId: string | null;
  next: string | null;
  resetToken: string | null;
  /**
   * The address an invitation was sent to, from the invitation's sign-in link: it only pre-fills the
   * email field, and proves nothing (the password or the emailed link does).
   */
  email: string | null;
}

const invitedEmailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function readLoginQuery(params: URLSearchParams): LoginQuery {
  const first = (...names: string[]) => {
    for (const name of names) {
      const value = params.get(name)?.trim();
      if (value) return value;
    }
    return null;
  };
  return {
    jobId: first('jobId', 'job_id', 'job'),
    signerId: first('signerId', 'signer_id', 'signer'),
    next: first('next'),
    resetToken: first('resetToken'),
    email: readInvitedEmail(first('email')),
  };
}

function readInvitedEmail(value: string | null): string | null {
  const email = value?.toLowerCase() ?? null;
  return email && email.length <= 254 && invitedEmailPattern.test(email) ? email : null;
}

/**
 * Where "Sign in to accept" on an invitation goes: sign in, then back to the invitation, with the
 * address it was sent to in the email field.
 */
export function getSignInToAcceptPath({ token, jobId, email }: { token: string; jobId: string | null; email: string | null }): string {
  const query = new URLSearchParams({ next: `/claim/${token}` });
  if (jobId) query.set('jobId', jobId);
  if (email) query.set('email', email);
  return `/login?${query.toString()}`;
}

/**
 * `next` is accepted only if it starts with / and is neither protocol-relative
 * nor an http(s) URL. Backslashes count as slashes (browsers treat `/\evil` as `//evil`).
 */
export function isSafeNextPath(next: string | null | undefined): next is string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2048) return false;
  if (!next.startsWith('/')) return false;
  const normalized = next.replace(/\\/g, '/');
  if (normalized.startsWith('//')) return false;
  if (/^\/*https?:/i.test(normalized)) return false;
  if ([...next].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)) return false;
  return true;
}

/**
 * Paths under /session and /signing are never post-login targets. The path is
 * compared the way the router will see it: dot segments resolved, percent-escapes decoded and
 * letters folded (the router matches case-insensitively), so `/Session` or `/x/../signing` count too.
 */
export function isSessionPath(path: string): boolean {
  let pathname: string;
  try {
    pathname = new URL(path, 'http://localhost').pathname;
  } catch {
    return true;
  }
  try {
    pathname = decodeURIComponent(pathname);
  } catch {
    // a malformed escape stays as written
  }
  return /^\/+(session|signing)(\/|$)/i.test(pathname);
}

/** A next path usable after sign-in, or null. */
export function getSafeNextPath(next: string | null | undefined): string | null {
  if (!isSafeNextPath(next)) return null;
  if (isSessionPath(next)) return null;
  return next;
}

/** Instant-notary (Notarize Now / GNW) state kept in the browser. */
export interface InstantNotaryState {
  /** A fresh-start flag: the person began anew, so earlier instant-notary job metadata is dropped. */
  isFreshStart: boolean;
  /** The job id of an instant-notary job in progress, if any. */
  activeJobId: string | null;
}

export type PostLoginDecision =
  | { kind: 'mfa'; path: '/mfa/verify' | '/mfa/setup' }
  | { kind: 'two-factor'; ticket: string }
  | { kind: 'navigate'; path: string; clearInstantNotaryJob: boolean };

export interface PostLoginInput {
  response: Pick<LoginResponse, 'mfa_required' | 'enrolled' | 'twofaRequired' | 'ticket' | 'nextAction'> & {
    user: RoleBearer | null;
  };
  next: string | null;
  instantNotary: InstantNotaryState;
}

function buildSetupPath(pendingSetup: NonNullable<NextAction['pendingSetup']>): string {
  const params = new URLSearchParams({ jobId: pendingSetup.jobId });
  if (pendingSetup.start) params.set('start', pendingSetup.start);
  return `/setup?${params.toString()}`;
}

/** The one place that decides where a person goes after the login call answers. */
export function decidePostLogin(input: PostLoginInput): PostLoginDecision {
  const { response, instantNotary } = input;
  if (response.mfa_required) {
    return { kind: 'mfa', path: response.enrolled ? '/mfa/verify' : '/mfa/setup' };
  }
  if (response.twofaRequired && response.ticket) {
    return { kind: 'two-factor', ticket: response.ticket };
  }
  return { kind: 'navigate', ...decideAuthenticatedPath(response.user, input.next, response.nextAction, instantNotary) };
}

/** Where an authenticated person goes: also used after MFA verification completes. */
export function decideAuthenticatedPath(
  user: RoleBearer | null,
  next: string | null,
  nextAction: NextAction | null,
  instantNotary: InstantNotaryState,
): { path: string; clearInstantNotaryJob: boolean } {
  const safeNext = getSafeNextPath(next);
  const roleHome = user ? getRoleHome(getEffectiveRole(user)) : dashboardFallbackPath;
  if (hasElevatedRole(user)) {
    return { path: safeNext ?? roleHome, clearInstantNotaryJob: false };
  }
  const clearInstantNotaryJob = instantNotary.isFreshStart;
  const activeJobId = clearInstantNotaryJob ? null : instantNotary.activeJobId;
  if (nextAction?.nextAction === 'gnw-setup' && nextAction.jobId) {
    return { path: `/gnw/setup?jobId=${encodeURIComponent(nextAction.jobId)}`, clearInstantNotaryJob };
  }
  if (nextAction?.pendingSetup) {
    return { path: buildSetupPath(nextAction.pendingSetup), clearInstantNotaryJob };
  }
  if (activeJobId && (!safeNext || safeNext === '/gnw-login')) {
    return { path: '/gnw/start', clearInstantNotaryJob };
  }
  const routeFromServer = getSafeNextPath(nextAction?.route ?? null);
  return { path: safeNext ?? routeFromServer ?? roleHome, clearInstantNotaryJob };
}
