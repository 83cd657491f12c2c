import { createApiClient } from './api-client.ts';
import { getStoredToken, storageKeys } from './browser-storage.ts';

function isTunnelMode(): boolean {
  try {
    return localStorage.getItem(storageKeys.tunnelMode) === '1';
  } catch {
    return false;
  }
}

/** The app's client, wired to browser storage. Dev mode (Vite) and tunnel mode may fall back to port 3000. */
export const api = createApiClient({
  readToken: getStoredToken,
  readDebugAdminKey: () => {
    try {
      return localStorage.getItem(storageKeys.debugAdminKey);
    } catch {
      return null;
    }
  },
  isFallbackEnabled: () => (import.meta.env.DEV || isTunnelMode()) && window.location.port !== '3000',
});
