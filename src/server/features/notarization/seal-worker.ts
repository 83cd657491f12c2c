import { parentPort } from 'node:worker_threads';
import { addSignaturePlaceholder, type PlaceholderMark, type SealCertificates, type SignatureInfo } from '#server/providers/signing/pades.ts';
import { renderNotarizedPdf, type AuditFacts, type CertificateFacts, type FieldToBurn } from './render.ts';

/**
 * One thread of the pool in seal-pool.ts: renders the notarized document of each job it is sent
 * (renderNotarizedPdf), one at a time, with the signature's placeholder added just before its save.
 * The signing itself (the notary's key) stays with the caller.
 */

type Bytes<T> = { [K in keyof T]: T[K] extends Buffer ? Uint8Array : T[K] extends Buffer | null | undefined ? Uint8Array | null | undefined : T[K] };

export interface SealJob {
  id: number;
  original: Uint8Array;
  fields: Array<Bytes<FieldToBurn>>;
  certificate: Bytes<CertificateFacts>;
  audit: AuditFacts;
  placeholder: { certificates: SealCertificates; info: SignatureInfo };
}

export type SealAnswer =
  { id: number; pdf: Uint8Array; pageCount: number; fullSaveReason: string | null; mark: PlaceholderMark } | { id: number; error: string };

/** Bytes that came through postMessage (a Uint8Array) as the Buffer the renderer takes, without a copy. */
function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The output's own buffer to move back to the caller: a copy when it shares one with other bytes. */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return new Uint8Array(bytes);
}

async function renderJob(job: SealJob): Promise<SealAnswer> {
  let mark: PlaceholderMark | null = null;
  const rendered = await renderNotarizedPdf({
    original: toBuffer(job.original),
    fields: job.fields.map((field) => ({ ...field, imagePng: field.imagePng ? toBuffer(field.imagePng) : null })),
    certificate: { ...job.certificate, notarySignaturePng: job.certificate.notarySignaturePng ? toBuffer(job.certificate.notarySignaturePng) : null },
    audit: job.audit,
    beforeSave: (document) => {
      mark = addSignaturePlaceholder(document, job.placeholder.certificates, job.placeholder.info);
    },
  });
  if (mark === null) throw new Error('the document was saved without its signature placeholder');
  return { id: job.id, pdf: ownBuffer(rendered.pdf), pageCount: rendered.pageCount, fullSaveReason: rendered.fullSaveReason, mark };
}

const port = parentPort;
if (!port) throw new Error('seal-worker.ts runs as a worker thread.');

port.on('message', (job: SealJob) => {
  renderJob(job).then(
    (answer) => port.postMessage(answer, 'pdf' in answer ? [answer.pdf.buffer as ArrayBuffer] : []),
    (error: unknown) => port.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) } satisfies SealAnswer),
  );
});
port.postMessage({ ready: true });
