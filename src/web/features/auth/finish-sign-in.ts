import type { LoginResponse } from '#shared/auth.ts';
import { decideAuthenticatedPath, decidePostLogin } from '#shared/auth-routing.ts';
import { clearInstantNotaryJob, readInstantNotaryState, storePendingMfa, storeSignedIn, storageKeys, type PendingMfaRecord } from '#web/lib/browser-storage.ts';

/** After the second factor: keep the user, drop the pending-MFA record, and say where to go. */
export function finishSecondFactor(response: LoginResponse, pending: PendingMfaRecord | null): string {
  if (!response.user) throw new Error('The server did not return the signed-in user.');
  storeSignedIn(response.user, response.sessionToken);
  sessionStorage.removeItem(storageKeys.pendingMfa);
  const decision = decideAuthenticatedPath(response.user, pending?.safeNext ?? null, response.nextAction, readInstantNotaryState());
  if (decision.clearInstantNotaryJob) clearInstantNotaryJob();
  return decision.path;
}

/**
 * After registration or an invitation claim: a role that must use a second factor got only a
 * pending session, so keep the pending-MFA record (as sign-in does) and return the MFA page to go
 * to. Otherwise store the signed-in user and return null.
 */
export function startNewAccountSession(response: LoginResponse, details: { email: string; safeNext: string | null; jobId: string | null }): string | null {
  const decision = decidePostLogin({ response, next: details.safeNext, instantNotary: readInstantNotaryState() });
  if (decision.kind === 'mfa') {
    storePendingMfa({ jobId: details.jobId, signerId: null, safeNext: details.safeNext, rememberDevice: true, email: details.email, response });
    return decision.path;
  }
  if (response.user) storeSignedIn(response.user, response.sessionToken);
  return null;
}
