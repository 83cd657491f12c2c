import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDiskAfterPowerLoss } from '#test/power-loss.ts';
import { createDatabase } from './client.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '../../..');
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-durability-'));
const baseDir = path.join(workDir, 'base');
const liveDir = path.join(workDir, 'live');
const logPath = path.join(workDir, 'fs.log');
const ackedBeforeKill = 60;
let acked: number[] = [];

afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

async function readProbeIds(dataDir: string): Promise<number[]> {
  const database = await createDatabase({ databaseUrl: null, dataDir });
  try {
    const result = (await database.db.execute(sql`select id from durability_probe order by id`)) as unknown as { rows: { id: number }[] };
    return result.rows.map((row) => row.id);
  } finally {
    await database.close();
  }
}

/**
 * Runs test/durable-writer.ts on a copy of the base folder, under fs-recorder.ts, and kills it with
 * SIGKILL once it has acknowledged `ackedBeforeKill` rows.
 */
async function runWriterAndKill(): Promise<number[]> {
  fs.cpSync(baseDir, liveDir, { recursive: true });
  const env = { ...process.env, FS_RECORD_ROOT: liveDir, FS_RECORD_LOG: logPath };
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/fs-recorder.ts', 'test/durable-writer.ts', liveDir], {
    cwd: repositoryRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ids: number[] = [];
  let errors = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^ack (\d+)$/.exec(line);
        if (match) ids.push(Number(match[1]));
        if (ids.length >= ackedBeforeKill && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      }
    });
    child.on('exit', () => (ids.length >= ackedBeforeKill ? resolve() : reject(new Error(`the writer ended early:\n${errors}`))));
  });
  await exited;
  return ids;
}

describe('the embedded database keeps what it acknowledged', () => {
  beforeAll(async () => {
    const database = await createDatabase({ databaseUrl: null, dataDir: baseDir });
    await database.db.execute(sql`create table durability_probe (id integer primary key, body text not null)`);
    await database.close();
    acked = await runWriterAndKill();
  }, 180_000);

  it('after a power cut: every row acknowledged before the cut is there, with only fsynced bytes on the disk', async () => {
    // A cut between two checkpoints, and one where the writer was killed.
    const cuts = [`ack ${acked[Math.floor(acked.length / 2)]}`, null];
    for (const cut of cuts) {
      const diskDir = path.join(workDir, `after-power-loss-${cut ?? 'end'}`.replace(/\s/g, '-'));
      const disk = buildDiskAfterPowerLoss(baseDir, logPath, diskDir, cut);
      // The cut really loses what was only in the page cache: otherwise this would test nothing.
      expect(disk.filesWithLostBytes + disk.lostNames).toBeGreaterThan(0);
      const ackedBeforeCut = disk.marks.map((mark) => Number(mark.replace('ack ', '')));
      expect(ackedBeforeCut.length).toBeGreaterThan(0);
      const ids = await readProbeIds(diskDir);
      expect(ackedBeforeCut.filter((id) => !ids.includes(id))).toEqual([]);
    }
  }, 180_000);

  it('after kill -9 mid-write: every acknowledged row is there', async () => {
    expect(acked.length).toBeGreaterThanOrEqual(ackedBeforeKill);
    const ids = await readProbeIds(liveDir);
    expect(acked.filter((id) => !ids.includes(id))).toEqual([]);
  }, 120_000);
});
