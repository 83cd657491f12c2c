import fs from 'node:fs';
import path from 'node:path';

/** Every entry under a directory (itself included) that is not private: "relative/path 644". */
export function findNonPrivateEntries(root: string): string[] {
  const found: string[] = [];
  const visit = (entryPath: string) => {
    const stats = fs.lstatSync(entryPath);
    if (stats.isSymbolicLink()) return;
    const mode = stats.mode & 0o777;
    if (mode !== (stats.isDirectory() ? 0o700 : 0o600)) found.push(`${path.relative(root, entryPath) || '.'} ${mode.toString(8)}`);
    if (stats.isDirectory()) for (const name of fs.readdirSync(entryPath)) visit(path.join(entryPath, name));
  };
  visit(root);
  return found;
}
