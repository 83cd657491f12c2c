import { wizardSeedLifetimeMs } from '#shared/gnw.ts';
import { storageKeys } from '#web/lib/browser-storage.ts';

/**
 * The wizard seed (SPEC: lane, form, createdAt; kept 1 hour) and the files a newcomer chose before
 * they had an account, kept in this browser until the job exists. A seed older than an hour is
 * dropped whole, files and all: never half-applied.
 */
export interface WizardSeed {
  lane: string;
  form: Record<string, string>;
  createdAt: number;
}

export function readWizardSeed(now: number = Date.now()): WizardSeed | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(localStorage.getItem(storageKeys.wizardSeed) ?? 'null');
  } catch {
    parsed = null;
  }
  const seed = parsed as Partial<WizardSeed> | null;
  const isSeed =
    seed !== null &&
    typeof seed === 'object' &&
    typeof seed.lane === 'string' &&
    typeof seed.createdAt === 'number' &&
    typeof seed.form === 'object' &&
    seed.form !== null &&
    Object.values(seed.form).every((value) => typeof value === 'string');
  const createdAt = isSeed ? (seed.createdAt as number) : Number.NaN;
  if (!isSeed || !(now - createdAt <= wizardSeedLifetimeMs) || createdAt > now + 60_000) {
    clearWizardSeed();
    return null;
  }
  return { lane: seed.lane as string, form: seed.form as Record<string, string>, createdAt };
}

export function clearWizardSeed(): void {
  try {
    localStorage.removeItem(storageKeys.wizardSeed);
  } catch {
    // storage unavailable: nothing kept
  }
  void clearSeedFiles();
}

const databaseName = 'notarize-now';
const storeName = 'seed-files';

function openStore(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(databaseName, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(storeName);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('This browser could not keep the file.'));
  });
}

async function withStore<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const database = await openStore();
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = database.transaction(storeName, mode);
      const request = run(transaction.objectStore(storeName));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error ?? new Error('This browser could not keep the file.'));
    });
  } finally {
    database.close();
  }
}

interface KeptFiles {
  savedAt: number;
  files: File[];
}

/** Keeps the chosen files until the job exists (replacing any kept before). */
export async function saveSeedFiles(files: File[], now: number = Date.now()): Promise<void> {
  await withStore('readwrite', (store) => store.put({ savedAt: now, files } satisfies KeptFiles, 'files'));
}

/** The kept files, if they are under an hour old; they stay kept until `clearSeedFiles`. */
export async function readSeedFiles(now: number = Date.now()): Promise<File[]> {
  if (typeof indexedDB === 'undefined') return [];
  const kept = (await withStore('readonly', (store) => store.get('files'))) as KeptFiles | undefined;
  if (!kept || now - kept.savedAt > wizardSeedLifetimeMs) {
    if (kept) await clearSeedFiles();
    return [];
  }
  return kept.files;
}

export async function clearSeedFiles(): Promise<void> {
  if (typeof indexedDB === 'undefined') return;
  try {
    await withStore('readwrite', (store) => store.delete('files'));
  } catch {
    // nothing kept, or storage unavailable
  }
}
