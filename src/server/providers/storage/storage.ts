import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { privateDirectoryMode, privateFileMode } from '#server/lib/data-dir.ts';

/** Blobs (documents, later recordings, seals and ID images), addressed by their SHA-256. */
export interface StorageProvider {
  readonly kind: 'local' | 's3';
  /** Stores a file already hashed by the caller; returns its key (the SHA-256). Idempotent. */
  putFile(filePath: string, sha256: string, contentType: string): Promise<string>;
  /**
   * Stores a temporary file the caller hands over, already hashed; returns its key. Local storage
   * renames it into place (no copy; a copy only across file systems); the file is gone afterwards.
   */
  moveFile(filePath: string, sha256: string, contentType: string): Promise<string>;
  read(key: string): Promise<Buffer>;
  openStream(key: string): Promise<Readable>;
  has(key: string): Promise<boolean>;
  /** Deletes a blob (identity evidence past its retention); absent is not an error. */
  remove(key: string): Promise<void>;
}

function assertKey(key: string): void {
  if (!/^[a-f0-9]{64}$/.test(key)) throw new Error('storage keys are SHA-256 hex digests');
}

export function createLocalStorage(root: string): StorageProvider {
  const pathOf = (key: string) => {
    assertKey(key);
    return path.join(root, key.slice(0, 2), key.slice(2, 4), key);
  };
  const putFile = async (filePath: string, sha256: string) => {
    const target = pathOf(sha256);
    if (fs.existsSync(target)) return sha256;
    await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: privateDirectoryMode });
    const temporary = `${target}.${randomUUID()}.part`;
    // copyFile gives the copy its source's mode: set the blob's own before it gets its name.
    await fs.promises.copyFile(filePath, temporary);
    await fs.promises.chmod(temporary, privateFileMode);
    await fs.promises.rename(temporary, target);
    return sha256;
  };
  return {
    kind: 'local',
    putFile,
    async moveFile(filePath, sha256) {
      const target = pathOf(sha256);
      if (!fs.existsSync(target)) {
        await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: privateDirectoryMode });
        // the blob keeps the file's inode, so it gets the blob's mode before its name
        await fs.promises.chmod(filePath, privateFileMode);
        try {
          await fs.promises.rename(filePath, target);
          return sha256;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
          await putFile(filePath, sha256);
        }
      }
      await fs.promises.rm(filePath, { force: true });
      return sha256;
    },
    async read(key) {
      return fs.promises.readFile(pathOf(key));
    },
    async openStream(key) {
      // Opened first: a missing or unreadable file rejects here, where the caller awaits it. A stream
      // opened lazily emitted its ENOENT as an event, while the caller was still awaiting something
      // else (the archive builder writes a header first): an uncaught error that stops the process.
      const file = await fs.promises.open(pathOf(key), 'r');
      return file.createReadStream();
    },
    async has(key) {
      return fs.existsSync(pathOf(key));
    },
    async remove(key) {
      await fs.promises.rm(pathOf(key), { force: true });
    },
  };
}

export interface S3StorageOptions {
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/** Any S3-compatible object store (AWS S3, MinIO, Ceph, R2…), same interface as local files. */
export function createS3Storage(options: S3StorageOptions): StorageProvider {
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint ?? undefined,
    forcePathStyle: options.forcePathStyle,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    // The SDK's default (since 3.729) sends streamed uploads as aws-chunked bodies with a CRC32
    // trailer; stores that do not speak it (s3rver, older MinIO and Ceph, GCS) keep the chunk
    // framing as the object's bytes. Checksums only where the operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const objectKey = (key: string) => {
    assertKey(key);
    return `blobs/${key}`;
  };
  const getBody = async (key: string) => {
    const answer = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
    if (!answer.Body) throw new Error(`object ${key} has no body`);
    return answer.Body as Readable;
  };
  const putFile = async (filePath: string, sha256: string, contentType: string) => {
    const size = (await fs.promises.stat(filePath)).size;
    await client.send(
      new PutObjectCommand({
        Bucket: options.bucket,
        Key: objectKey(sha256),
        Body: fs.createReadStream(filePath),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
    return sha256;
  };
  return {
    kind: 's3',
    putFile,
    async moveFile(filePath, sha256, contentType) {
      await putFile(filePath, sha256, contentType);
      await fs.promises.rm(filePath, { force: true });
      return sha256;
    },
    async read(key) {
      const chunks: Buffer[] = [];
      for await (const chunk of await getBody(key)) chunks.push(Buffer.from(chunk as Uint8Array));
      return Buffer.concat(chunks);
    },
    openStream: getBody,
    async has(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
        return true;
      } catch (error) {
        // Only "no such object" means absent; an unreachable store or bad credentials must not read as "not stored".
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (error as Error).name === 'NotFound' || (error as Error).name === 'NoSuchKey') return false;
        throw error;
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: objectKey(key) }));
    },
  };
}

/** Streams a request body to a temporary file, hashing it and stopping at maxBytes. */
export async function receiveToTempFile(
  source: Readable,
  directory: string,
  maxBytes: number,
): Promise<{ filePath: string; sha256: string; sizeBytes: number; head: Buffer; isTooLarge: boolean }> {
  await fs.promises.mkdir(directory, { recursive: true, mode: privateDirectoryMode });
  const filePath = path.join(directory, `${randomUUID()}.upload`);
  const hash = createHash('sha256');
  let sizeBytes = 0;
  let head = Buffer.alloc(0);
  let isTooLarge = false;
  await pipeline(
    source,
    async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        sizeBytes += chunk.length;
        if (sizeBytes > maxBytes) {
          isTooLarge = true;
          continue;
        }
        if (head.length < 1024) head = Buffer.concat([head, chunk.subarray(0, 1024 - head.length)]);
        hash.update(chunk);
        yield chunk;
      }
    },
    fs.createWriteStream(filePath, { mode: privateFileMode }),
  );
  return { filePath, sha256: hash.digest('hex'), sizeBytes, head, isTooLarge };
}

/** The first buffer receiveToMemory takes; it doubles from there as bytes arrive. */
const firstCapacity = 64 * 1024;

/**
 * Reads an upload into memory in one pass, hashing each chunk as it arrives; past maxBytes the rest
 * is read and dropped (isTooLarge, no bytes), so the request can still be answered. The chunks are
 * copied into one buffer that doubles when full, so only bytes that arrived are ever allocated (a
 * client announcing 50 MB and sending 10 bytes costs 64 KB) and each chunk can be freed at once.
 * `sizeHint` (an upper bound known beforehand, such as the request's Content-Length) only caps the
 * growth, so the last doubling does not overshoot the real size.
 */
export async function receiveToMemory(
  source: Readable,
  maxBytes: number,
  sizeHint?: number,
): Promise<{ bytes: Buffer; sha256: string; sizeBytes: number; isTooLarge: boolean }> {
  const hash = createHash('sha256');
  const cap = sizeHint !== undefined && Number.isSafeInteger(sizeHint) && sizeHint > 0 ? Math.min(sizeHint, maxBytes) : maxBytes;
  let target = Buffer.alloc(0);
  let sizeBytes = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    const offset = sizeBytes;
    sizeBytes += chunk.length;
    if (sizeBytes > maxBytes) {
      target = Buffer.alloc(0);
      continue;
    }
    hash.update(chunk);
    if (sizeBytes > target.length) {
      // a wrong hint (smaller than the body) no longer caps the growth: the limit does
      const ceiling = sizeBytes > cap ? maxBytes : cap;
      const grown = Buffer.allocUnsafe(Math.min(Math.max(sizeBytes, target.length * 2, firstCapacity), ceiling));
      target.copy(grown, 0, 0, offset);
      target = grown;
    }
    chunk.copy(target, offset);
  }
  const isTooLarge = sizeBytes > maxBytes;
  return { bytes: isTooLarge ? Buffer.alloc(0) : target.subarray(0, sizeBytes), sha256: hash.digest('hex'), sizeBytes, isTooLarge };
}

/** Writes bytes to a new private temporary file in `directory` with one write; a failed write leaves no file. */
export async function writeTempFile(directory: string, bytes: Uint8Array): Promise<string> {
  await fs.promises.mkdir(directory, { recursive: true, mode: privateDirectoryMode });
  const filePath = path.join(directory, `${randomUUID()}.upload`);
  try {
    await fs.promises.writeFile(filePath, bytes, { mode: privateFileMode, flag: 'wx' });
  } catch (error) {
    await fs.promises.rm(filePath, { force: true });
    throw error;
  }
  return filePath;
}

export function createStorage(config: { kind: 'local'; root: string } | ({ kind: 's3' } & S3StorageOptions)): StorageProvider {
  return config.kind === 's3' ? createS3Storage(config) : createLocalStorage(config.root);
}
