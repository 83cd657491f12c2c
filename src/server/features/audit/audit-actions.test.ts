import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditActions } from '#shared/audit.ts';
import { auditSentences } from '#shared/audit-sentences.ts';

/**
 * appendAuditEvent takes only the actions of src/shared/audit.ts (a typecheck), and the sentence
 * table must cover them all (another typecheck). This scan also catches an action built at run time
 * or passed around the type, and a sentence kept for an action nothing records any more.
 */
const serverRoot = path.resolve(import.meta.dirname, '../..');

function listSourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return listSourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Every action string the server passes as `action:` (the argument of appendAuditEvent), with where. */
function findRecordedActions(): Array<{ action: string; file: string }> {
  const found: Array<{ action: string; file: string }> = [];
  for (const file of listSourceFiles(serverRoot)) {
    const source = fs.readFileSync(file, 'utf8');
    for (const match of source.matchAll(/\baction:\s*([^,}\n]+)/g)) {
      const expression = match[1] ?? '';
      if (expression.includes('`')) found.push({ action: `template literal ${expression.trim()}`, file });
      for (const literal of expression.matchAll(/'([a-z_]+\.[a-z_]+)'/g)) found.push({ action: literal[1] ?? '', file });
    }
  }
  return found;
}

describe('audit actions in the server source', () => {
  it('has a sentence for every action the server records, and records every action it has a sentence for', () => {
    const recorded = findRecordedActions();
    // The scan must see the real calls, not nothing.
    expect(recorded.length).toBeGreaterThanOrEqual(auditActions.length);
    const known = new Set<string>(auditActions);
    const unknown = recorded.filter(({ action }) => !known.has(action)).map(({ action, file }) => `${action} in ${path.relative(serverRoot, file)}`);
    expect(unknown, 'actions without a sentence in src/shared/audit-sentences.ts').toEqual([]);
    const recordedActions = new Set(recorded.map(({ action }) => action));
    expect(
      auditActions.filter((action) => !recordedActions.has(action)),
      'sentences for actions nothing records',
    ).toEqual([]);
    expect(Object.keys(auditSentences).sort()).toEqual([...auditActions].sort());
  });
});
