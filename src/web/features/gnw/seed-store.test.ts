import { beforeEach, describe, expect, it, vi } from 'vitest';
import { wizardSeedLifetimeMs } from '#shared/gnw.ts';
import { storageKeys } from '#web/lib/browser-storage.ts';
import { readSeedFiles, readWizardSeed, saveSeedFiles } from './seed-store.ts';

/**
 * The wizard seed is kept one hour (SPEC): a fresh one is read back as it was saved, with the files
 * chosen with it; an older one is dropped whole, the seed and its files, never half-applied.
 */

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

/**
 * A stand-in for the browser's IndexedDB with what seed-store uses: open (creating stores on the first
 * open), one object store per transaction, put/get/delete by key, and the events fired after the call
 * returns, as a browser fires them.
 */
function memoryIndexedDb() {
  const stores = new Map<string, Map<IDBValidKey, unknown>>();
  const fire = (run: () => void) => setTimeout(run, 0);
  const indexedDb = {
    open(_name: string, _version: number) {
      const request: { result?: unknown; onupgradeneeded?: () => void; onsuccess?: () => void; onerror?: () => void } = {};
      const database = {
        createObjectStore: (storeName: string) => stores.set(storeName, new Map()),
        close: () => undefined,
        transaction(storeName: string) {
          const records = stores.get(storeName);
          if (!records) throw new Error(`no object store ${storeName}`);
          const transaction: { oncomplete?: () => void; onerror?: () => void; objectStore: () => unknown } = {
            objectStore: () => ({
              put: (value: unknown, key: IDBValidKey) => finish(() => (records.set(key, value), key)),
              get: (key: IDBValidKey) => finish(() => records.get(key)),
              delete: (key: IDBValidKey) => finish(() => void records.delete(key)),
            }),
          };
          const finish = (operation: () => unknown) => {
            const result = { result: operation() };
            fire(() => transaction.oncomplete?.());
            return result;
          };
          return transaction;
        },
      };
      fire(() => {
        request.result = database;
        if (stores.size === 0) request.onupgradeneeded?.();
        request.onsuccess?.();
      });
      return request;
    },
  };
  return { indexedDb, keptFiles: () => stores.get('seed-files')?.get('files') as { savedAt: number; files: File[] } | undefined };
}

const now = Date.parse('2026-12-01T15:00:00.000Z');
const minutes = (count: number) => count * 60_000;
const pdf = () => new File(['%PDF-1.7'], 'deed.pdf', { type: 'application/pdf' });
/** Lets the delete readWizardSeed starts without waiting finish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

let local: Storage;
let database: ReturnType<typeof memoryIndexedDb>;

beforeEach(() => {
  local = memoryStorage();
  database = memoryIndexedDb();
  vi.stubGlobal('localStorage', local);
  vi.stubGlobal('indexedDB', database.indexedDb);
});

/** The seed and its files as the landing and the gate leave them, `age` before `now`. */
async function keepSeed(age: number) {
  const createdAt = now - age;
  local.setItem(storageKeys.wizardSeed, JSON.stringify({ lane: 'scheduled', form: { act: 'jurat', title: 'Deed' }, createdAt }));
  await saveSeedFiles([pdf()], createdAt);
  return createdAt;
}

describe('the wizard seed, kept one hour', () => {
  it('reads a fresh seed back as it was saved, with its files, and keeps both', async () => {
    const createdAt = await keepSeed(minutes(59));
    expect(readWizardSeed(now)).toEqual({ lane: 'scheduled', form: { act: 'jurat', title: 'Deed' }, createdAt });
    expect((await readSeedFiles(now)).map((file) => file.name)).toEqual(['deed.pdf']);
    await settle();
    expect(local.getItem(storageKeys.wizardSeed)).not.toBeNull();
    expect(database.keptFiles()?.files).toHaveLength(1);
  });

  it('still keeps a seed exactly one hour old', async () => {
    await keepSeed(wizardSeedLifetimeMs);
    expect(readWizardSeed(now)).toMatchObject({ lane: 'scheduled' });
  });

  it('drops a seed over an hour old whole: the seed and its files are gone, even for a reader with an earlier clock', async () => {
    const createdAt = await keepSeed(wizardSeedLifetimeMs + 1);
    expect(readWizardSeed(now)).toBeNull();
    await settle();
    expect(local.getItem(storageKeys.wizardSeed)).toBeNull();
    expect(database.keptFiles()).toBeUndefined();
    expect(await readSeedFiles(createdAt)).toEqual([]);
    expect(readWizardSeed(createdAt)).toBeNull();
  });

  it('drops a seed dated more than a minute ahead of the clock, and one that is not a seed, with their files', async () => {
    await keepSeed(-minutes(2));
    expect(readWizardSeed(now)).toBeNull();
    await settle();
    expect(database.keptFiles()).toBeUndefined();

    await saveSeedFiles([pdf()], now);
    local.setItem(storageKeys.wizardSeed, JSON.stringify({ lane: 'instant', form: { act: 7 }, createdAt: now }));
    expect(readWizardSeed(now)).toBeNull();
    await settle();
    expect(local.getItem(storageKeys.wizardSeed)).toBeNull();
    expect(database.keptFiles()).toBeUndefined();
  });

  it('gives no files over an hour old, and forgets them', async () => {
    await saveSeedFiles([pdf()], now - wizardSeedLifetimeMs - 1);
    expect(await readSeedFiles(now)).toEqual([]);
    expect(database.keptFiles()).toBeUndefined();
  });
});
