import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

/**
 * A test-only preload (node --import) that writes down every change a process makes under one folder
 * through Node's fs module, in order, with the bytes written: opens, writes, truncations, fsyncs,
 * renames, unlinks, directory changes, closes. PGlite's Node filesystem reaches the disk only through
 * these calls, so the log tells exactly which bytes the process had asked the kernel to make durable
 * at each moment. power-loss.ts replays it to build what the disk would hold after a power cut.
 *
 * FS_RECORD_ROOT names the folder, FS_RECORD_LOG the log file (one JSON object a line). Without them
 * this module changes nothing.
 */
export type RecordedOperation =
  | { op: 'open'; fd: number; path: string; flags: number | string }
  | { op: 'write'; fd: number; position: number; data: string }
  | { op: 'ftruncate'; fd: number; length: number }
  | { op: 'truncate'; path: string; length: number }
  | { op: 'fsync'; fd: number }
  | { op: 'create'; path: string; data: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'unlink'; path: string }
  | { op: 'mkdir'; path: string }
  | { op: 'rmdir'; path: string }
  | { op: 'close'; fd: number }
  | { op: 'mark'; label: string };

const root = process.env.FS_RECORD_ROOT ? path.resolve(process.env.FS_RECORD_ROOT) : null;
const logPath = process.env.FS_RECORD_LOG;
const original = { ...fs };
const logFd = root && logPath ? original.openSync(logPath, 'a') : null;
const watchedFds = new Set<number>();

function record(operation: RecordedOperation) {
  if (logFd === null) return;
  original.writeSync(logFd, `${JSON.stringify(operation)}\n`);
}

/** Marks a point in the log (the writer marks each acknowledged row). */
export function recordMark(label: string): void {
  record({ op: 'mark', label });
}

const under = (target: fs.PathLike): string | null => {
  if (!root || typeof target !== 'string') return null;
  const relative = path.relative(root, path.resolve(target));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative === '' ? '.' : relative;
};
const toBytes = (data: unknown, offset = 0, length?: number): Buffer => {
  if (typeof data === 'string') return Buffer.from(data);
  const view = data as NodeJS.ArrayBufferView;
  const bytes = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  return Buffer.from(bytes.subarray(offset, length === undefined ? undefined : offset + length));
};
const unsupported = (name: string): never => {
  throw new Error(`fs-recorder: ${name} under the recorded folder is not modelled`);
};

if (logFd !== null) {
  const patched: Partial<typeof fs> = {
    openSync: ((target: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      const fd = original.openSync(target, flags ?? 'r', mode);
      const relative = under(target);
      if (relative !== null) {
        watchedFds.add(fd);
        record({ op: 'open', fd, path: relative, flags: flags ?? 'r' });
      }
      return fd;
    }) as typeof fs.openSync,
    writeSync: ((fd: number, data: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
      if (!watchedFds.has(fd)) return (original.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
      if (typeof data === 'string') return unsupported('writeSync of a string');
      const [offset, length, position] = rest as [number, number, number | null];
      if (typeof position !== 'number') return unsupported('writeSync without a position');
      const written = original.writeSync(fd, data, offset, length, position);
      record({ op: 'write', fd, position, data: toBytes(data, offset, written).toString('base64') });
      return written;
    }) as typeof fs.writeSync,
    writeFileSync: ((target: fs.PathOrFileDescriptor, data: string | NodeJS.ArrayBufferView, options?: fs.WriteFileOptions) => {
      original.writeFileSync(target, data, options);
      const relative = typeof target === 'number' ? null : under(target as fs.PathLike);
      if (relative !== null) record({ op: 'create', path: relative, data: toBytes(data).toString('base64') });
    }) as typeof fs.writeFileSync,
    ftruncateSync: ((fd: number, length = 0) => {
      original.ftruncateSync(fd, length);
      if (watchedFds.has(fd)) record({ op: 'ftruncate', fd, length });
    }) as typeof fs.ftruncateSync,
    truncateSync: ((target: fs.PathLike, length = 0) => {
      original.truncateSync(target, length);
      const relative = under(target);
      if (relative !== null) record({ op: 'truncate', path: relative, length });
    }) as typeof fs.truncateSync,
    fsyncSync: ((fd: number) => {
      original.fsyncSync(fd);
      if (watchedFds.has(fd)) record({ op: 'fsync', fd });
    }) as typeof fs.fsyncSync,
    fdatasyncSync: ((fd: number) => {
      original.fdatasyncSync(fd);
      if (watchedFds.has(fd)) record({ op: 'fsync', fd });
    }) as typeof fs.fdatasyncSync,
    closeSync: ((fd: number) => {
      original.closeSync(fd);
      if (watchedFds.delete(fd)) record({ op: 'close', fd });
    }) as typeof fs.closeSync,
    renameSync: ((from: fs.PathLike, to: fs.PathLike) => {
      original.renameSync(from, to);
      const [relativeFrom, relativeTo] = [under(from), under(to)];
      if (relativeFrom !== null && relativeTo !== null) record({ op: 'rename', from: relativeFrom, to: relativeTo });
      else if (relativeFrom !== null || relativeTo !== null) unsupported('a rename across the recorded folder');
    }) as typeof fs.renameSync,
    unlinkSync: ((target: fs.PathLike) => {
      original.unlinkSync(target);
      const relative = under(target);
      if (relative !== null) record({ op: 'unlink', path: relative });
    }) as typeof fs.unlinkSync,
    mkdirSync: ((target: fs.PathLike, options?: fs.Mode | fs.MakeDirectoryOptions) => {
      const relative = under(target);
      if (relative !== null && typeof options === 'object' && options?.recursive) {
        // mkdir -p of a folder that is already there changes nothing.
        if (original.existsSync(target)) return undefined;
        unsupported('a recursive mkdir');
      }
      const made = original.mkdirSync(target, options as fs.MakeDirectoryOptions);
      if (relative !== null) record({ op: 'mkdir', path: relative });
      return made;
    }) as typeof fs.mkdirSync,
    rmdirSync: ((target: fs.PathLike, options?: fs.RmDirOptions) => {
      original.rmdirSync(target, options);
      const relative = under(target);
      if (relative !== null) record({ op: 'rmdir', path: relative });
    }) as typeof fs.rmdirSync,
    symlinkSync: ((target: fs.PathLike, link: fs.PathLike, type?: fs.symlink.Type) => {
      if (under(link) !== null) unsupported('symlinkSync');
      original.symlinkSync(target, link, type);
    }) as typeof fs.symlinkSync,
  };
  Object.assign(fs, patched);
  syncBuiltinESMExports();
}
