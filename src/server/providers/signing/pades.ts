import { createHash, randomBytes } from 'node:crypto';
import type { PDFDocument, PDFPage } from 'pdf-lib';
import { decodePDFRawStream, PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef, PDFString } from 'pdf-lib';
import type { SigningCredentials } from './certificates.ts';
import { createDetachedCmsSignature, createTimestampRequest, pemToDer, readTimestampResponse, readTimestampToken } from './cms.ts';
import { DocumentStructureError, IncrementalPdf } from './incremental.ts';

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
 * Bytes of CMS the placeholder has room for (it holds twice as many hex digits): at least 4 KiB
 * (the platform's chain makes about 3 KB), else the chain's certificates and 2 KiB for the rest (the
 * signed attributes, the signature value); a timestamp token needs room for the TSA's certificates.
 * These were counted in hex digits until Nov 28 (half the room), so a chain over about 4 KB, such as
 * a notary's own from a commercial authority, did not fit.
 */
const signatureBytes = 4096;
const signatureOverheadBytes = 2048;
const timestampBytes = 6144;
const timestampTimeoutMs = 15_000;
/**
 * The name a /ByteRange placeholder holds three times until it is signed, new for every signature
 * (decision 064): 64 random bits no original can carry, so the placeholder is found by it wherever
 * an original holds the text of another (a page the seal rewrites, a trailer it repeats).
 */
export type PlaceholderMark = `/RON${string}`;
/** Random bytes drawn 1 KB at a time: a call into OpenSSL for every 8 bytes cost more than the rest of placing the placeholder. */
let entropy = Buffer.alloc(0);
let entropyUsed = 0;

function newPlaceholderMark(): PlaceholderMark {
  if (entropyUsed + 8 > entropy.length) {
    entropy = randomBytes(1024);
    entropyUsed = 0;
  }
  entropyUsed += 8;
  return `/RON${entropy.toString('hex', entropyUsed - 8, entropyUsed)}`;
}

/**
 * The mark as a value of the placeholder's /ByteRange, written as the name it reads as. Not a
 * PDFName: pdf-lib keeps every name it makes for the life of the process, and each seal's mark is
 * new (decision 066).
 */
class PlaceholderMarkValue extends PDFObject {
  constructor(private readonly mark: PlaceholderMark) {
    super();
  }

  override clone(): PlaceholderMarkValue {
    return this;
  }

  override toString(): string {
    return this.mark;
  }

  override sizeInBytes(): number {
    return this.mark.length;
  }

  override copyBytesInto(buffer: Uint8Array, offset: number): number {
    buffer.set(Buffer.from(this.mark, 'latin1'), offset);
    return this.mark.length;
  }
}

/** Printable ASCII without a backslash or parenthesis: written as it is. */
const plainLiteral = /^[\x20-\x27\x2a-\x5b\x5d-\x7e]*$/;

/** Literal PDF strings as the placeholder writes them (raw, unescaped, one byte a character). */
function toPdfLiteral(value: string): string {
  if (plainLiteral.test(value)) return value;
  return value
    .normalize('NFC')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
    .replace(/[\\()]/g, (character) => `\\${character}`);
}

/** Asks an RFC 3161 TSA for a token over `digest` and checks it answers for that digest and nonce. */
export async function fetchTimestampToken(url: string, digest: Buffer): Promise<Buffer> {
  const nonce = randomBytes(8);
  const ask = () =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: new Uint8Array(createTimestampRequest(digest, nonce)),
      signal: AbortSignal.timeout(timestampTimeoutMs),
    });
  // A kept-alive connection the authority closed just as the request went out ends before any
  // answer; asking again on a new connection is safe (a query only asks for a token). A timeout
  // or an answer, even an error, is not asked again.
  const response = await ask().catch((error: unknown) => {
    if (isClosedBeforeAnswer(error)) return ask();
    throw error;
  });
  if (!response.ok) throw new Error(`the timestamp authority answered HTTP ${response.status}`);
  const token = readTimestampResponse(Buffer.from(await response.arrayBuffer()));
  const facts = readTimestampToken(token);
  const stripZeros = (bytes: Buffer) => bytes.subarray(bytes.findIndex((byte) => byte !== 0));
  if (!facts.hashedMessage.equals(digest)) throw new Error('the timestamp token is for another digest');
  if (!facts.nonce || !stripZeros(facts.nonce).equals(stripZeros(nonce))) throw new Error('the timestamp token does not carry our nonce');
  return token;
}

function isClosedBeforeAnswer(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error.cause as { code?: unknown } | undefined) : undefined;
  return ['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE'].includes(String(cause?.code));
}

function getSignatureLength(credentials: SealCertificates): number {
  const certificateBytes = [credentials.certificatePem, ...credentials.chainPems].reduce((total, pem) => total + pemToDer(pem).length, 0);
  return Math.max(signatureBytes, certificateBytes + signatureOverheadBytes);
}

/** What placing a signature's placeholder needs of the signer: its certificates (their size), never its key. */
export type SealCertificates = Pick<SigningCredentials, 'certificatePem' | 'chainPems'>;

/**
 * Adds the invisible signature field (on the last page) and its placeholder to a document about to
 * be saved; signPreparedPdf then signs the saved bytes. For a caller that builds the document
 * itself (renderNotarizedPdf), this saves one load and save of the whole file.
 */
export function addSignaturePlaceholder(document: PDFDocument, credentials: SealCertificates, info: SignatureInfo): PlaceholderMark {
  const page = document.getPages().at(-1);
  if (!page) throw new Error('the PDF has no pages');
  const { context } = document;
  const placeholderMark = newPlaceholderMark();
  const mark = new PlaceholderMarkValue(placeholderMark);
  const value = context.register(
    context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: subFilter,
      ByteRange: [0, mark, mark, mark],
      Contents: PDFHexString.of('0'.repeat(2 * (getSignatureLength(credentials) + (info.timestampUrl ? timestampBytes : 0)))),
      Reason: PDFString.of(toPdfLiteral(info.reason)),
      M: PDFString.fromDate(info.signingTime ?? new Date()),
      ContactInfo: PDFString.of(toPdfLiteral(info.contactInfo)),
      Name: PDFString.of(toPdfLiteral(info.name)),
      Location: PDFString.of(toPdfLiteral(info.location)),
      Prop_Build: { Filter: { Name: 'Adobe.PPKLite' }, App: { Name: 'Open RON' } },
    }),
  );
  // An empty appearance with empty resources: PDF/A asks for one, and Acrobat wants the resources.
  const appearance = context.register(context.formXObject([], { BBox: [0, 0, 0, 0], Resources: {} }));
  const widget = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      V: value,
      T: PDFString.of(freeFieldName(document, 'Signature')),
      F: 4, // print
      P: page.ref,
      AP: { N: appearance },
    }),
  );
  attachSignatureField(document, page, widget);
  return placeholderMark;
}

/** The first of prefix1, prefix2, ... that no field of the document's form is named. */
function freeFieldName(document: PDFDocument, prefix: string): string {
  const names = new Set(findFormFields(document).map((field) => field.lookupMaybe(PDFName.of('T'), PDFString, PDFHexString)?.decodeText()));
  let number = 1;
  while (names.has(`${prefix}${number}`)) number += 1;
  return `${prefix}${number}`;
}

/** Puts a signature field's widget on the page and in the form, whose /SigFlags say: signatures exist, append only. */
function attachSignatureField(document: PDFDocument, page: PDFPage, widget: PDFRef): void {
  const { context, catalog } = document;
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
  if (annots) annots.push(widget);
  else page.node.set(PDFName.of('Annots'), context.obj([widget]));
  let acroForm = catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (!acroForm) {
    acroForm = context.obj({});
    catalog.set(PDFName.of('AcroForm'), context.register(acroForm));
  }
  const fields = acroForm.lookupMaybe(PDFName.of('Fields'), PDFArray);
  if (fields) fields.push(widget);
  else acroForm.set(PDFName.of('Fields'), context.obj([widget]));
  const flags = acroForm.lookupMaybe(PDFName.of('SigFlags'), PDFNumber)?.asNumber() ?? 0;
  acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(flags | 3));
}

/** The fields of the document's form, nested ones included (a signature field may sit under /Kids). */
function findFormFields(document: PDFDocument): PDFDict[] {
  const acroForm = document.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  const found: PDFDict[] = [];
  const seen = new Set<PDFDict>();
  const visit = (array: PDFArray | undefined) => {
    for (let index = 0; array && index < array.size(); index += 1) {
      const field = array.lookupMaybe(index, PDFDict);
      if (!field || seen.has(field)) continue;
      seen.add(field);
      found.push(field);
      visit(field.lookupMaybe(PDFName.of('Kids'), PDFArray));
    }
  };
  visit(acroForm?.lookupMaybe(PDFName.of('Fields'), PDFArray));
  return found;
}

/**
 * One signature made in two steps around a save: `addPlaceholder` puts its field in the document
 * about to be saved (renderNotarizedPdf's beforeSave), `sign` signs the saved bytes by the
 * placeholder's mark, filling the placeholder in the buffer it is given once the signature is made
 * (a failed signing leaves it as it was, to be signed again).
 */
export function prepareSignature(credentials: SigningCredentials, info: SignatureInfo) {
  let mark: PlaceholderMark | null = null;
  return {
    addPlaceholder(document: PDFDocument): void {
      mark = addSignaturePlaceholder(document, credentials, info);
    },
    async sign(prepared: Buffer): Promise<Buffer> {
      if (!mark) throw new Error('sign() before addPlaceholder()');
      return signPreparedPdf(prepared, credentials, info, mark);
    },
  };
}

/**
 * Signs a PDF saved (without object streams) after addSignaturePlaceholder, whose mark it gave:
 * PAdES B-B (ETSI.CAdES.detached, SHA-256), B-T with `timestampUrl`. Nothing may change the bytes
 * afterwards.
 */
export async function signPreparedPdf(
  prepared: Buffer,
  credentials: SigningCredentials,
  info: Pick<SignatureInfo, 'timestampUrl'>,
  mark: PlaceholderMark,
): Promise<Buffer> {
  const timestampUrl = info.timestampUrl ?? null;
  return fillSignaturePlaceholder(prepared, mark, (content) =>
    createDetachedCmsSignature(content, {
      certificatePem: credentials.certificatePem,
      privateKeyPem: credentials.privateKeyPem,
      chainPems: credentials.chainPems,
      timestamp: timestampUrl ? (digest) => fetchTimestampToken(timestampUrl, digest) : undefined,
    }),
  );
}

/** A placeholder's /ByteRange, its three marks captured. */
const byteRangePlaceholder = /^\/ByteRange\s*\[\s*0\s+(\/[^\s/\]]+)\s+(\/[^\s/\]]+)\s+(\/[^\s/\]]+)\s*\]/;

/**
 * Signs the placeholder marked `mark` (ISO 32000-2, 12.8.1): its /ByteRange becomes the whole file
 * but the /Contents hex string, `sign` gets the bytes those ranges cover, and its DER goes into the
 * hex string, padded with zeros. A file whose last three marks are not one /ByteRange is refused.
 * `prepared` is the buffer a save just made, and it is filled in place once the signature is made
 * (no copy of the file); until then it is left as it was.
 */
async function fillSignaturePlaceholder(prepared: Buffer, mark: PlaceholderMark, sign: (content: Buffer[]) => Promise<Buffer>): Promise<Buffer> {
  // Searched from the end: the placeholder is in the revision just appended, and the mark is new
  // and random (no original can hold it), so its last three places are the placeholder's.
  const marksAt: number[] = [];
  for (let at = prepared.lastIndexOf(mark); at !== -1 && marksAt.length < 3; at = at === 0 ? -1 : prepared.lastIndexOf(mark, at - 1)) marksAt.unshift(at);
  const rangeAt = marksAt.length === 3 ? prepared.lastIndexOf('/ByteRange', marksAt[0]) : -1;
  // In pdf-lib's spacing ("[ 0 /RON… /RON… /RON… ]") or any other. One expression for every mark:
  // one made for each would be compiled for each seal and kept in V8's cache of expressions.
  const found = rangeAt === -1 ? null : byteRangePlaceholder.exec(prepared.toString('latin1', rangeAt, rangeAt + 128));
  if (!found || found[1] !== mark || found[2] !== mark || found[3] !== mark) throw new DocumentStructureError('the PDF has no signature placeholder to fill');
  const placeholderLength = found[0].length;
  const contentsAt = prepared.indexOf('/Contents', rangeAt + placeholderLength);
  const start = contentsAt === -1 ? -1 : prepared.indexOf('<', contentsAt);
  const end = start === -1 ? -1 : prepared.indexOf('>', start);
  if (end === -1) throw new DocumentStructureError('the signature placeholder has no /Contents');
  const byteRange = `/ByteRange [0 ${start} ${end + 1} ${prepared.length - end - 1}]`;
  if (byteRange.length > placeholderLength) throw new DocumentStructureError('the signature placeholder is too short for the byte range');
  const byteRangeBytes = Buffer.from(byteRange.padEnd(placeholderLength, ' '), 'latin1');
  // The two byte ranges as they will be, hashed where they are: nothing is written until the
  // signature is made, so a signing that fails (a timestamp authority down) leaves the file as it was.
  const signature = await sign([
    prepared.subarray(0, rangeAt),
    byteRangeBytes,
    prepared.subarray(rangeAt + placeholderLength, start),
    prepared.subarray(end + 1),
  ]);
  const room = Math.floor((end - start - 1) / 2);
  if (signature.length > room) throw new Error(`the signature (${signature.length} bytes) does not fit its placeholder (${room} bytes)`);
  byteRangeBytes.copy(prepared, rangeAt);
  prepared.fill(0x30, start + 1, end);
  prepared.write(signature.toString('hex'), start + 1, 'latin1');
  return prepared;
}

/**
 * Adds an invisible signature field on the last page in a revision appended to `pdf` (incremental.ts)
 * and signs the whole file: PAdES B-B (ETSI.CAdES.detached, SHA-256), B-T with `timestampUrl`. The
 * original's bytes stay as they are, so a signature it already carries stays valid. Later changes
 * must be appended the same way (appendDss, appendDocumentTimestamp).
 */
export async function signPdf(pdf: Buffer, credentials: SigningCredentials, info: SignatureInfo): Promise<Buffer> {
  const incremental = await IncrementalPdf.load(pdf);
  const mark = addSignaturePlaceholder(incremental.document, credentials, info);
  const { pdf: prepared } = await incremental.save();
  return signPreparedPdf(prepared, credentials, info, mark);
}

// ---------------------------------------------------------------------------------------------
// Long-term validation: the document security store and document timestamps (PAdES B-LT, B-LTA)

/** What a verifier needs to check the signatures later without asking anyone: DER encodings. */
export interface ValidationData {
  certificates: Buffer[];
  ocspResponses: Buffer[];
  crls: Buffer[];
}

/** The signatures and document timestamps of the document: each /V of a signature field with its /Contents bytes. */
function findSignatureValues(document: PDFDocument): Buffer[] {
  const values: Buffer[] = [];
  for (const field of findFormFields(document)) {
    const value = field.lookupMaybe(PDFName.of('V'), PDFDict);
    const contents = value?.lookupMaybe(PDFName.of('Contents'), PDFString, PDFHexString);
    if (contents && value?.has(PDFName.of('ByteRange'))) values.push(Buffer.from(contents.asBytes()));
  }
  return values;
}

function readStreamBytes(stream: PDFObject | undefined): Buffer | null {
  if (!(stream instanceof PDFRawStream)) return null;
  return Buffer.from(stream.dict.has(PDFName.of('Filter')) ? decodePDFRawStream(stream).decode() : stream.contents);
}

/**
 * Appends a revision that adds the validation data to the catalog's document security store (ISO
 * 32000-2 section 12.8.4.3, ETSI EN 319 142-1): each certificate, OCSP response and CRL once (those
 * already there are not added again), stored as they were given, and a /VRI entry for every
 * signature, keyed by the uppercase hex SHA-1 of its /Contents, naming them with the time (/TU).
 * Earlier signatures stay valid: their bytes are not touched.
 */
export async function appendDss(pdf: Buffer, data: ValidationData): Promise<Buffer> {
  try {
    return await appendDssRevision(pdf, data);
  } catch (error) {
    // Nothing here asks anyone: a failure is the file's (a /DSS that is no dictionary, a stream no filter reads).
    throw error instanceof DocumentStructureError
      ? error
      : new DocumentStructureError(`the document security store cannot be added: ${String(error)}`, { cause: error });
  }
}

async function appendDssRevision(pdf: Buffer, data: ValidationData): Promise<Buffer> {
  const incremental = await IncrementalPdf.load(pdf, { isAppendOnly: true });
  const { document } = incremental;
  const { context, catalog } = document;
  let dss = catalog.lookupMaybe(PDFName.of('DSS'), PDFDict);
  if (!dss) {
    dss = context.obj({ Type: 'DSS' });
    catalog.set(PDFName.of('DSS'), context.register(dss));
  }
  const store = dss;
  const addAll = (key: 'Certs' | 'OCSPs' | 'CRLs', items: Buffer[]): PDFRef[] => {
    let array = store.lookupMaybe(PDFName.of(key), PDFArray);
    if (!array) {
      array = context.obj([]);
      store.set(PDFName.of(key), context.register(array));
    }
    const known = new Map<string, PDFRef>();
    for (let index = 0; index < array.size(); index += 1) {
      const ref = array.get(index);
      const bytes = readStreamBytes(context.lookup(ref));
      if (ref instanceof PDFRef && bytes) known.set(bytes.toString('base64'), ref);
    }
    const refs: PDFRef[] = [];
    for (const item of items) {
      const key64 = item.toString('base64');
      let ref = known.get(key64);
      if (!ref) {
        ref = context.register(context.stream(new Uint8Array(item)));
        array.push(ref);
        known.set(key64, ref);
      }
      if (!refs.includes(ref)) refs.push(ref);
    }
    return refs;
  };
  const refs = { Cert: addAll('Certs', data.certificates), OCSP: addAll('OCSPs', data.ocspResponses), CRL: addAll('CRLs', data.crls) };
  let vri = store.lookupMaybe(PDFName.of('VRI'), PDFDict);
  if (!vri) {
    vri = context.obj({});
    store.set(PDFName.of('VRI'), context.register(vri));
  }
  const now = PDFString.fromDate(new Date());
  for (const contents of findSignatureValues(document)) {
    const key = PDFName.of(createHash('sha1').update(contents).digest('hex').toUpperCase());
    let entry = vri.lookupMaybe(key, PDFDict);
    if (!entry) {
      entry = context.obj({});
      vri.set(key, context.register(entry));
    }
    for (const [name, added] of Object.entries(refs)) {
      if (added.length === 0) continue;
      let array = entry.lookupMaybe(PDFName.of(name), PDFArray);
      if (!array) {
        array = context.obj([]);
        entry.set(PDFName.of(name), array);
      }
      const present = new Set(array.asArray());
      for (const ref of added) if (!present.has(ref)) array.push(ref);
    }
    entry.set(PDFName.of('TU'), now);
  }
  return (await incremental.save()).pdf;
}

/** Room for the timestamp token: the TSA's certificates travel in it. */
const documentTimestampBytes = 16384;

/**
 * Appends a revision holding a document timestamp (ISO 32000-2 section 12.8.5, PAdES B-LTA): an
 * invisible signature field whose value is /Type /DocTimeStamp, /SubFilter /ETSI.RFC3161, its
 * /Contents the RFC 3161 token of `tsaUrl` over the SHA-256 of the bytes its /ByteRange covers
 * (the whole file but the token). Returns the file and the token (DER).
 */
export async function appendDocumentTimestamp(pdf: Buffer, tsaUrl: string): Promise<{ pdf: Buffer; token: Buffer }> {
  const { prepared, mark } = await addDocumentTimestampPlaceholder(pdf).catch((error: unknown) => {
    throw error instanceof DocumentStructureError
      ? error
      : new DocumentStructureError(`the archive timestamp cannot be added: ${String(error)}`, { cause: error });
  });
  let token: Buffer | null = null;
  const stamped = await fillSignaturePlaceholder(prepared, mark, async (content) => {
    const hash = createHash('sha256');
    for (const piece of content) hash.update(piece);
    token = await fetchTimestampToken(tsaUrl, hash.digest());
    return token;
  });
  if (!token) throw new Error('the timestamp authority gave no token');
  return { pdf: stamped, token };
}

/** The revision of a document timestamp with its placeholder, saved (the token goes in afterwards). */
async function addDocumentTimestampPlaceholder(pdf: Buffer): Promise<{ prepared: Buffer; mark: PlaceholderMark }> {
  const incremental = await IncrementalPdf.load(pdf, { isAppendOnly: true });
  const { document } = incremental;
  const { context } = document;
  const page = document.getPages().at(-1);
  if (!page) throw new Error('the PDF has no pages');
  const mark = newPlaceholderMark();
  const placeholder = new PlaceholderMarkValue(mark);
  const value = context.register(
    context.obj({
      Type: 'DocTimeStamp',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'ETSI.RFC3161',
      ByteRange: [0, placeholder, placeholder, placeholder],
      Contents: PDFHexString.of('0'.repeat(documentTimestampBytes * 2)),
    }),
  );
  const widget = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      F: 132, // print, locked
      T: PDFString.of(freeFieldName(document, 'DocumentTimestamp')),
      V: value,
      P: page.ref,
    }),
  );
  attachSignatureField(document, page, widget);
  const { pdf: prepared } = await incremental.save();
  return { prepared, mark };
}
