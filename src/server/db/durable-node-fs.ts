import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrivateNodeFS } from './private-node-fs.ts';

interface EmscriptenStream {
  nfd?: number;
}
interface EmscriptenNodeFs {
  stream_ops: { fsync?: (stream: EmscriptenStream) => number };
  isFsyncDurable?: boolean;
}
type EmscriptenOptions = Parameters<PrivateNodeFS['init']>[1];

/**
 * PGlite's start-up options with PostgreSQL's fsync on. PGlite starts PostgreSQL with -F (fsync off);
 * without it PostgreSQL flushes the WAL at each commit before the commit returns, and fsyncs data
 * files, the control file and folders at checkpoints, as a server does. The WebAssembly build's
 * fdatasync does nothing, so the WAL is flushed with fsync, which reaches durableNodeFs below.
 */
export const durableStartParams: string[] = [...PGlite.defaultStartParams.filter((parameter) => parameter !== '-F'), '-c', 'wal_sync_method=fsync'];

/** fsyncs every file and folder under `root` (folders after their entries). */
export function fsyncTree(root: string): void {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const entryPath = path.join(root, entry.name);
    if (entry.isDirectory()) fsyncTree(entryPath);
    else if (entry.isFile()) fsyncPath(entryPath);
  }
  fsyncPath(root);
}

function fsyncPath(target: string): void {
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The data folder's filesystem, private (PrivateNodeFS) and durable. Emscripten's Node filesystem
 * writes with fs.writeSync, which leaves the bytes in the page cache, and has no fsync: PostgreSQL's
 * fsync of a WAL segment, a data file or a folder did nothing, so a power cut could lose what a
 * commit had acknowledged. Here an fsync PostgreSQL asks for is an fsync of the real file.
 *
 * The first sync PGlite asks for (right after a new cluster's files are written, or after the first
 * query on an existing one, before the app runs any) fsyncs the whole folder once: a new cluster's
 * files, and an older install's written with fsync off, are on the disk before anything is acknowledged.
 */
export class DurableNodeFS extends PrivateNodeFS {
  private isTreeSynced = false;

  override async init(pg: PGlite, options: EmscriptenOptions) {
    const fsyncReachesDisk = (module: { NODEFS: unknown }) => {
      const nodeFs = module.NODEFS as EmscriptenNodeFs;
      if (nodeFs.isFsyncDurable) return;
      nodeFs.isFsyncDurable = true;
      nodeFs.stream_ops.fsync = (stream) => {
        if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd);
        return 0;
      };
    };
    return super.init(pg, { ...options, preRun: [...(options.preRun ?? []), fsyncReachesDisk] as EmscriptenOptions['preRun'] });
  }

  override async syncToFs(): Promise<void> {
    if (this.isTreeSynced) return;
    this.isTreeSynced = true;
    fsyncTree(this.rootDir);
  }
}
