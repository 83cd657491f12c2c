import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '#server/db/client.ts';
import { findNonPrivateEntries } from '#test/file-modes.ts';
import { secureDataDir } from './data-dir.ts';

let workDirectory: string;
beforeAll(() => {
  workDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-data-dir-'));
});
afterAll(() => fs.rmSync(workDirectory, { recursive: true, force: true }));

describe('secureDataDir', () => {
  it('creates a missing DATA_DIR private to this account', () => {
    const dataDir = path.join(workDirectory, 'fresh', 'data');
    expect(secureDataDir(dataDir)).toBe(0);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it('makes what an older install left private: directories 0700, files 0600, and leaves symbolic links alone', () => {
    const dataDir = path.join(workDirectory, 'older');
    fs.mkdirSync(path.join(dataDir, 'db', 'pg_wal'), { recursive: true, mode: 0o755 });
    fs.mkdirSync(path.join(dataDir, 'blobs', 'ab', 'cd'), { recursive: true, mode: 0o755 });
    for (const directory of ['', 'db', 'db/pg_wal', 'blobs', 'blobs/ab', 'blobs/ab/cd']) fs.chmodSync(path.join(dataDir, directory), 0o755);
    fs.writeFileSync(path.join(dataDir, 'db', 'pg_wal', '000000010000000000000001'), 'wal');
    fs.chmodSync(path.join(dataDir, 'db', 'pg_wal', '000000010000000000000001'), 0o666);
    fs.writeFileSync(path.join(dataDir, 'blobs', 'ab', 'cd', 'abcd'), 'blob');
    fs.chmodSync(path.join(dataDir, 'blobs', 'ab', 'cd', 'abcd'), 0o644);
    fs.writeFileSync(path.join(dataDir, 'secrets.key'), 'key', { mode: 0o600 });
    const outside = path.join(workDirectory, 'outside.txt');
    fs.writeFileSync(outside, 'not ours', { mode: 0o644 });
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(dataDir, 'link'));

    expect(findNonPrivateEntries(dataDir).length).toBeGreaterThan(0);
    expect(secureDataDir(dataDir)).toBe(8);
    expect(findNonPrivateEntries(dataDir)).toEqual([]);
    expect(fs.statSync(outside).mode & 0o777).toBe(0o644);
    expect(secureDataDir(dataDir)).toBe(0);
  });
});

describe('the embedded database in DATA_DIR', () => {
  it('keeps every file and directory it writes private, while running and after it closes, whatever the process umask', async () => {
    const dataDir = path.join(workDirectory, 'embedded', 'db');
    const database = await createDatabase({ databaseUrl: null, dataDir });
    try {
      await database.migrate();
      await database.db.execute(sql`create table private_check (id serial primary key, body text)`);
      // Enough rows for new relation files, free-space maps and WAL to appear while it runs.
      await database.db.execute(sql`insert into private_check (body) select repeat('x', 1000) from generate_series(1, 1000)`);
      await database.db.execute(sql`create index on private_check (body)`);
      await database.db.execute(sql`checkpoint`);
      expect(findNonPrivateEntries(dataDir)).toEqual([]);
    } finally {
      await database.close();
    }
    expect(findNonPrivateEntries(dataDir)).toEqual([]);
    expect(fs.readdirSync(path.join(dataDir, 'pg_wal')).length).toBeGreaterThan(0);
  });
});
