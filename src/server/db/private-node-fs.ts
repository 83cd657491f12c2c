import { NodeFS } from '@electric-sql/pglite/nodefs';
import type { PGlite } from '@electric-sql/pglite';
import { privateUmask } from '#server/lib/data-dir.ts';

type Attributes = { mode?: number } & Record<string, unknown>;
interface NodeOperations {
  mknod(parent: unknown, name: string, mode: number, device: number): unknown;
  setattr(target: unknown, attributes: Attributes): unknown;
}
interface EmscriptenNodeFs {
  node_ops: NodeOperations;
  stream_ops: Pick<NodeOperations, 'setattr'>;
  isMadePrivate?: boolean;
}
type EmscriptenOptions = Parameters<NodeFS['init']>[1];

const withoutGroupAndOther = (mode: number) => mode & ~privateUmask;
const maskAttributes = (attributes: Attributes): Attributes =>
  attributes.mode === undefined ? attributes : { ...attributes, mode: withoutGroupAndOther(attributes.mode) };

/**
 * PGlite's Node filesystem, with every file and directory it creates kept private. PostgreSQL in
 * WebAssembly sets modes through Emscripten, which applies its own umask (022) and then chmods the
 * file, so the process umask alone leaves WAL segments and relation files 0644 or 0666. Here every
 * mode PostgreSQL asks for loses its group and other bits before it reaches the disk.
 */
export class PrivateNodeFS extends NodeFS {
  override async init(pg: PGlite, options: EmscriptenOptions) {
    const makePrivate = (module: { NODEFS: unknown }) => {
      const nodeFs = module.NODEFS as EmscriptenNodeFs;
      if (nodeFs.isMadePrivate) return;
      nodeFs.isMadePrivate = true;
      const { mknod, setattr } = nodeFs.node_ops;
      const streamSetattr = nodeFs.stream_ops.setattr;
      nodeFs.node_ops.mknod = (parent, name, mode, device) => mknod(parent, name, withoutGroupAndOther(mode), device);
      nodeFs.node_ops.setattr = (node, attributes) => setattr(node, maskAttributes(attributes));
      nodeFs.stream_ops.setattr = (stream, attributes) => streamSetattr(stream, maskAttributes(attributes));
    };
    return super.init(pg, { ...options, preRun: [...(options.preRun ?? []), makePrivate] as EmscriptenOptions['preRun'] });
  }
}
