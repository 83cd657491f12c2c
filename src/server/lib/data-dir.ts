import fs from 'node:fs';
import path from 'node:path';

/** Everything under DATA_DIR is the service account's alone: invitation links, password hashes, documents, keys. */
export const privateDirectoryMode = 0o700;
export const privateFileMode = 0o600;
/** The umask main.ts sets before anything opens a file: new files 0600, new directories 0700. */
export const privateUmask = 0o077;

/**
 * Creates DATA_DIR (0700) and makes what an older install left in it private: directories 0700,
 * files 0600. Symbolic links are left alone and not followed. Returns how many entries changed.
 */
export function secureDataDir(dataDir: string): number {
  fs.mkdirSync(dataDir, { recursive: true, mode: privateDirectoryMode });
  let changed = 0;
  const visit = (entryPath: string, isRoot: boolean) => {
    const stats = isRoot ? fs.statSync(entryPath) : fs.lstatSync(entryPath);
    if (stats.isSymbolicLink()) return;
    const wanted = stats.isDirectory() ? privateDirectoryMode : privateFileMode;
    if ((stats.mode & 0o777) !== wanted) {
      fs.chmodSync(entryPath, wanted);
      changed += 1;
    }
    if (stats.isDirectory()) for (const name of fs.readdirSync(entryPath)) visit(path.join(entryPath, name), false);
  };
  visit(dataDir, true);
  return changed;
}
