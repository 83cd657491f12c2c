import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { assertArchivePath, ZipWriter } from './zip-writer.ts';

const run = promisify(execFile);
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-zip-'));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

async function writeZip(name: string, fill: (zip: ZipWriter) => Promise<void>): Promise<string> {
  const filePath = path.join(directory, name);
  const handle = await fs.promises.open(filePath, 'w');
  const zip = new ZipWriter(handle, new Date('2026-11-28T02:00:00Z'));
  await fill(zip);
  await zip.finish();
  await handle.close();
  return filePath;
}

describe('the ZIP writer', () => {
  it('writes STORED entries that unzip and Python’s zipfile test and read back byte for byte, with each entry’s SHA-256', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    let heard = 0;
    const results: Array<{ sha256: string; sizeBytes: number }> = [];
    const filePath = await writeZip('plain.zip', async (zip) => {
      results.push(await zip.addEntry('README.txt', Buffer.from('hello\n')));
      results.push(
        await zip.addEntry('jobs/a/recordings/one.webm', Readable.from([big.subarray(0, 1000), big.subarray(1000)]), { onBytes: (n) => (heard += n) }),
      );
      results.push(await zip.addEntry('empty.json', Buffer.alloc(0)));
    });
    expect(heard).toBe(big.length);
    expect(results[1]).toEqual({ sha256: createHash('sha256').update(big).digest('hex'), sizeBytes: big.length });
    await run('unzip', ['-t', '-q', filePath]);
    await run('python3', ['-m', 'zipfile', '-t', filePath]);
    const listing = (await run('zipinfo', ['-v', filePath])).stdout;
    expect(listing).toContain('compression method:                             none (stored)');
    const out = path.join(directory, 'plain');
    await run('unzip', ['-q', filePath, '-d', out]);
    expect(fs.readFileSync(path.join(out, 'jobs/a/recordings/one.webm')).equals(big)).toBe(true);
    expect(fs.readFileSync(path.join(out, 'README.txt'), 'utf8')).toBe('hello\n');
  });

  it('adds ZIP64 end records past 65,535 entries, which both readers accept', async () => {
    const count = 65_600;
    const filePath = await writeZip('many.zip', async (zip) => {
      for (let index = 0; index < count; index += 1) await zip.addEntry(`f/${index}.txt`, Buffer.from([index % 256]));
    });
    await run('python3', ['-m', 'zipfile', '-t', filePath]);
    const names = (await run('zipinfo', ['-1', filePath], { maxBuffer: 16 * 1024 * 1024 })).stdout.trim().split('\n');
    expect(names).toHaveLength(count);
    await run('unzip', ['-t', '-q', filePath], { maxBuffer: 16 * 1024 * 1024 });
  }, 120_000);

  it('reserves a ZIP64 local header for an entry announced past 4 GiB', async () => {
    const filePath = await writeZip('announced.zip', async (zip) => {
      await zip.addEntry('large.webm', Readable.from([Buffer.from('not really large')]), { expectedSize: 5 * 1024 ** 3 });
    });
    await run('python3', ['-m', 'zipfile', '-t', filePath]);
    await run('unzip', ['-t', '-q', filePath]);
  });

  it('refuses a path with `..`, a leading slash or characters outside the agreed set', () => {
    for (const bad of ['../x', '/x', 'a//b', 'a/../b', 'jobs/Ünïcode.pdf', 'a b']) expect(() => assertArchivePath(bad), bad).toThrow();
    expect(() => assertArchivePath('jobs/0b7e/documents/x.pdf')).not.toThrow();
  });
});
