/**
 * A ZIP reader over a random-access source (a File in the browser, a file handle in Node): it
 * reads the central directory (ZIP64 too) and then each entry's data in chunks, so an archive of
 * any size is never held in memory.
 */

export interface RandomAccessSource {
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface ZipEntry {
  name: string;
  /** 0 for STORED, the only method the archive format uses. */
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  localHeaderOffset: number;
  isDirectory: boolean;
}

export class ZipError extends Error {}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const uint64 = (data: DataView, offset: number) => data.getUint32(offset, true) + data.getUint32(offset + 4, true) * 2 ** 32;

/** Finds the end-of-central-directory record (and its ZIP64 counterpart) and lists the entries. */
export async function readZipDirectory(source: RandomAccessSource): Promise<ZipEntry[]> {
  if (source.size < 22) throw new ZipError('the file is too short to be a ZIP archive');
  const tailLength = Math.min(source.size, 22 + 65_535 + 20);
  const tailOffset = source.size - tailLength;
  const tail = await source.read(tailOffset, tailLength);
  const tailView = view(tail);
  let end = -1;
  for (let index = tail.length - 22; index >= 0; index--) {
    if (tailView.getUint32(index, true) === 0x06054b50 && index + 22 + tailView.getUint16(index + 20, true) === tail.length) {
      end = index;
      break;
    }
  }
  if (end < 0) throw new ZipError('no ZIP directory was found at its end (the file is not a ZIP archive, or it was cut short)');
  let entryCount = tailView.getUint16(end + 10, true);
  let directorySize = tailView.getUint32(end + 12, true);
  let directoryOffset = tailView.getUint32(end + 16, true);
  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = end - 20;
    if (locator < 0 || tailView.getUint32(locator, true) !== 0x07064b50) throw new ZipError('the ZIP64 directory locator is missing');
    const zip64Offset = uint64(tailView, locator + 8);
    const record = view(await source.read(zip64Offset, 56));
    if (record.getUint32(0, true) !== 0x06064b50) throw new ZipError('the ZIP64 directory record is missing');
    entryCount = uint64(record, 32);
    directorySize = uint64(record, 40);
    directoryOffset = uint64(record, 48);
  }
  if (directoryOffset + directorySize > source.size) throw new ZipError('the ZIP directory points past the end of the file (it was cut short)');
  const directory = await source.read(directoryOffset, directorySize);
  const data = view(directory);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const entries: ZipEntry[] = [];
  let position = 0;
  for (let index = 0; index < entryCount; index++) {
    if (position + 46 > directory.length || data.getUint32(position, true) !== 0x02014b50) throw new ZipError('the ZIP directory is damaged');
    const method = data.getUint16(position + 10, true);
    const crc32 = data.getUint32(position + 16, true);
    let compressedSize = data.getUint32(position + 20, true);
    let size = data.getUint32(position + 24, true);
    const nameLength = data.getUint16(position + 28, true);
    const extraLength = data.getUint16(position + 30, true);
    const commentLength = data.getUint16(position + 32, true);
    let localHeaderOffset = data.getUint32(position + 42, true);
    const name = decoder.decode(directory.subarray(position + 46, position + 46 + nameLength));
    // ZIP64 extended information: only the fields whose 32-bit value is all ones are present, in this order.
    let extra = position + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = data.getUint16(extra, true);
      const length = data.getUint16(extra + 2, true);
      if (id === 0x0001) {
        let field = extra + 4;
        if (size === 0xffffffff) {
          size = uint64(data, field);
          field += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = uint64(data, field);
          field += 8;
        }
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = uint64(data, field);
      }
      extra += 4 + length;
    }
    entries.push({ name, method, compressedSize, size, crc32, localHeaderOffset, isDirectory: name.endsWith('/') });
    position = extraEnd + commentLength;
  }
  return entries;
}

/** Where an entry's data starts: after its local header, whose name and extra field lengths may differ from the directory's. */
export async function getEntryDataOffset(source: RandomAccessSource, entry: ZipEntry): Promise<number> {
  if (entry.localHeaderOffset + 30 > source.size) throw new ZipError(`the data of ${entry.name} lies past the end of the file (it was cut short)`);
  const header = view(await source.read(entry.localHeaderOffset, 30));
  if (header.getUint32(0, true) !== 0x04034b50) throw new ZipError(`the local header of ${entry.name} is damaged`);
  const start = entry.localHeaderOffset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  if (start + entry.compressedSize > source.size) throw new ZipError(`the data of ${entry.name} runs past the end of the file (it was cut short)`);
  return start;
}

export const chunkBytes = 4 * 1024 * 1024;

/** Calls `onChunk` with an entry's stored bytes in order, chunk by chunk. */
export async function readEntryChunks(source: RandomAccessSource, entry: ZipEntry, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<void> {
  if (entry.method !== 0) throw new ZipError(`${entry.name} is compressed, and the archive format stores every file as is`);
  const start = await getEntryDataOffset(source, entry);
  for (let offset = 0; offset < entry.compressedSize; offset += chunkBytes) {
    await onChunk(await source.read(start + offset, Math.min(chunkBytes, entry.compressedSize - offset)));
  }
}

/** A source over bytes in memory (tests, small archives). */
export function createMemorySource(bytes: Uint8Array): RandomAccessSource {
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)) };
}

/** A source over a browser File or Blob: each read slices it, so only one chunk is in memory at a time. */
export function createBlobSource(blob: Blob): RandomAccessSource {
  return { size: blob.size, read: async (offset, length) => new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer()) };
}
