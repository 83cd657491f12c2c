import { randomBytes } from 'node:crypto';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf, Signer } from '@signpdf/signpdf';
import { PDFDocument } from 'pdf-lib';
import type { SigningCredentials } from './certificates.ts';
import { createDetachedCmsSignature, createTimestampRequest, pemToDer, readTimestampResponse, readTimestampToken } from './cms.ts';

export interface SignatureInfo {
  reason: string;
  location: string;
  name: string;
  contactInfo: string;
  /** The /M entry of the signature dictionary; now by default. */
  signingTime?: Date;
  /** An RFC 3161 timestamp authority: the signature gets a timestamp token (PAdES B-T). */
  timestampUrl?: string | null;
}

const subFilter = 'ETSI.CAdES.detached';
/**
 * Bytes reserved for the CMS blob: the platform's chain fits in 8 KiB; an uploaded chain may need
 * more (its certificates plus room for the rest); a timestamp token needs room for the TSA's certificates.
 */
const signatureBytes = 8192;
const signatureOverheadBytes = 4096;
const timestampBytes = 12288;
const timestampTimeoutMs = 15_000;

/** Literal PDF strings as the placeholder writes them (raw, unescaped, one byte a character). */
function toPdfLiteral(value: string): string {
  return value
    .normalize('NFC')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
    .replace(/[\\()]/g, (character) => `\\${character}`);
}

class CmsSigner extends Signer {
  constructor(
    private readonly credentials: SigningCredentials,
    private readonly timestampUrl: string | null,
  ) {
    super();
  }

  override async sign(content: Buffer): Promise<Buffer> {
    const { timestampUrl } = this;
    return createDetachedCmsSignature(content, {
      certificatePem: this.credentials.certificatePem,
      privateKeyPem: this.credentials.privateKeyPem,
      chainPems: this.credentials.chainPems,
      timestamp: timestampUrl ? (digest) => fetchTimestampToken(timestampUrl, digest) : undefined,
    });
  }
}

/** Asks an RFC 3161 TSA for a token over `digest` and checks it answers for that digest and nonce. */
export async function fetchTimestampToken(url: string, digest: Buffer): Promise<Buffer> {
  const nonce = randomBytes(8);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
    body: new Uint8Array(createTimestampRequest(digest, nonce)),
    signal: AbortSignal.timeout(timestampTimeoutMs),
  });
  if (!response.ok) throw new Error(`the timestamp authority answered HTTP ${response.status}`);
  const token = readTimestampResponse(Buffer.from(await response.arrayBuffer()));
  const facts = readTimestampToken(token);
  const stripZeros = (bytes: Buffer) => bytes.subarray(bytes.findIndex((byte) => byte !== 0));
  if (!facts.hashedMessage.equals(digest)) throw new Error('the timestamp token is for another digest');
  if (!facts.nonce || !stripZeros(facts.nonce).equals(stripZeros(nonce))) throw new Error('the timestamp token does not carry our nonce');
  return token;
}

function getSignatureLength(credentials: SigningCredentials): number {
  const certificateBytes = [credentials.certificatePem, ...credentials.chainPems].reduce((total, pem) => total + pemToDer(pem).length, 0);
  return Math.max(signatureBytes, certificateBytes + signatureOverheadBytes);
}

/**
 * Adds the invisible signature field (on the last page) and its placeholder to a document about to
 * be saved; signPreparedPdf then signs the saved bytes. For a caller that builds the document
 * itself (renderNotarizedPdf), this saves one load and save of the whole file.
 */
export function addSignaturePlaceholder(document: PDFDocument, credentials: SigningCredentials, info: SignatureInfo): void {
  const pages = document.getPages();
  const lastPage = pages[pages.length - 1];
  if (!lastPage) throw new Error('the PDF has no pages');
  pdflibAddPlaceholder({
    pdfDoc: document,
    pdfPage: lastPage,
    reason: toPdfLiteral(info.reason),
    location: toPdfLiteral(info.location),
    name: toPdfLiteral(info.name),
    contactInfo: toPdfLiteral(info.contactInfo),
    signingTime: info.signingTime ?? new Date(),
    signatureLength: getSignatureLength(credentials) + (info.timestampUrl ? timestampBytes : 0),
    subFilter,
    widgetRect: [0, 0, 0, 0],
    appName: 'Open RON',
  });
}

/**
 * Signs a PDF saved (without object streams) after addSignaturePlaceholder: PAdES B-B
 * (ETSI.CAdES.detached, SHA-256), B-T with `timestampUrl`. Nothing may change the bytes afterwards.
 */
export async function signPreparedPdf(prepared: Buffer, credentials: SigningCredentials, info: Pick<SignatureInfo, 'timestampUrl'>): Promise<Buffer> {
  return new SignPdf().sign(prepared, new CmsSigner(credentials, info.timestampUrl ?? null));
}

/**
 * Adds an invisible signature field on the last page and signs the whole file: PAdES B-B
 * (ETSI.CAdES.detached, SHA-256), B-T with `timestampUrl`. This must be the very last step: any
 * later save of the PDF breaks the signature (pdf-lib has no incremental update).
 */
export async function signPdf(pdf: Buffer, credentials: SigningCredentials, info: SignatureInfo): Promise<Buffer> {
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  addSignaturePlaceholder(document, credentials, info);
  const prepared = Buffer.from(await document.save({ useObjectStreams: false }));
  return signPreparedPdf(prepared, credentials, info);
}
