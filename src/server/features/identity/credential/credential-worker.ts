import { parentPort } from 'node:worker_threads';
import { analyseCredential, type CredentialImages, type StatedPerson } from './credential-reader.ts';

/** One analysis thread of the pool in credential-analysis.ts: reads the ID photos it is sent, one job at a time. */

export interface AnalysisJob {
  id: number;
  input: CredentialImages;
  person: StatedPerson;
  /** ISO time the analysis counts expiry from. */
  now: string;
}

const port = parentPort;
if (!port) throw new Error('credential-worker.ts runs as a worker thread.');

port.on('message', (job: AnalysisJob) => {
  // Buffers arrive as Uint8Arrays; sharp and zxing want Buffers.
  const toBuffer = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : undefined);
  const input = {
    documentType: job.input.documentType,
    front: toBuffer(job.input.front),
    back: toBuffer(job.input.back),
    passport: toBuffer(job.input.passport),
  };
  analyseCredential(input, job.person, new Date(job.now)).then(
    (reading) => port.postMessage({ id: job.id, reading }),
    (error: unknown) => port.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
port.postMessage({ ready: true });
