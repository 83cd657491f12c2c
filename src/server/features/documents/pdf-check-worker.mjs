// Entry of a PDF-checking thread: the checker is TypeScript, so tsx is registered here (the thread
// starts with no loader of its own, under `tsx`, vitest or plain node alike).
import { register } from 'tsx/esm/api';

register();
await import('./pdf-check-worker.ts');
