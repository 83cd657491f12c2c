import fs from 'node:fs';
import path from 'node:path';
import type { RecordedOperation } from './fs-recorder.ts';

/**
 * What a disk holds after a power cut, built from a base folder (durable: it was written and closed
 * before the recording began) and a log of fs-recorder.ts. The model is the one POSIX promises:
 * - a file's bytes (writes, truncations) survive only as of the file's last fsync;
 * - a name (a file or folder created, renamed or removed) survives only as of the last fsync of the
 *   folder holding it, and an entry of a folder that did not survive is gone with it.
 * Everything the kernel was not told to make durable is lost, as if the page cache never reached the
 * disk; nothing is half-written (a write either counts in full at the next fsync or not at all).
 */
interface Inode {
  isDirectory: boolean;
  durable: Buffer;
  current: Buffer;
}

export interface PowerLossDisk {
  /** Marks seen (in order) up to the cut. */
  marks: string[];
  /** Files whose last writes or truncations were lost because no fsync followed them. */
  filesWithLostBytes: number;
  /** Folders with names created, renamed or removed and no fsync of the folder afterwards. */
  lostNames: number;
}

const folderOf = (entry: string) => path.dirname(entry);
const resized = (bytes: Buffer, length: number) => {
  const next = Buffer.alloc(length);
  bytes.copy(next, 0, 0, Math.min(bytes.length, length));
  return next;
};

function readOperations(logPath: string): RecordedOperation[] {
  return fs
    .readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as RecordedOperation];
      } catch {
        // The writer was killed while writing its last line: that call had not returned.
        return [];
      }
    });
}

/**
 * Writes into `target` the disk as a power cut would leave it once the log's operations up to
 * `cutAfterMark` (a mark's label; the whole log when null) had been made.
 */
export function buildDiskAfterPowerLoss(baseDir: string, logPath: string, target: string, cutAfterMark: string | null = null): PowerLossDisk {
  const current = new Map<string, Inode>();
  const durable = new Map<string, Inode>();
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(baseDir, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      const isDirectory = entry.isDirectory();
      const bytes = isDirectory ? Buffer.alloc(0) : fs.readFileSync(path.join(baseDir, child));
      const inode: Inode = { isDirectory, durable: bytes, current: Buffer.from(bytes) };
      current.set(child, inode);
      durable.set(child, inode);
      if (isDirectory) walk(child);
    }
  };
  walk('');

  const rootFolder: Inode = { isDirectory: true, durable: Buffer.alloc(0), current: Buffer.alloc(0) };
  const open = new Map<number, { inode: Inode; path: string }>();
  const marks: string[] = [];
  const pendingBytes = new Set<Inode>();
  const changedFolders = new Set<string>();
  const changeBytes = (inode: Inode, next: Buffer) => {
    inode.current = next;
    pendingBytes.add(inode);
  };
  const inodeOf = (fd: number) => {
    const handle = open.get(fd);
    if (!handle) throw new Error(`power-loss: fd ${fd} was not opened under the folder`);
    return handle;
  };

  for (const operation of readOperations(logPath)) {
    switch (operation.op) {
      case 'open': {
        let inode = operation.path === '.' ? rootFolder : current.get(operation.path);
        if (!inode) {
          inode = { isDirectory: false, durable: Buffer.alloc(0), current: Buffer.alloc(0) };
          current.set(operation.path, inode);
          changedFolders.add(folderOf(operation.path));
        }
        const flags = operation.flags;
        const truncates = typeof flags === 'number' ? (flags & fs.constants.O_TRUNC) !== 0 : flags.startsWith('w');
        if (truncates && !inode.isDirectory) changeBytes(inode, Buffer.alloc(0));
        open.set(operation.fd, { inode, path: operation.path });
        break;
      }
      case 'write': {
        const { inode } = inodeOf(operation.fd);
        const data = Buffer.from(operation.data, 'base64');
        const next = resized(inode.current, Math.max(inode.current.length, operation.position + data.length));
        data.copy(next, operation.position);
        changeBytes(inode, next);
        break;
      }
      case 'ftruncate': {
        const { inode } = inodeOf(operation.fd);
        changeBytes(inode, resized(inode.current, operation.length));
        break;
      }
      case 'truncate': {
        const inode = current.get(operation.path);
        if (inode) changeBytes(inode, resized(inode.current, operation.length));
        break;
      }
      case 'create': {
        let inode = current.get(operation.path);
        if (!inode) {
          inode = { isDirectory: false, durable: Buffer.alloc(0), current: Buffer.alloc(0) };
          current.set(operation.path, inode);
          changedFolders.add(folderOf(operation.path));
        }
        changeBytes(inode, Buffer.from(operation.data, 'base64'));
        break;
      }
      case 'fsync': {
        const handle = inodeOf(operation.fd);
        if (handle.inode.isDirectory) {
          // The folder's entries become what they are now: new names appear, removed ones go.
          const folder = handle.path;
          for (const name of [...durable.keys()]) if (folderOf(name) === folder && !current.has(name)) durable.delete(name);
          for (const [name, inode] of current) if (folderOf(name) === folder) durable.set(name, inode);
          changedFolders.delete(folder);
        } else {
          handle.inode.durable = Buffer.from(handle.inode.current);
          pendingBytes.delete(handle.inode);
        }
        break;
      }
      case 'rename': {
        for (const [name, inode] of [...current]) {
          if (name === operation.from || name.startsWith(`${operation.from}${path.sep}`)) {
            current.delete(name);
            current.set(operation.to + name.slice(operation.from.length), inode);
          }
        }
        changedFolders.add(folderOf(operation.from));
        changedFolders.add(folderOf(operation.to));
        break;
      }
      case 'unlink':
      case 'rmdir':
        current.delete(operation.path);
        changedFolders.add(folderOf(operation.path));
        break;
      case 'mkdir':
        current.set(operation.path, { isDirectory: true, durable: Buffer.alloc(0), current: Buffer.alloc(0) });
        changedFolders.add(folderOf(operation.path));
        break;
      case 'close':
        open.delete(operation.fd);
        break;
      case 'mark':
        marks.push(operation.label);
        break;
    }
    if (operation.op === 'mark' && operation.label === cutAfterMark) break;
  }

  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  const survives = (name: string): boolean => {
    const folder = folderOf(name);
    return folder === '.' || (durable.get(folder)?.isDirectory === true && survives(folder));
  };
  const names = [...durable.keys()].filter(survives).sort((left, right) => left.split(path.sep).length - right.split(path.sep).length);
  for (const name of names) {
    const inode = durable.get(name) as Inode;
    if (inode.isDirectory) fs.mkdirSync(path.join(target, name), { mode: 0o700 });
    else fs.writeFileSync(path.join(target, name), inode.durable, { mode: 0o600 });
  }
  return { marks, filesWithLostBytes: pendingBytes.size, lostNames: changedFolders.size };
}
