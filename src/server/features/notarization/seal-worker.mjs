// Entry of a sealing thread: the renderer is TypeScript, so tsx is registered here (the thread
// starts with no loader of its own, under `tsx`, vitest or plain node alike).
import { register } from 'tsx/esm/api';

register();
await import('./seal-worker.ts');
