import type { LoginResponse } from '#shared/auth.ts';
import { decideAuthenticatedPath } from '#shared/auth-routing.ts';
import { clearInstantNotaryJob, readInstantNotaryState, storeSignedIn, storageKeys, type PendingMfaRecord } from '#web/lib/browser-storage.ts';

/** After the second factor: keep the user, drop the pending-MFA record, and say where to go. */
export function finishSecondFactor(response: LoginResponse, pending: PendingMfaRecord | null): string {
  if (!response.user) throw new Error('The server did not return the signed-in user.');
  storeSignedIn(response.user, response.sessionToken);
  sessionStorage.removeItem(storageKeys.pendingMfa);
  const decision = decideAuthenticatedPath(response.user, pending?.safeNext ?? null, response.nextAction, readInstantNotaryState());
  if (decision.clearInstantNotaryJob) clearInstantNotaryJob();
  return decision.path;
}
