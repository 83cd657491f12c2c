import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNonPrivateEntries } from '#test/file-modes.ts';
import { createLocalStorage, createS3Storage, receiveToMemory, receiveToTempFile, writeTempFile, type StorageProvider } from './storage.ts';

/** s3rver ships no types; this is the part of it the test uses. */
interface S3rverServer {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: Array<{ name: string }>;
}) => S3rverServer;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;

let workDirectory: string;
beforeAll(() => {
  workDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-storage-'));
});
afterAll(() => fs.rmSync(workDirectory, { recursive: true, force: true }));

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A file on disk with some content, as an upload leaves it; the content is larger than one stream chunk. */
function writeSample(label: string, size = 200_000): { filePath: string; content: Buffer; key: string } {
  const content = Buffer.alloc(size);
  for (let index = 0; index < size; index += 1) content[index] = (index * 31 + label.length) % 251;
  content.write(`%PDF-1.7 ${label}`, 0);
  const filePath = path.join(workDirectory, `${label}-${Math.random().toString(16).slice(2)}.bin`);
  fs.writeFileSync(filePath, content);
  return { filePath, content, key: sha256(content) };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The same behaviour is asked of every provider. */
function describeProvider(name: string, open: () => StorageProvider) {
  describe(name, () => {
    it('stores a file under its hash and gives back the same bytes, whole or streamed', async () => {
      const storage = open();
      const sample = writeSample(`${name}-round-trip`);
      expect(await storage.has(sample.key)).toBe(false);
      expect(await storage.putFile(sample.filePath, sample.key, 'application/pdf')).toBe(sample.key);
      expect(await storage.has(sample.key)).toBe(true);
      expect((await storage.read(sample.key)).equals(sample.content)).toBe(true);
      expect((await readAll(await storage.openStream(sample.key))).equals(sample.content)).toBe(true);
    });

    it('refuses a stream of a blob that is not stored as a rejected promise, never as an error event nobody listens to yet (found by a CI run: the archive builder crashed)', async () => {
      const storage = open();
      const missing = sha256(Buffer.from(`${name} never stored ${Math.random()}`));
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      try {
        await expect(storage.openStream(missing)).rejects.toThrow();
        // Whatever a stream would emit has had its turns to arrive.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(uncaught).toEqual([]);
      } finally {
        process.off('uncaughtException', onUncaught);
      }
    });

    it('stores the same content twice without complaint', async () => {
      const storage = open();
      const sample = writeSample(`${name}-twice`);
      await storage.putFile(sample.filePath, sample.key, 'application/pdf');
      expect(await storage.putFile(sample.filePath, sample.key, 'application/pdf')).toBe(sample.key);
      expect((await storage.read(sample.key)).equals(sample.content)).toBe(true);
    });

    it('moves a file in under its hash: the same bytes come back and the file is gone', async () => {
      const storage = open();
      const sample = writeSample(`${name}-move`);
      expect(await storage.moveFile(sample.filePath, sample.key, 'application/pdf')).toBe(sample.key);
      expect(fs.existsSync(sample.filePath)).toBe(false);
      expect((await storage.read(sample.key)).equals(sample.content)).toBe(true);
    });

    it('moves the same content in twice without complaint, removing the second file too', async () => {
      const storage = open();
      const first = writeSample(`${name}-move-twice`);
      const second = writeSample(`${name}-move-twice`);
      await storage.moveFile(first.filePath, first.key, 'application/pdf');
      expect(await storage.moveFile(second.filePath, second.key, 'application/pdf')).toBe(second.key);
      expect(fs.existsSync(second.filePath)).toBe(false);
      expect((await storage.read(second.key)).equals(second.content)).toBe(true);
    });

    it('refuses a key that is not a SHA-256 digest', async () => {
      const storage = open();
      await expect(storage.has('../../etc/passwd')).rejects.toThrow('storage keys are SHA-256 hex digests');
      await expect(storage.read('ABC')).rejects.toThrow('storage keys are SHA-256 hex digests');
    });

    it('removes a blob, and removing one it does not have is no error', async () => {
      const storage = open();
      const sample = writeSample(`${name}-remove`);
      await storage.putFile(sample.filePath, sample.key, 'application/octet-stream');
      await storage.remove(sample.key);
      expect(await storage.has(sample.key)).toBe(false);
      await expect(storage.read(sample.key)).rejects.toThrow();
      await storage.remove(sample.key);
    });

    it('fails to read a blob it does not have', async () => {
      const storage = open();
      await expect(storage.read(sha256(Buffer.from(`missing ${name}`)))).rejects.toThrow();
    });
  });
}

describe('createLocalStorage', () => {
  const root = () => path.join(workDirectory, 'blobs');
  describeProvider('local files', () => createLocalStorage(root()));

  it('lays blobs out in two levels of directories named after the hash, one file per content', async () => {
    const storage = createLocalStorage(root());
    const sample = writeSample('layout');
    await storage.putFile(sample.filePath, sample.key, 'application/pdf');
    await storage.putFile(sample.filePath, sample.key, 'application/pdf');
    const directory = path.join(root(), sample.key.slice(0, 2), sample.key.slice(2, 4));
    expect(fs.readdirSync(directory).filter((file) => file.startsWith(sample.key))).toEqual([sample.key]);
  });
});

describe('local moveFile', () => {
  it('renames the file into place rather than copying it: the blob is that file, made private', async () => {
    const root = path.join(workDirectory, 'moved-blobs');
    const storage = createLocalStorage(root);
    const sample = writeSample('moved');
    fs.chmodSync(sample.filePath, 0o644);
    const inode = fs.statSync(sample.filePath).ino;
    await storage.moveFile(sample.filePath, sample.key, 'application/pdf');
    const blob = path.join(root, sample.key.slice(0, 2), sample.key.slice(2, 4), sample.key);
    expect(fs.statSync(blob).ino).toBe(inode);
    expect(findNonPrivateEntries(root)).toEqual([]);
    expect(fs.readdirSync(path.dirname(blob))).toEqual([sample.key]);
  });
});

describe('local blob files', () => {
  it('are private (0600, in 0700 directories) whatever the mode of the file they were copied from', async () => {
    const root = path.join(workDirectory, 'private-blobs');
    const storage = createLocalStorage(root);
    const sample = writeSample('private');
    fs.chmodSync(sample.filePath, 0o644);
    await storage.putFile(sample.filePath, sample.key, 'application/pdf');
    expect(findNonPrivateEntries(root)).toEqual([]);
    expect(fs.readdirSync(path.join(root, sample.key.slice(0, 2), sample.key.slice(2, 4)))).toEqual([sample.key]);
  });

  it('receive uploads into private temporary files', async () => {
    const directory = path.join(workDirectory, 'private-tmp');
    const received = await receiveToTempFile(Readable.from([Buffer.from('%PDF-1.7 private')]), directory, 1000);
    expect(findNonPrivateEntries(directory)).toEqual([]);
    expect(fs.existsSync(received.filePath)).toBe(true);
  });
});

describe('createS3Storage against s3rver', () => {
  let server: S3rverServer;
  let endpoint: string;
  beforeAll(async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      directory: fs.mkdtempSync(path.join(workDirectory, 's3rver-')),
      silent: true,
      configureBuckets: [{ name: 'ron-test' }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => server?.close());

  const options = () => ({ endpoint, region: 'us-east-1', bucket: 'ron-test', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true });
  describeProvider('S3', () => createS3Storage(options()));

  it('reports a storage it cannot reach as an error, not as a missing blob', async () => {
    const unreachable = createS3Storage({ ...options(), endpoint: 'http://127.0.0.1:9' });
    await expect(unreachable.has(sha256(Buffer.from('anything')))).rejects.toThrow();
  });

  it('reports a blob in a bucket that does not exist as an error', async () => {
    const wrongBucket = createS3Storage({ ...options(), bucket: 'no-such-bucket' });
    await expect(wrongBucket.read(sha256(Buffer.from('anything')))).rejects.toThrow();
  });
});

describe('receiveToMemory', () => {
  it('reads the stream into one buffer and hashes it on the way', async () => {
    const content = Buffer.from('%PDF-1.7 streamed body '.repeat(5000));
    const received = await receiveToMemory(Readable.from([content.subarray(0, 1000), content.subarray(1000, 70_000), content.subarray(70_000)]), 1_000_000);
    expect(received).toMatchObject({ sha256: sha256(content), sizeBytes: content.length, isTooLarge: false });
    expect(received.bytes.equals(content)).toBe(true);
  });

  it('gives the same bytes and hash whatever the size hint: exact, larger, or wrongly smaller', async () => {
    const content = Buffer.from('%PDF-1.7 hinted body '.repeat(5000));
    const parts = () => Readable.from([content.subarray(0, 1000), content.subarray(1000, 70_000), content.subarray(70_000)]);
    for (const hint of [content.length, content.length + 500, 50_000, 10, Number.NaN]) {
      const received = await receiveToMemory(parts(), 1_000_000, hint);
      expect(received).toMatchObject({ sha256: sha256(content), sizeBytes: content.length, isTooLarge: false });
      expect(received.bytes.equals(content)).toBe(true);
    }
  });

  it('allocates for what has arrived, not for what was announced: a 50 MB hint with 10 bytes sent holds no 50 MB buffer', async () => {
    const hint = 50 * 1024 * 1024;
    const received = await receiveToMemory(Readable.from([Buffer.from('%PDF-1.7\n!')]), hint, hint);
    expect(received).toMatchObject({ sizeBytes: 10, isTooLarge: false });
    expect(received.bytes.toString()).toBe('%PDF-1.7\n!');
    // the bytes' backing memory, not just their view, is small
    expect(received.bytes.buffer.byteLength).toBeLessThan(1024 * 1024);
  });

  it('grows its buffer as chunks arrive, never past the hint or the limit, and the bytes stay exact', async () => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let index = 0; index < content.length; index += 1) content[index] = index % 251;
    const chunks = Array.from({ length: Math.ceil(content.length / 65_536) }, (_, index) => content.subarray(index * 65_536, (index + 1) * 65_536));
    const hinted = await receiveToMemory(Readable.from(chunks), 50 * 1024 * 1024, content.length + 100);
    expect(hinted.bytes.equals(content)).toBe(true);
    expect(hinted.bytes.buffer.byteLength).toBeLessThanOrEqual(content.length + 100);
    const unhinted = await receiveToMemory(Readable.from(chunks), 50 * 1024 * 1024);
    expect(unhinted.bytes.equals(content)).toBe(true);
    expect(unhinted.bytes.buffer.byteLength).toBeLessThan(2 * content.length);
  });

  it('accepts exactly the limit, and past it reads to the end, keeps no bytes and says the file was too large', async () => {
    const content = Buffer.alloc(5000, 0x41);
    const exact = await receiveToMemory(Readable.from([content.subarray(0, 3000), content.subarray(3000, 4000)]), 4000);
    expect(exact).toMatchObject({ sizeBytes: 4000, isTooLarge: false, sha256: sha256(content.subarray(0, 4000)) });
    const source = Readable.from([content.subarray(0, 3000), content.subarray(3000)]);
    const received = await receiveToMemory(source, 4000);
    expect(received).toMatchObject({ sizeBytes: 5000, isTooLarge: true });
    expect(received.bytes.length).toBe(0);
    expect(source.readableEnded).toBe(true);
  });
});

describe('writeTempFile', () => {
  it('writes the bytes to a new private file', async () => {
    const directory = path.join(workDirectory, 'written-tmp');
    const content = Buffer.from('%PDF-1.7 written in one go');
    const filePath = await writeTempFile(directory, content);
    expect(fs.readFileSync(filePath).equals(content)).toBe(true);
    expect(path.dirname(filePath)).toBe(directory);
    expect(findNonPrivateEntries(directory)).toEqual([]);
  });
});

describe('receiveToTempFile', () => {
  it('writes the stream to a file and hashes it on the way', async () => {
    const content = Buffer.from('%PDF-1.7 streamed body '.repeat(5000));
    const received = await receiveToTempFile(Readable.from([content.subarray(0, 1000), content.subarray(1000)]), path.join(workDirectory, 'tmp'), 1_000_000);
    expect(received).toMatchObject({ sha256: sha256(content), sizeBytes: content.length, isTooLarge: false });
    expect(received.head.equals(content.subarray(0, 1024))).toBe(true);
    expect(fs.readFileSync(received.filePath).equals(content)).toBe(true);
  });

  it('stops writing at the limit and says the file was too large', async () => {
    const content = Buffer.alloc(5000, 0x41);
    const received = await receiveToTempFile(Readable.from([content.subarray(0, 3000), content.subarray(3000)]), path.join(workDirectory, 'tmp'), 4000);
    expect(received.isTooLarge).toBe(true);
    expect(received.sizeBytes).toBe(5000);
    expect(fs.statSync(received.filePath).size).toBeLessThanOrEqual(4000);
  });
});
