import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const webRoot = path.resolve(import.meta.dirname, '..');

function listSources(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return listSources(file);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

describe('query keys', () => {
  it('come from a domain key factory everywhere in the web app, never a literal array (decision 039)', () => {
    // A literal key starts with a string: `queryKey: ['jobs', id]`. A factory's key, or one built on it, does not.
    const literal = /queryKey:\s*\[\s*['"`]/;
    const found = listSources(webRoot).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (literal.test(line) ? [`${path.relative(webRoot, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
