import { storageKeys, wipeBrowserState } from './browser-storage.ts';

declare const __BUILD_ID__: string;
export const buildId: string = __BUILD_ID__;

/**
 * Startup build check: if the stored build id differs from this build's, clear caches and storage, store
 * the new id and reload; otherwise store it. Returns true when a reload was started.
 */
export async function runBuildCheck(): Promise<boolean> {
  let stored: string | null;
  try {
    stored = sessionStorage.getItem(storageKeys.buildId);
  } catch {
    return false;
  }
  if (stored !== null && stored !== buildId) {
    await wipeBrowserState();
    sessionStorage.setItem(storageKeys.buildId, buildId);
    window.location.reload();
    return true;
  }
  sessionStorage.setItem(storageKeys.buildId, buildId);
  return false;
}
