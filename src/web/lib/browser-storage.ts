import type { LoginResponse, SessionUser } from '#shared/auth.ts';
import type { InstantNotaryState } from '#shared/auth-routing.ts';

/** Every browser-storage key the app uses, in one place. */
export const storageKeys = {
  user: 'user',
  sessionToken: 'sessionToken',
  authToken: 'authToken',
  pendingMfa: 'pendingMfa',
  buildId: 'app_build_id',
  instantNotaryJob: 'gnw_job',
  instantNotaryFreshStart: 'gnw_fresh_start',
  wizardSeed: 'gnw_seed',
  debugAdminKey: 'debugAdminKey',
  tunnelMode: 'apiTunnelMode',
  /** Followed by the user id: each person's zoom in the signing workspace (local storage). */
  signingZoomPrefix: 'signing_zoom:',
} as const;

export interface StoredUser {
  id?: string;
  name?: string;
  fullName?: string;
  email?: string;
  roles?: string[];
  role?: string;
  status?: string;
  pendingApproval?: string | null;
  emailVerified?: boolean;
}

function readStorage(storage: Storage, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

/** Signed-in means a stored user record exists; an unparseable one counts as none. */
export function getStoredUser(): StoredUser | null {
  const raw = readStorage(sessionStorage, storageKeys.user);
  if (!raw) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as StoredUser) : null;
  } catch {
    return null;
  }
}

export function storeSignedIn(user: SessionUser, sessionToken: string | null): void {
  sessionStorage.setItem(storageKeys.user, JSON.stringify(user));
  if (sessionToken) sessionStorage.setItem(storageKeys.sessionToken, sessionToken);
}

export function clearStoredUser(): void {
  sessionStorage.removeItem(storageKeys.user);
  sessionStorage.removeItem(storageKeys.sessionToken);
}

export function getStoredToken(): string | null {
  return readStorage(sessionStorage, storageKeys.sessionToken) ?? readStorage(localStorage, storageKeys.authToken);
}

/** The pending-MFA record kept between the login page and the MFA pages. */
export interface PendingMfaRecord {
  jobId: string | null;
  signerId: string | null;
  safeNext: string | null;
  rememberDevice: boolean;
  email: string;
  response: LoginResponse;
}

export function storePendingMfa(record: PendingMfaRecord): void {
  sessionStorage.setItem(storageKeys.pendingMfa, JSON.stringify(record));
}

export function getPendingMfa(): PendingMfaRecord | null {
  const raw = readStorage(sessionStorage, storageKeys.pendingMfa);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as PendingMfaRecord;
  } catch {
    return null;
  }
}

export function readInstantNotaryState(): InstantNotaryState {
  let activeJobId: string | null = null;
  const raw = readStorage(sessionStorage, storageKeys.instantNotaryJob);
  if (raw) {
    try {
      const parsed = JSON.parse(raw) as { jobId?: unknown };
      activeJobId = typeof parsed.jobId === 'string' ? parsed.jobId : null;
    } catch {
      activeJobId = null;
    }
  }
  return { isFreshStart: readStorage(sessionStorage, storageKeys.instantNotaryFreshStart) === '1', activeJobId };
}

export function clearInstantNotaryJob(): void {
  sessionStorage.removeItem(storageKeys.instantNotaryJob);
  sessionStorage.removeItem(storageKeys.instantNotaryFreshStart);
}

/** The Notarize Now wizard seed (lane, form, createdAt), kept one hour. */

export function storeWizardSeed(lane: string, form: Record<string, string>): void {
  localStorage.setItem(storageKeys.wizardSeed, JSON.stringify({ lane, form, createdAt: Date.now() }));
}

/** Clears all caches, both storages and readable cookies (the app-level 'Nuclear Clear & Reload'). */
export async function wipeBrowserState(): Promise<void> {
  try {
    if ('caches' in window) {
      const names = await caches.keys();
      await Promise.all(names.map((name) => caches.delete(name)));
    }
  } catch {
    // caches may be unavailable (insecure context); storage is still cleared below
  }
  try {
    sessionStorage.clear();
    localStorage.clear();
  } catch {
    // storage may be blocked; nothing else to clear
  }
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
}
