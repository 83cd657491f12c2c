import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

/**
 * A ZIP file written straight to disk, entries STORED (the PDFs and WebM segments are compressed
 * already), UTF-8 names (flag bit 11), ZIP64 records only where a size, an offset or the entry count
 * needs them (docs/ARCHIVE-FORMAT.md). Each entry streams through once: its CRC-32 (node:zlib) and
 * SHA-256 are taken as the bytes pass, and its local header is written with sizes left blank, then
 * filled in place once the entry ends: the file is seekable, so no data descriptor is needed.
 */

const u32Max = 0xffff_ffff;
const u16Max = 0xffff;
/** Written as one write at most this large: fewer, larger writes are what makes the archive fast. */
const flushBytes = 1024 * 1024;

interface CentralEntry {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
  dosTime: number;
  dosDate: number;
}

export interface ZipEntryResult {
  sizeBytes: number;
  sha256: string;
}

function toDos(date: Date): { dosTime: number; dosDate: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    dosTime: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    dosDate: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** A path of the archive: `/`-separated parts of [A-Za-z0-9._-], no `..`, nothing leading. */
export function assertArchivePath(name: string): void {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(name) || name.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`not an archive path: ${name}`);
  }
}

export class ZipWriter {
  private offset = 0;
  private readonly entries: CentralEntry[] = [];

  constructor(
    private readonly file: FileHandle,
    private readonly modifiedAt: Date,
  ) {}

  /** Bytes written so far. */
  get position(): number {
    return this.offset;
  }

  private async write(bytes: Buffer): Promise<void> {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.file.write(bytes, written, bytes.length - written, this.offset + written);
      written += bytesWritten;
    }
    this.offset += bytes.length;
  }

  /**
   * Adds one entry from a stream (or bytes). `expectedSize` reserves a ZIP64 extra in the local header
   * when the entry may pass 4 GiB; `onBytes` hears of each flushed write (progress).
   */
  async addEntry(name: string, source: Readable | Buffer, options: { expectedSize?: number; onBytes?: (bytes: number) => void } = {}): Promise<ZipEntryResult> {
    assertArchivePath(name);
    const nameBytes = Buffer.from(name, 'utf8');
    const isZip64Local = (options.expectedSize ?? 0) >= u32Max;
    const { dosTime, dosDate } = toDos(this.modifiedAt);
    const headerOffset = this.offset;
    const header = Buffer.alloc(30 + nameBytes.length + (isZip64Local ? 20 : 0));
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(isZip64Local ? 45 : 20, 4);
    header.writeUInt16LE(0x0800, 6);
    header.writeUInt16LE(0, 8);
    header.writeUInt16LE(dosTime, 10);
    header.writeUInt16LE(dosDate, 12);
    // CRC and sizes (14..25) are filled in once the data is written.
    header.writeUInt16LE(nameBytes.length, 26);
    header.writeUInt16LE(isZip64Local ? 20 : 0, 28);
    nameBytes.copy(header, 30);
    if (isZip64Local) {
      const extra = 30 + nameBytes.length;
      header.writeUInt16LE(0x0001, extra);
      header.writeUInt16LE(16, extra + 2);
    }
    await this.write(header);

    const hash = createHash('sha256');
    let crc = 0;
    let size = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const bytes = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await this.write(bytes);
      options.onBytes?.(bytes.length);
    };
    const take = async (chunk: Buffer) => {
      crc = crc32(chunk, crc);
      hash.update(chunk);
      size += chunk.length;
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= flushBytes) await flush();
    };
    if (Buffer.isBuffer(source)) await take(source);
    else for await (const chunk of source) await take(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    await flush();
    if (size >= u32Max && !isZip64Local) throw new Error(`${name} passed 4 GiB without a ZIP64 header reserved for it`);

    const sizes = Buffer.alloc(12);
    sizes.writeUInt32LE(crc >>> 0, 0);
    sizes.writeUInt32LE(isZip64Local ? u32Max : size, 4);
    sizes.writeUInt32LE(isZip64Local ? u32Max : size, 8);
    await this.file.write(sizes, 0, 12, headerOffset + 14);
    if (isZip64Local) {
      const zip64Sizes = Buffer.alloc(16);
      zip64Sizes.writeBigUInt64LE(BigInt(size), 0);
      zip64Sizes.writeBigUInt64LE(BigInt(size), 8);
      await this.file.write(zip64Sizes, 0, 16, headerOffset + 30 + nameBytes.length + 4);
    }
    this.entries.push({ name: nameBytes, crc: crc >>> 0, size, offset: headerOffset, dosTime, dosDate });
    return { sizeBytes: size, sha256: hash.digest('hex') };
  }

  /** The central directory and its end records; the file is complete after this. */
  async finish(): Promise<void> {
    const directoryOffset = this.offset;
    const parts: Buffer[] = [];
    for (const entry of this.entries) {
      const needsSize = entry.size >= u32Max;
      const needsOffset = entry.offset >= u32Max;
      const extraLength = needsSize || needsOffset ? 4 + (needsSize ? 16 : 0) + (needsOffset ? 8 : 0) : 0;
      const record = Buffer.alloc(46 + entry.name.length + extraLength);
      record.writeUInt32LE(0x02014b50, 0);
      // Made by Unix (3), spec 4.5; the mode in the external attributes (0644) is what unzip restores.
      record.writeUInt16LE((3 << 8) | 45, 4);
      record.writeUInt16LE(extraLength > 0 ? 45 : 20, 6);
      record.writeUInt16LE(0x0800, 8);
      record.writeUInt16LE(0, 10);
      record.writeUInt16LE(entry.dosTime, 12);
      record.writeUInt16LE(entry.dosDate, 14);
      record.writeUInt32LE(entry.crc, 16);
      record.writeUInt32LE(needsSize ? u32Max : entry.size, 20);
      record.writeUInt32LE(needsSize ? u32Max : entry.size, 24);
      record.writeUInt16LE(entry.name.length, 28);
      record.writeUInt16LE(extraLength, 30);
      record.writeUInt32LE((0o100644 << 16) >>> 0, 38);
      record.writeUInt32LE(needsOffset ? u32Max : entry.offset, 42);
      entry.name.copy(record, 46);
      if (extraLength > 0) {
        let at = 46 + entry.name.length;
        record.writeUInt16LE(0x0001, at);
        record.writeUInt16LE(extraLength - 4, at + 2);
        at += 4;
        if (needsSize) {
          record.writeBigUInt64LE(BigInt(entry.size), at);
          record.writeBigUInt64LE(BigInt(entry.size), at + 8);
          at += 16;
        }
        if (needsOffset) record.writeBigUInt64LE(BigInt(entry.offset), at);
      }
      parts.push(record);
    }
    await this.write(Buffer.concat(parts));
    const directorySize = this.offset - directoryOffset;
    const count = this.entries.length;
    if (count >= u16Max || directoryOffset >= u32Max || directorySize >= u32Max) {
      const zip64EndOffset = this.offset;
      const end64 = Buffer.alloc(56);
      end64.writeUInt32LE(0x06064b50, 0);
      end64.writeBigUInt64LE(44n, 4);
      end64.writeUInt16LE((3 << 8) | 45, 12);
      end64.writeUInt16LE(45, 14);
      end64.writeBigUInt64LE(BigInt(count), 24);
      end64.writeBigUInt64LE(BigInt(count), 32);
      end64.writeBigUInt64LE(BigInt(directorySize), 40);
      end64.writeBigUInt64LE(BigInt(directoryOffset), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      locator.writeBigUInt64LE(BigInt(zip64EndOffset), 8);
      locator.writeUInt32LE(1, 16);
      await this.write(Buffer.concat([end64, locator]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(count, u16Max), 8);
    end.writeUInt16LE(Math.min(count, u16Max), 10);
    end.writeUInt32LE(Math.min(directorySize, u32Max), 12);
    end.writeUInt32LE(Math.min(directoryOffset, u32Max), 16);
    await this.write(end);
  }
}
