import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '#shared/errors.ts';

/** Every server source file outside the tests. */
function serverSources(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return serverSources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('error codes', () => {
  it('answers only with codes of the shared list, also where a body is written out by hand', () => {
    const known = new Set<string>(errorCodes);
    const unknown: string[] = [];
    for (const file of serverSources(path.resolve('src/server'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\berror: '([a-z0-9_]+)'/g)) {
        if (!known.has(match[1] as string)) unknown.push(`${path.relative('.', file)}: ${match[1]}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
