import { deflateSync } from 'node:zlib';
import { execFile } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFInvalidObject, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, StandardFonts } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createDatabase, type Database, type Db } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { renderNotarizedPdf, type AuditFacts, type CertificateFacts } from '#server/features/notarization/render.ts';
import { startTsaStandIn, type TsaStandIn } from '#test/tsa-stand-in.ts';
import { getOrCreatePlatformCa, getOrIssueNotaryCredentials, type SigningCredentials } from './certificates.ts';
import { isUnreadRawDict } from '#server/lib/pdf-quick-parser.ts';
import { checkTableEntries, IncrementalPdf, largestReferenced, writeIndirectObject } from './incremental.ts';
import { appendDocumentTimestamp, appendDss, prepareSignature, signPdf } from './pades.ts';
import { verifyWithPdfsig } from './pdfsig.ts';
import { checkPdfWithQpdf, makeDeedPdf } from '#test/pdf-fixtures.ts';

const run = promisify(execFile);
const dump = () => new Blob([fs.readFileSync(inject('pgliteDumpPath'))]);

let database: Database;
let db: Db;
let workDirectory: string;
let caPem: string;
let notary: SigningCredentials;
let otherSigner: SigningCredentials;
const secretsKey = randomBytes(32);
const info = { reason: 'Acknowledgment (remote online notarization)', location: 'Travis, TX', name: 'Nora Q. Notary', contactInfo: 'nora@example.test' };

async function issue(name: string): Promise<SigningCredentials> {
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}.${randomBytes(3).toString('hex')}@example.test`;
  const [row] = await db
    .insert(users)
    .values({ email, name, roles: ['notary'] })
    .returning({ id: users.id });
  if (!row) throw new Error('user insert failed');
  return getOrIssueNotaryCredentials(db, secretsKey, {
    userId: row.id,
    name,
    email,
    commissionState: 'TX',
    commissionNumber: '13245768-9',
    commissionExpiresOn: '2030-06-30',
  });
}

beforeAll(async () => {
  database = await createDatabase({ databaseUrl: null, dataDir: null, loadDataDir: dump() });
  db = database.db;
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-incremental-test-'));
  caPem = (await getOrCreatePlatformCa(db, secretsKey)).certificatePem;
  notary = await issue('Nora Q. Notary');
  otherSigner = await issue('Olga Other');
});

afterAll(async () => {
  await database?.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

async function writeTemporary(name: string, bytes: Buffer): Promise<string> {
  const file = path.join(workDirectory, `${randomBytes(4).toString('hex')}-${name}`);
  await fs.promises.writeFile(file, bytes);
  return file;
}

/** pdfsig's blocks, one a signature, in file order. */
function pdfsigBlocks(output: string): string[] {
  return output.split(/^Signature #\d+:$/m).slice(1);
}

/** An original that already carries an incremental update of its own (a page drawn on, written by hand). */
/** An original rewritten by qpdf with object streams: its cross-reference stream uses /Predictor 12, as most programs' do. */
async function makeQpdfOriginal(): Promise<Buffer> {
  const input = await writeTemporary('plain.pdf', await makeDeedPdf({ pageCount: 3, useObjectStreams: false }));
  const output = `${input}.qpdf.pdf`;
  await run('qpdf', ['--object-streams=generate', input, output]);
  const bytes = await fs.promises.readFile(output);
  expect(bytes.toString('latin1')).toMatch(/\/Predictor 12/);
  return bytes;
}

async function makeUpdatedOriginal(): Promise<Buffer> {
  const base = await makeDeedPdf({ pageCount: 2, useObjectStreams: false });
  const updated = await IncrementalPdf.load(base);
  updated.document.getPages()[0]?.drawText('Amended by the lender', { x: 72, y: 600, size: 12 });
  return (await updated.save()).pdf;
}

const certificate: CertificateFacts = {
  actKey: 'acknowledgment',
  actLabel: 'Acknowledgment',
  notaryName: 'Nora Q. Notary',
  commissionNumber: '13245768-9',
  commissionState: 'TX',
  county: 'Travis',
  commissionExpiresOn: '2030-06-30',
  notarizedAt: new Date('2026-03-14T15:09:26Z'),
  signerNames: ['Sam Signer'],
  timeZone: 'America/Chicago',
  notarialFacts: { isNotarialAct: true, hasRecordedSession: true, hasProvenIdentity: true, reasons: [] },
  verification: { id: '0e5b2a4c-7d1f-4c3b-9a8e-1f2d3c4b5a69', url: 'https://notary.example.test/verify?id=0e5b2a4c-7d1f-4c3b-9a8e-1f2d3c4b5a69' },
};

const audit: AuditFacts = {
  jobId: '5b7c0e9e-1111-4222-8333-444455556666',
  jobTitle: 'Refinance closing',
  documentName: 'deed-of-trust.pdf',
  originalSha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  signers: [{ name: 'Sam Signer', role: 'signer', signedAt: new Date('2026-03-14T15:05:00Z'), identityMethod: 'Personal knowledge of the notary' }],
  recordingReference: null,
  events: [
    {
      at: new Date('2026-03-14T15:05:00Z'),
      action: 'field.filled',
      actorName: 'Sam Signer',
      data: { documentName: 'deed-of-trust.pdf', page: 1, type: 'name' },
    },
  ],
};

/** The seal as complete-job makes it: render with the placeholder in the appended revision, then sign. */
async function seal(original: Buffer) {
  const signature = prepareSignature(notary, { ...info, timestampUrl: null });
  const rendered = await renderNotarizedPdf({
    original,
    fields: [{ type: 'name', page: 1, x: 0.1, y: 0.8, width: 0.4, height: 0.04, value: 'Sam Signer', imagePng: null }],
    certificate,
    audit,
    beforeSave: signature.addPlaceholder,
  });
  return { ...rendered, signed: await signature.sign(rendered.pdf) };
}

async function readWithPdfjs(pdf: Buffer): Promise<{ pageCount: number; lastPagesText: string }> {
  const document = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, verbosity: 0 }).promise;
  try {
    let lastPagesText = '';
    for (let number = Math.max(1, document.numPages - 1); number <= document.numPages; number += 1) {
      const content = await (await document.getPage(number)).getTextContent();
      lastPagesText += content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
    }
    return { pageCount: document.numPages, lastPagesText };
  } finally {
    await document.destroy();
  }
}

/** The names of the signature fields the newest revision's form holds. */
function signatureFieldNames(document: PDFDocument): string[] {
  return document
    .getForm()
    .getFields()
    .filter((field) => field.acroField.dict.lookupMaybe(PDFName.of('FT'), PDFName) === PDFName.of('Sig'))
    .map((field) => field.getName());
}

describe('the seal appended as an incremental update', () => {
  const originals: Array<[string, () => Promise<Buffer>, 'xref' | '/Type /XRef']> = [
    ['a classic cross-reference table', () => makeDeedPdf({ pageCount: 3, useObjectStreams: false }), 'xref'],
    ['a cross-reference stream and object streams', () => makeDeedPdf({ pageCount: 3, useObjectStreams: true }), '/Type /XRef'],
    ['an incremental update of its own', makeUpdatedOriginal, 'xref'],
    ['a cross-reference stream with PNG predictors, as qpdf and most programs write it', makeQpdfOriginal, '/Type /XRef'],
  ];

  it.each(originals)('keeps an original with %s as the first bytes of a valid signed file', async (_kind, make, xrefMark) => {
    const original = await make();
    const { signed, pageCount, fullSaveReason } = await seal(original);

    expect(fullSaveReason).toBeNull();
    expect(signed.subarray(0, original.length).equals(original)).toBe(true);
    const appended = signed.subarray(original.length).toString('latin1');
    expect(appended).toContain(xrefMark);
    expect(appended).toMatch(new RegExp(`/Prev ${/startxref\s+(\d+)\s+%%EOF\s*$/.exec(original.toString('latin1'))?.[1]}\\b`));
    expect(signed.subarray(-6).toString('latin1')).toBe('\n%%EOF');
    // Only what changed is appended: the original pages' content streams are not written again.
    const reloaded = await PDFDocument.load(signed);
    expect(appended.match(/ \d+ obj\n/g)?.length ?? 0).toBeLessThan(reloaded.context.enumerateIndirectObjects().length - 3);

    await checkPdfWithQpdf(signed);
    const report = await verifyWithPdfsig(signed, caPem);
    expect(report, report.output).toMatchObject({ isValid: true, isTrusted: true, isTotal: true, hasDigestMismatch: false, signatureCount: 1 });

    const originalPageCount = (await PDFDocument.load(original)).getPageCount();
    expect(pageCount).toBeGreaterThanOrEqual(originalPageCount + 2);
    expect(reloaded.getPageCount()).toBe(pageCount);
    expect(signatureFieldNames(reloaded)).toEqual(['Signature1']);
    const viewed = await readWithPdfjs(signed);
    expect(viewed.pageCount).toBe(pageCount);
    expect(viewed.lastPagesText).toContain('deed-of-trust.pdf');
    const { stdout } = await run('pdftotext', ['-f', '1', '-l', '1', await writeTemporary('first.pdf', signed), '-']);
    expect(stdout).toContain('Deed of trust, page 1');
    expect(stdout).toContain('Sam Signer');
  });

  it('keeps the signature an original already carries valid beside the seal', async () => {
    const original = await signPdf(await makeDeedPdf({ pageCount: 2, useObjectStreams: true }), otherSigner, { ...info, name: 'Olga Other' });
    const { signed, fullSaveReason } = await seal(original);

    expect(fullSaveReason).toBeNull();
    expect(signed.subarray(0, original.length).equals(original)).toBe(true);
    await checkPdfWithQpdf(signed);
    const report = await verifyWithPdfsig(signed, caPem);
    expect(report.signatureCount, report.output).toBe(2);
    expect(report, report.output).toMatchObject({ isValid: true, isTrusted: true, hasDigestMismatch: false });
    const [earlier, ours] = pdfsigBlocks(report.output);
    expect(earlier).toContain('Olga Other');
    expect(earlier).not.toMatch(/Total document signed/);
    expect(ours).toContain('Nora Q. Notary');
    expect(ours).toMatch(/^\s*- Total document signed$/m);
    // Both fields stay in the form (the signed original's form is not flattened), under two names.
    expect(signatureFieldNames(await PDFDocument.load(signed)).sort()).toEqual(['Signature1', 'Signature2']);
  });

  it('saves a damaged original again as a whole and says why', async () => {
    const original = await makeDeedPdf({ pageCount: 2, useObjectStreams: false });
    const text = original.toString('latin1');
    const offset = /startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))?.[1] ?? '';
    // The last startxref points into the middle of an object.
    const damaged = Buffer.from(text.slice(0, text.lastIndexOf('startxref')) + `startxref\n${Number(offset) - 50}\n%%EOF\n`, 'latin1');
    const { signed, fullSaveReason } = await seal(damaged);

    expect(fullSaveReason).toMatch(/^The original was saved again as a whole because .+\.$/);
    expect(signed.subarray(0, damaged.length).equals(damaged)).toBe(false);
    await checkPdfWithQpdf(signed);
    expect(await verifyWithPdfsig(signed, caPem)).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });

    const truncated = original.subarray(0, original.toString('latin1').lastIndexOf('trailer'));
    const fromTruncated = await seal(truncated);
    expect(fromTruncated.fullSaveReason).toBe('The original was saved again as a whole because it has no startxref at its end.');
    expect(await verifyWithPdfsig(fromTruncated.signed, caPem)).toMatchObject({ isValid: true, isTotal: true });

    // Bytes slipped in after the header, the startxref moved with them: the stream's own offsets are now wrong.
    const streamed = (await makeDeedPdf({ pageCount: 2, useObjectStreams: true })).toString('latin1');
    const headerEnd = streamed.indexOf('\n', streamed.indexOf('\n') + 1) + 1;
    const last = streamed.lastIndexOf('startxref');
    const streamOffset = Number(/startxref\s+(\d+)/.exec(streamed.slice(last))?.[1]);
    const shifted = Buffer.from(
      `${streamed.slice(0, headerEnd)}%inserted\n${streamed.slice(headerEnd, last)}startxref\n${streamOffset + '%inserted\n'.length}\n%%EOF\n`,
      'latin1',
    );
    const fromShifted = await seal(shifted);
    expect(fromShifted.fullSaveReason).toMatch(
      /^The original was saved again as a whole because its cross-reference stream places object \d+ at byte \d+, where that object does not start\.$/,
    );
    await checkPdfWithQpdf(fromShifted.signed);
    expect(await verifyWithPdfsig(fromShifted.signed, caPem)).toMatchObject({ isValid: true, isTotal: true });

    // A page pdf-lib cannot read, its table intact (the same number of bytes): read lazily it would
    // be left out of the pages, so the file is read whole and saved again, as before.
    const classic = (await makeDeedPdf({ pageCount: 2, useObjectStreams: false })).toString('latin1');
    const garbledPage = Buffer.from(classic.replace('/Type /Page\n/Parent', '[[[[[ ((((( ]]]]]]]'), 'latin1');
    expect(garbledPage.length).toBe(classic.length);
    const fromGarbledPage = await seal(garbledPage);
    expect(fromGarbledPage.fullSaveReason).toMatch(
      /^The original was saved again as a whole because pdf-lib could not read object \d+ and kept its bytes as they were\.$/,
    );
  });

  it('writes the resources a page inherits from the page tree when drawing adds a font to them', async () => {
    const base = await PDFDocument.create({ updateMetadata: false });
    const helvetica = await base.embedFont(StandardFonts.Helvetica);
    const page = base.addPage([612, 792]);
    page.drawText('Inherited resources', { x: 72, y: 720, size: 14, font: helvetica });
    // The page's resources move up to the page tree, as an indirect dictionary the page inherits.
    const resources = page.node.get(PDFName.of('Resources'));
    if (!(resources instanceof PDFDict)) throw new Error('no resources');
    base.catalog.Pages().set(PDFName.of('Resources'), base.context.register(resources));
    page.node.delete(PDFName.of('Resources'));
    const original = Buffer.from(await base.save({ useObjectStreams: false }));

    const incremental = await IncrementalPdf.load(original);
    const times = await incremental.document.embedFont(StandardFonts.TimesRoman);
    incremental.document.getPages()[0]?.drawText('Drawn in the update', { x: 72, y: 600, size: 14, font: times });
    const { pdf } = await incremental.save();

    expect(pdf.subarray(0, original.length).equals(original)).toBe(true);
    await checkPdfWithQpdf(pdf);
    const { stdout, stderr } = await run('pdftotext', [await writeTemporary('inherited.pdf', pdf), '-']);
    expect(stderr).toBe('');
    expect(stdout).toContain('Inherited resources');
    expect(stdout).toContain('Drawn in the update');
  });

  it.each([false, true])('reads only the objects it is asked for, not the content streams (object streams: %s)', async (useObjectStreams) => {
    const original = await makeDeedPdf({ pageCount: 3, useObjectStreams });
    const everything = (await PDFDocument.load(original)).context.enumerateIndirectObjects().length;
    const incremental = await IncrementalPdf.load(original);
    // The catalog, the page tree and the three pages (a seal draws on them): no content stream, font or /Info.
    const read = incremental.document.context.enumerateIndirectObjects();
    expect(read.map(([, object]) => object.constructor.name).sort()).toEqual(['PDFCatalog', 'PDFPageLeaf', 'PDFPageLeaf', 'PDFPageLeaf', 'PDFPageTree']);
    expect(incremental.document.getPageCount()).toBe(3);
    expect(read.length).toBeLessThan(everything);
    // What it reads later is the original's, as pdf-lib's own full parse reads it.
    const [firstPage] = incremental.document.getPages();
    const contents = firstPage?.node.Contents();
    expect(contents).toBeDefined();
    const { pdf } = await incremental.save();
    expect(pdf.subarray(0, original.length).equals(original)).toBe(true);
    const { stdout } = await run('pdftotext', [await writeTemporary(`lazy-${useObjectStreams}.pdf`, pdf), '-']);
    expect(stdout).toContain('Deed of trust, page 3');
  });

  it('appends one revision per save on the same document, each holding only what changed since the last', async () => {
    const original = await makeDeedPdf({ pageCount: 3, useObjectStreams: true });
    const incremental = await IncrementalPdf.load(original);
    const { document } = incremental;
    document.getPages()[1]?.drawText('First revision', { x: 72, y: 500, size: 12 });
    const first = await incremental.save();
    const second = await incremental.save();
    document.setTitle('Retitled');
    const third = await incremental.save();

    expect(first.pdf.subarray(0, original.length).equals(original)).toBe(true);
    expect(second.pdf.subarray(0, first.pdf.length).equals(first.pdf)).toBe(true);
    // Nothing changed: only the cross-reference stream (which lists itself).
    expect(
      second.pdf
        .subarray(first.pdf.length)
        .toString('latin1')
        .match(/ \d+ obj\n/g),
    ).toHaveLength(1);
    expect(third.pdf.subarray(0, second.pdf.length).equals(second.pdf)).toBe(true);
    const lastRevision = third.pdf.subarray(second.pdf.length).toString('latin1');
    expect(lastRevision.match(/ \d+ obj\n/g)).toHaveLength(2);
    expect(lastRevision).toContain(`/Title ${PDFHexString.fromText('Retitled').toString()}`);
    await checkPdfWithQpdf(third.pdf);
    const reloaded = await PDFDocument.load(third.pdf);
    expect(reloaded.getTitle()).toBe('Retitled');
    const { stdout } = await run('pdftotext', ['-f', '2', '-l', '2', await writeTemporary('revisions.pdf', third.pdf), '-']);
    expect(stdout).toContain('First revision');
  });

  it('writes each object with exactly the bytes pdf-lib writes for it', async () => {
    const document = await PDFDocument.create();
    const page = document.addPage([612, 792]);
    page.drawText('Text, a (parenthesis) and a \\ backslash', { x: 72, y: 700, size: 12, font: await document.embedFont(StandardFonts.Helvetica) });
    const form = document.getForm();
    form.createTextField('name.first').setText('Zoë Ångström');
    form.createCheckBox('agree').check();
    form.getTextField('name.first').addToPage(page, { x: 72, y: 600 });
    document.setTitle('Título ✓ 日本');
    document.setKeywords(['one', 'two']);
    const context = document.context;
    context.register(context.obj({ Nested: { Deep: [1, 2.5, -3, [PDFName.of('A#B'), PDFString.of('x\u00ff')], PDFHexString.of('00ff')], Flag: true } }));
    context.register(PDFRawStream.of(context.obj({ Filter: 'FlateDecode' }), new Uint8Array([0, 1, 2, 255, 10, 13])));
    context.register(PDFInvalidObject.of(Buffer.from('<< /Broken ', 'latin1')));
    await document.flush();
    const objects = context.enumerateIndirectObjects();
    expect(objects.length).toBeGreaterThan(10);
    for (const [ref, object] of objects) {
      const expected = Buffer.alloc(object.sizeInBytes());
      object.copyBytesInto(expected, 0);
      const written = Buffer.concat(writeIndirectObject(ref, object).map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece)));
      expect(written.toString('latin1'), `${ref.toString()} ${object.constructor.name}`).toBe(
        Buffer.concat([Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`), expected, Buffer.from('\nendobj\n')]).toString('latin1'),
      );
    }
  });

  it('writes a page whose fonts are still kept as bytes, read or not, with exactly the bytes pdf-lib writes for it', async () => {
    const base = await PDFDocument.create();
    const font = await base.embedFont(StandardFonts.Helvetica);
    for (let index = 0; index < 2; index += 1) {
      const page = base.addPage();
      for (let line = 0; line < 12; line += 1) page.drawText(`Line ${line}`, { x: 72, y: 700 - line * 14, size: 10, font });
    }
    const incremental = await IncrementalPdf.load(Buffer.from(await base.save({ useObjectStreams: false })));
    const [kept, read] = incremental.document.getPages();
    if (!kept || !read) throw new Error('two pages expected');
    // One page's fonts are read (and so parsed), the other's left as their bytes; both pages are changed.
    expect(read.node.Resources()?.lookup(PDFName.of('Font'), PDFDict).keys().length).toBe(12);
    const keptFonts = kept.node.Resources()?.get(PDFName.of('Font'));
    expect(keptFonts && isUnreadRawDict(keptFonts)).toBe(true);
    for (const page of [kept, read]) {
      page.node.set(PDFName.of('Rotate'), PDFNumber.of(90));
      const expected = Buffer.alloc(page.node.sizeInBytes());
      page.node.copyBytesInto(expected, 0);
      const written = Buffer.concat(
        writeIndirectObject(page.ref, page.node).map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece)),
      );
      expect(written.toString('latin1')).toBe(`${page.ref.objectNumber} 0 obj\n${expected.toString('latin1')}\nendobj\n`);
      expect(written.toString('latin1')).toContain('/Rotate 90');
    }
  });

  it('reads a classic cross-reference table byte by byte exactly as the line-by-line reading did, over thousands of damaged tables', () => {
    // The reading before it was done byte by byte: split into lines, trimmed, two regular expressions.
    const byLines = (bytes: Buffer, start: number, end: number, locations: Map<number, unknown>): string | null => {
      const lines = bytes
        .subarray(start, end)
        .toString('latin1')
        .split(/\r\n|\r|\n/);
      let objectNumber = 0;
      for (const raw of lines) {
        const line = raw.trim();
        if (line === '') continue;
        const subsection = /^(\d+) (\d+)$/.exec(line);
        if (subsection) {
          objectNumber = Number(subsection[1]);
          continue;
        }
        const entry = /^(\d{10}) (\d{5}) ([nf])$/.exec(line);
        if (!entry) return `its cross-reference table has a line that is not an entry ("${line.slice(0, 30)}")`;
        if (entry[3] === 'n') {
          const at = Number(entry[1]);
          const header = `${objectNumber} ${Number(entry[2])} obj`;
          let from = at;
          while (from < bytes.length && [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20].includes(bytes[from] ?? -1)) from += 1;
          if (bytes.toString('latin1', from, from + header.length) !== header) {
            return `its cross-reference table places object ${objectNumber} at byte ${at}, where that object does not start`;
          }
          if (!locations.has(objectNumber)) locations.set(objectNumber, { kind: 'offset', offset: at, generation: Number(entry[2]) });
        } else if (!locations.has(objectNumber)) locations.set(objectNumber, { kind: 'free' });
        objectNumber += 1;
      }
      return null;
    };
    const objects = '1 0 obj\n<< >>\nendobj\n2 0 obj\n<< >>\nendobj\n3 0 obj\n<< >>\nendobj\n';
    const table = 'xref\n0 4\n0000000000 65535 f \n0000000000 00000 n \n0000000021 00000 n\r\n0000000042 00000 n\r\n\r7 1\n0000000044 00000 f\n';
    const alphabet = ['0', '1', '7', ' ', '\n', '\r', '\r\n', '\t', '\u00a0', '\u000b', 'n', 'f', 'x', '00000', '0000000021', '\u0085'];
    let seed = 69;
    const random = (limit: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % limit;
    };
    let read = 0;
    for (let round = 0; round < 4000; round += 1) {
      const chars = table.split('');
      for (let edit = 0; edit <= random(4); edit += 1) chars.splice(5 + random(chars.length - 5), random(3), alphabet[random(alphabet.length)] ?? '');
      const bytes = Buffer.from(objects + chars.join(''), 'latin1');
      const start = objects.length + 4;
      const expected = new Map<number, unknown>();
      const actual: Parameters<typeof checkTableEntries>[3] = new Map();
      const theirs = byLines(bytes, start, bytes.length, expected);
      expect(checkTableEntries(bytes, start, bytes.length, actual), JSON.stringify(chars.join(''))).toBe(theirs);
      expect([...actual]).toEqual([...expected]);
      if (theirs === null) read += 1;
    }
    // Some of the damaged tables are still read; most are refused, each with the same sentence.
    expect(read).toBeGreaterThan(50);
  });

  /** A one-page original with a classic table, its page dictionary given extra entries, its trailer extra keys, and more objects. */
  function handMadeOriginal(options: { pageExtra?: string; trailerExtra?: string; more?: Record<number, string>; size?: number } = {}): Buffer {
    const objects: Record<number, string> = {
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      3: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${options.pageExtra ?? ''} >>`,
      ...options.more,
    };
    let out = '%PDF-1.7\n';
    const offsets = new Map<number, number>();
    for (const [number, body] of Object.entries(objects)) {
      offsets.set(Number(number), out.length);
      out += `${number} 0 obj\n${body}\nendobj\n`;
    }
    const entry = (number: number) => `${String(offsets.get(number)).padStart(10, '0')} 00000 n \n`;
    const extra = [...offsets.keys()].filter((number) => number > 3);
    const xref = out.length;
    out += `xref\n0 4\n0000000000 65535 f \n${entry(1)}${entry(2)}${entry(3)}${extra.map((number) => `${number} 1\n${entry(number)}`).join('')}`;
    out += `trailer\n<< /Size ${options.size ?? 4} /Root 1 0 R ${options.trailerExtra ?? ''} >>\nstartxref\n${xref}\n%%EOF\n`;
    return Buffer.from(out, 'latin1');
  }

  it('gives new objects numbers no object of the original has, also one its cross-reference table lists past its /Size (found by attack)', async () => {
    const content = 'BT /F1 24 Tf 72 700 Td (ORIGINAL TEXT) Tj ET';
    const original = handMadeOriginal({ pageExtra: '/Contents 7 0 R', more: { 7: `<< /Length ${content.length} >>\nstream\n${content}\nendstream` } });
    const incremental = await IncrementalPdf.load(original);
    const { context } = incremental.document;
    for (let index = 0; index < 6; index += 1) context.register(context.obj({ Added: index }));
    const reread = await PDFDocument.load((await incremental.save()).pdf, { updateMetadata: false });
    const contents = reread.context.lookup(reread.getPages()[0]?.node.get(PDFName.of('Contents')));
    expect(contents).toBeInstanceOf(PDFRawStream);
    expect(Buffer.from((contents as PDFRawStream).contents).toString('latin1')).toBe(content);
  });

  it('gives new objects numbers above every number the original refers to, defined or not, so nothing it names comes to mean what the seal adds (found by attack)', async () => {
    // Objects 1-3 exist (/Size 4); the page names objects 8-40 as images, which do not exist: in the
    // original they draw nothing. The seal's images numbered from /Size would be drawn there.
    const names = Array.from({ length: 33 }, (_, index) => `/D${index + 8} ${index + 8} 0 R`).join(' ');
    const numbersAdded = async (original: Buffer) => {
      const incremental = await IncrementalPdf.load(original);
      const { context } = incremental.document;
      const added = Array.from({ length: 6 }, (_, index) => context.register(context.obj({ Added: index })));
      await incremental.save();
      return added.map((ref) => ref.objectNumber);
    };
    for (const number of await numbersAdded(handMadeOriginal({ pageExtra: `/Resources << /XObject << ${names} >> >>` }))) expect(number).toBeGreaterThan(40);
    // The same names inside an object stream, which the bytes of the file do not show.
    const packed = await PDFDocument.create();
    const page = packed.addPage();
    page.node.set(PDFName.of('Resources'), packed.context.obj({ XObject: { D500: PDFRef.of(500), D7: PDFRef.of(7_000) } }));
    for (const number of await numbersAdded(Buffer.from(await packed.save({ useObjectStreams: true })))) expect(number).toBeGreaterThan(7_000);
    // And in an original too damaged to append to, saved again as a whole.
    const damaged = handMadeOriginal({ pageExtra: `/Resources << /XObject << ${names} >> >>` });
    const broken = Buffer.concat([damaged.subarray(0, damaged.lastIndexOf('startxref')), Buffer.from('startxref\n99999\n%%EOF\n')]);
    for (const number of await numbersAdded(broken)) expect(number).toBeGreaterThan(40);
  });

  it('finds the largest number referred to above the known ones, however the reference is spaced, and only references', () => {
    const found = (text: string, known: number) => largestReferenced(Buffer.from(text, 'latin1'), known);
    expect(found('<< /A 12 0 R /B 40 0 R >>', 30)).toBe(40);
    expect(found('<< /A 12 0 R >>', 30)).toBe(30);
    expect(found('/A 0041 0 R', 30)).toBe(41);
    expect(found('/A 41 %comment\r\n 0\n%another\nR>>', 30)).toBe(41);
    expect(found('/A 41\t0\fR/B', 30)).toBe(41);
    // Not references: a number run on from a word, an R that starts a word, no R, a number past the PDF's limit.
    for (const text of ['/A x141 0 R', '/A 41 0 Rx', '/A 41 0 S', '/A 9999999 0 R', '/A 41x 0 R']) expect(found(text, 30), text).toBe(30);
    // Every spelling of a number some reader takes as part of a reference (found by attack: poppler and
    // pdf.js read "42 +0 R" as object 42), and some no reader does: more than needed, never less.
    for (const text of [
      '/A 42 +0 R',
      '/A 42 -0 R',
      '/A +42 0 R',
      '/A 42.0 0.0 R',
      '/A 42. 0 R',
      '/A 42 . R',
      '/A 42 0R',
      '/A 42 0R/B',
      '/A 4.2e1 0 R',
      '/A 42 -\n0 R',
      '/A 42-0 R',
      '/A 42 --0 R',
      '[42 0 R]',
      '/A 42 R',
      // pdf.js skips a minus inside a number, and ends a number at a sign or an exponent before R (second attack).
      '/A 4-2 0 R',
      '/A 42 0-R',
      '/A 42 0e+R',
      '/A 42 0e-R',
      '/A 42 0--R',
    ])
      expect(found(text, 30), JSON.stringify(text)).toBeGreaterThanOrEqual(42);
    // "42-0" is 42 then 0 to poppler, 420 to pdf.js: the larger counts.
    expect(found('/A 42-0 R', 30)).toBe(420);
    // Comments made to be split in every way (found in review: 26 percent signs took 0.2 s, each one more twice as long).
    expect(found(`/A 99 ${'%'.repeat(5000)}x`, 30)).toBe(30);
    expect(found(`/A 99 ${'%'.repeat(5000)}\n 0 R`, 30)).toBe(99);
    expect(found(`/A 99 ${'% \n'.repeat(5000)}0 ${'%%\r'.repeat(5000)}R`, 30)).toBe(99);
    // A comment longer than the reading follows between a reference's parts: the new numbers go above every number in the file.
    expect(found(`/A 99 0 %${'c'.repeat(3000)}\nR /B 77 0 R`, 30)).toBeGreaterThanOrEqual(99);
    expect(found(`/A 99 0 %${'c'.repeat(3000)}\n%short\n R 500 612`, 30)).toBe(612);
    // Runs of characters a number is spelled with, but no digit, read in linear time when every number counts (second attack: 200 KB took 77 s).
    for (const character of ['e', '.', '-', '+']) {
      const started = performance.now();
      expect(found(`%\n R (${character.repeat(400_000)}) 99`, 30)).toBe(99);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    // Long lines of percent signs and long comments do not make the reading slow (each is looked at a bounded number of times).
    expect(found(`${'9 '.repeat(20_000)}%${'%'.repeat(2000)}`, 30)).toBe(30);
    expect(found(`${`${'%'.repeat(5000)}\n`.repeat(200)}`, 30)).toBe(30);
    // Every number above the known one, and none at or below it, over many of both.
    let seed = 99;
    const random = (below: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % below;
    };
    for (let round = 0; round < 3000; round += 1) {
      const known = random([10, 1000, 100_000, 8_000_000][round % 4] ?? 10);
      const number = Math.max(0, known + random(40) - 20);
      expect(found(`<< /X ${number} 0 R >>`, known), `${number} above ${known}`).toBe(Math.max(known, number));
    }
  });

  it('never finds less than a reference generated among white space, comments, delimiters and words, however it is spelled, over thousands of files', () => {
    let seed = 4242;
    const random = (below: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % below;
    };
    const pieces = [
      ' ',
      '  ',
      '\n',
      '\r\n',
      '\r',
      '\t',
      '\f',
      '\0',
      'R',
      'R ',
      ' R',
      '0',
      '7',
      '12',
      '0041',
      '99',
      '400',
      '%',
      '% c\n',
      '(',
      ')',
      '/N',
      '<<',
      '>>',
      '[',
      ']',
      'x',
      'Rx',
      '%%',
      '+',
      '-',
      '.',
      'e',
    ];
    const spaces = [' ', '\n', '\r\n', '\t', '\f', '\0', ' % c\n', '%\r'];
    const spell = (number: number) => [`${number}`, `+${number}`, `00${number}`, `${number}.0`, `${number}.`][random(5)] ?? `${number}`;
    const generation = () => ['0', '+0', '-0', '.', '0.0', '-\n0', '--0', '3'][random(8)] ?? '0';
    let lifted = 0;
    for (let round = 0; round < 20_000; round += 1) {
      let text = '';
      for (let count = random(40); count > 0; count -= 1) text += pieces[random(pieces.length)];
      const number = random(500);
      const at = random(text.length + 1);
      const after = ['', ' ', '/', ']', '>>', '\n', '%'][random(7)] ?? '';
      const reference = `${spell(number)}${spaces[random(spaces.length)]}${generation()}${random(4) === 0 ? '' : spaces[random(spaces.length)]}R${after}`;
      // A reference starts after white space or a delimiter, as a reader's token does.
      text = `${text.slice(0, at)} ${reference}${after === '' ? ' ' : ''}${text.slice(at)}`;
      const known = random(120);
      const found = largestReferenced(Buffer.from(text, 'latin1'), known);
      expect(found, JSON.stringify(text)).toBeGreaterThanOrEqual(Math.max(known, number));
      if (found > Math.max(known, number)) lifted += 1;
    }
    // Reading generously lifts the numbers in some files, not in most.
    expect(lifted).toBeLessThan(10_000);
  });

  it('reads the references of every stream of the file a viewer could read objects from, listed or not, typed or not (second attack)', async () => {
    // A hybrid file (its trailer names /XRefStm): object 9, page 2's resources, sits in object stream
    // 10 and names objects 12-400 that nobody defines. pdf-lib reads the file whole and never decodes
    // a stream without /Type /ObjStm, nor one a later plain object 9 shadows; viewers read object 9
    // from the stream.
    const hybrid = (streamDict: string, shadow: boolean) => {
      const names = Array.from({ length: 389 }, (_, index) => `/A${index + 12} ${index + 12} 0 R`).join(' ');
      const packed = Buffer.from(`9 0 << /XObject << ${names} >> >>`, 'latin1');
      const data = deflateSync(packed);
      const parts: Buffer[] = [];
      const offsets = new Map<number, number>();
      let length = 0;
      const push = (part: string | Buffer) => {
        const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
        parts.push(bytes);
        length += bytes.length;
      };
      const object = (number: number, ...body: Array<string | Buffer>) => {
        offsets.set(number, length);
        push(`${number} 0 obj\n`);
        for (const part of body) push(part);
        push('\nendobj\n');
      };
      push('%PDF-1.7\n');
      object(1, '<< /Type /Catalog /Pages 2 0 R >>');
      object(2, '<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>');
      object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
      object(5, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources 9 0 R >>');
      object(10, `<< ${streamDict} /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, data, '\nendstream');
      const xrefData = Buffer.from([2, 0, 10, 0]);
      object(11, `<< /Type /XRef /W [1 2 1] /Index [9 1] /Size 12 /Length ${xrefData.length} >>\nstream\n`, xrefData, '\nendstream');
      if (shadow) push('9 0 obj\n<< >>\nendobj\n');
      const entry = (number: number) => `${String(offsets.get(number)).padStart(10, '0')} 00000 n \n`;
      const xref = length;
      push(`xref\n0 4\n0000000000 65535 f \n${[1, 2, 3].map(entry).join('')}5 1\n${entry(5)}10 2\n${entry(10)}${entry(11)}`);
      push(`trailer\n<< /Size 12 /Root 1 0 R /XRefStm ${offsets.get(11)} >>\nstartxref\n${xref}\n%%EOF\n`);
      return Buffer.concat(parts);
    };
    for (const original of [hybrid('', false), hybrid('/Type /ObjStm', true), hybrid('/Type /Obj#53tm', false), hybrid('/Typ#65 /ObjStm', true)]) {
      const incremental = await IncrementalPdf.load(original);
      const { context } = incremental.document;
      const added = context.register(context.obj({ Added: 1 }));
      expect(added.objectNumber).toBeGreaterThan(400);
    }
  });

  it('refuses an original whose objects are numbered up to where the seal could not number its own above them (found by attack)', async () => {
    const content = 'BT /F1 24 Tf 72 700 Td (ORIGINAL TEXT) Tj ET';
    // The table lists an object numbered 9,000,000: past the PDF's limit, the seal's would follow it.
    let text = handMadeOriginal({ pageExtra: '/Contents 4 0 R' }).toString('latin1');
    const object = `9000000 0 obj\n<< /Length ${content.length} >>\nstream\n${content}\nendstream\nendobj\n`;
    const at = text.indexOf('xref');
    text = `${text.slice(0, at)}${object}${text.slice(at)}`.replace('/Size 4', '/Size 9000001');
    const startxref = text.indexOf('xref\n');
    text = text.replace(/startxref\n\d+/, `startxref\n${startxref}`).replace('trailer', `9000000 1\n${String(at).padStart(10, '0')} 00000 n \ntrailer`);
    await expect(IncrementalPdf.load(Buffer.from(text, 'latin1'))).rejects.toThrow(/numbers its objects up to 9000000/);
    // A /Size past the limit alone says the same.
    await expect(IncrementalPdf.load(handMadeOriginal({ size: 8_388_000 }))).rejects.toThrow(/numbers its objects up to 8387999/);
    // References past the limit to objects nobody defines cannot meet the seal's numbers: the original is sealed.
    const sealed = await IncrementalPdf.load(handMadeOriginal({ pageExtra: '/Resources << /XObject << /X 9000001 0 R >> >>' }));
    expect(sealed.document.getPageCount()).toBe(1);
  });

  it('writes the resource dictionaries of a page it draws on as the bytes of the original when nothing read them, and as read when something did (decision 068)', async () => {
    const fonts = Array.from({ length: 30 }, (_, index) => `/Times-${index}%\n 5 0 R`).join(' ');
    const original = handMadeOriginal({
      pageExtra: `/Resources << /Font << ${fonts} >> /ExtGState << /G0 << /CA 0.5 /D [ [ 3 ] 0 ] /Name (a (b) \\) c) /H <4142> >> /G1 << /ca .25 /T true /N null /F false >> >> >>`,
      more: { 5: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>' },
    });
    const fontBytes = `<< ${fonts} >>`;
    const incremental = await IncrementalPdf.load(original);
    const [page] = incremental.document.getPages();
    if (!page) throw new Error('one page expected');
    // Drawing an image-free rectangle touches the page's content and graphics states, not its fonts.
    page.drawRectangle({ x: 10, y: 10, width: 20, height: 20 });
    const first = await incremental.save();
    const appended = first.pdf.subarray(original.length).toString('latin1');
    expect(appended).toContain(`/Font ${fontBytes}`);
    await checkPdfWithQpdf(first.pdf);
    const reread = await PDFDocument.load(first.pdf, { updateMetadata: false });
    const rereadFonts = reread.getPages()[0]?.node.Resources()?.lookup(PDFName.of('Font'), PDFDict);
    expect(rereadFonts?.keys().map((key) => key.decodeText())).toEqual(Array.from({ length: 30 }, (_, index) => `Times-${index}`));
    expect(reread.getPages()[0]?.node.Resources()?.lookup(PDFName.of('ExtGState'), PDFDict).lookup(PDFName.of('G0'), PDFDict).get(PDFName.of('CA'))).toEqual(
      PDFNumber.of(0.5),
    );

    // An entry added to the fonts: the dictionary is written as pdf-lib writes it, with the new entry.
    page.node.Resources()?.lookup(PDFName.of('Font'), PDFDict).set(PDFName.of('Added'), PDFRef.of(5, 0));
    const second = await incremental.save();
    const again = second.pdf.subarray(first.pdf.length).toString('latin1');
    expect(again).not.toContain(fontBytes);
    expect(again).toContain('/Added 5 0 R');
    await checkPdfWithQpdf(second.pdf);
    const last = await PDFDocument.load(second.pdf, { updateMetadata: false });
    expect(last.getPages()[0]?.node.Resources()?.lookup(PDFName.of('Font'), PDFDict).keys()).toHaveLength(31);
  });

  it('writes nothing for resource dictionaries only read, arrays in them included (found by attack: reading one stamped its arrays as edits)', async () => {
    const spaces = Array.from({ length: 12 }, (_, index) => `/CS${index} [ /ICCBased ${index + 10} 0 R ]`).join(' ');
    const original = handMadeOriginal({ pageExtra: `/Resources << /ColorSpace << ${spaces} >> >>` });
    const incremental = await IncrementalPdf.load(original);
    const [page] = incremental.document.getPages();
    const spacesDict = page?.node.Resources()?.lookup(PDFName.of('ColorSpace'), PDFDict);
    expect(spacesDict?.keys()).toHaveLength(12);
    expect(spacesDict?.lookup(PDFName.of('CS3'), PDFArray).size()).toBe(2);
    const saved = await incremental.save();
    expect(saved.pdf.subarray(original.length).toString('latin1')).not.toMatch(/ 0 obj\n/);
  });

  it('reads and seals a page holding an array nested thousands deep, as pdf-lib does (found by attack)', async () => {
    const depth = 3600;
    const original = handMadeOriginal({ pageExtra: `/Deep ${'['.repeat(depth)}${']'.repeat(depth)}` });
    expect((await PDFDocument.load(original, { updateMetadata: false })).getPageCount()).toBe(1);
    const incremental = await IncrementalPdf.load(original);
    incremental.document.getPages()[0]?.drawText('Sealed', { x: 72, y: 700, size: 12 });
    const saved = await incremental.save();
    expect(saved.fullSave).toBe(false);
    expect((await PDFDocument.load(saved.pdf, { updateMetadata: false })).getPageCount()).toBe(1);
  });

  it('finds a change in a dictionary that holds itself (what pdf-lib makes of a resource dictionary naming itself) without going round for ever', async () => {
    const original = handMadeOriginal({ pageExtra: '/Resources 4 0 R', more: { 4: '<< /Font 4 0 R >>' } });
    const incremental = await IncrementalPdf.load(original);
    const resources = incremental.document.context.lookup(PDFRef.of(4, 0), PDFDict);
    // A direct dictionary inside itself, as pdf-lib's normalize() makes of it.
    resources.set(PDFName.of('Font'), resources);
    await expect(incremental.save()).rejects.toThrow();
  });

  it('finds an edit deep inside an object (a value in a dictionary in a dictionary, an item of an array), and not an equal number put back', async () => {
    const original = await makeDeedPdf({ pageCount: 3, useObjectStreams: false });
    const incremental = await IncrementalPdf.load(original);
    const [first, second, third] = incremental.document.getPages();
    if (!first || !second || !third) throw new Error('three pages expected');
    const objectsOf = (bytes: Buffer, from: number) =>
      [
        ...bytes
          .subarray(from)
          .toString('latin1')
          .matchAll(/(\d+) 0 obj\n/g),
      ].map((match) => Number(match[1]));
    // An equal number in place of a number: no change.
    const mediaBox = first.node.lookup(PDFName.of('MediaBox'), PDFArray);
    mediaBox.set(2, PDFNumber.of(mediaBox.lookup(2, PDFNumber).asNumber()));
    // A new value two dictionaries down: page 2's /Resources /Font.
    const fonts = second.node.Resources()?.lookup(PDFName.of('Font'), PDFDict);
    if (!fonts) throw new Error('page 2 has fonts');
    fonts.set(PDFName.of('Extra'), PDFName.of('Helvetica'));
    // An item of an array changed in place: page 3's media box.
    third.node.lookup(PDFName.of('MediaBox'), PDFArray).set(3, PDFNumber.of(700));
    const saved = await incremental.save();
    expect(objectsOf(saved.pdf, original.length).sort()).toEqual([second.ref.objectNumber, third.ref.objectNumber].sort());

    // After a save, an edit of an object that save wrote is found again, and nothing else is written.
    fonts.delete(PDFName.of('Extra'));
    const again = await incremental.save();
    expect(objectsOf(again.pdf, saved.pdf.length)).toEqual([second.ref.objectNumber]);
    const reloaded = await PDFDocument.load(again.pdf);
    expect(reloaded.getPages()[2]?.getMediaBox().height).toBe(700);
    expect(reloaded.getPages()[1]?.node.Resources()?.lookup(PDFName.of('Font'), PDFDict).has(PDFName.of('Extra'))).toBe(false);
    await checkPdfWithQpdf(again.pdf);
  });
  it('makes no PDF name of its own for a seal: pdf-lib keeps every name it makes for the life of the process, and each placeholder mark is new', async () => {
    const original = await makeDeedPdf({ pageCount: 2, useObjectStreams: false });
    // A notary's first seal prepares what the next ones reuse.
    await seal(original);
    const made = vi.spyOn(PDFName, 'of');
    try {
      const { signed } = await seal(original);
      const marks = made.mock.calls.map(([name]) => name).filter((name) => /^RON[0-9a-f]{16}$/.test(name));
      expect(marks).toEqual([]);
      expect(signed.toString('latin1')).toMatch(/\/ByteRange \[0 \d+ \d+ \d+ *\]/);
      const report = await verifyWithPdfsig(signed, caPem);
      expect(report.isValid, report.output).toBe(true);
    } finally {
      made.mockRestore();
    }
  });

  it('finds items pushed, inserted and removed in a direct array and a key deleted two dictionaries down, and writes nothing for a value put back as it was', async () => {
    const original = await makeDeedPdf({ pageCount: 5, useObjectStreams: false });
    const incremental = await IncrementalPdf.load(original);
    const pages = incremental.document.getPages();
    const writtenAfter = (bytes: Buffer, from: number) =>
      [
        ...bytes
          .subarray(from)
          .toString('latin1')
          .matchAll(/(\d+) 0 obj\n/g),
      ]
        .map((match) => Number(match[1]))
        .sort((left, right) => left - right);
    const mediaBoxOf = (index: number) => {
      const page = pages[index];
      if (!page) throw new Error(`page ${index + 1} expected`);
      return { page, box: page.node.lookup(PDFName.of('MediaBox'), PDFArray) };
    };
    const pushed = mediaBoxOf(0);
    pushed.box.push(PDFNumber.of(1));
    const inserted = mediaBoxOf(1);
    inserted.box.insert(0, PDFNumber.of(2));
    const removed = mediaBoxOf(2);
    removed.box.remove(3);
    const fontsOfFourth = pages[3]?.node.Resources()?.lookup(PDFName.of('Font'), PDFDict);
    const firstFont = fontsOfFourth?.keys()[0];
    if (!fontsOfFourth || !firstFont) throw new Error('page 4 has fonts');
    fontsOfFourth.delete(firstFont);
    // Page 5: its own resources set to themselves (what pdf-lib's normalize() does) and a key that is not there deleted.
    const fifth = pages[4];
    if (!fifth) throw new Error('page 5 expected');
    const resources = fifth.node.get(PDFName.of('Resources'));
    if (!resources) throw new Error('page 5 has resources');
    fifth.node.set(PDFName.of('Resources'), resources);
    fifth.node.delete(PDFName.of('NotThere'));
    const saved = await incremental.save();
    expect(writtenAfter(saved.pdf, original.length)).toEqual(
      [pushed.page, inserted.page, removed.page, pages[3]].map((page) => page?.ref.objectNumber).sort((left, right) => (left ?? 0) - (right ?? 0)),
    );

    // After that save, one more edit of a page it wrote is found, and only that page is written.
    inserted.box.remove(0);
    const again = await incremental.save();
    expect(writtenAfter(again.pdf, saved.pdf.length)).toEqual([inserted.page.ref.objectNumber]);
    const reloaded = await PDFDocument.load(again.pdf);
    expect(reloaded.getPages().map((page) => page.node.lookup(PDFName.of('MediaBox'), PDFArray).size())).toEqual([5, 4, 3, 4, 4]);
    expect(reloaded.getPages()[3]?.node.Resources()?.lookup(PDFName.of('Font'), PDFDict).has(firstFont)).toBe(false);
    await checkPdfWithQpdf(again.pdf);
  });
});

describe('long-term validation revisions', () => {
  let tsa: TsaStandIn;
  let sealed: Buffer;

  beforeAll(async () => {
    tsa = await startTsaStandIn();
    sealed = (await seal(await makeDeedPdf({ pageCount: 2, useObjectStreams: true }))).signed;
  });

  afterAll(async () => {
    await tsa?.close();
  });

  /** The /Contents bytes of each signature value, in the newest revision's form. */
  function signatureContents(document: PDFDocument): Buffer[] {
    return document
      .getForm()
      .getFields()
      .map((field) => field.acroField.dict.lookupMaybe(PDFName.of('V'), PDFDict)?.lookupMaybe(PDFName.of('Contents'), PDFString, PDFHexString))
      .filter((contents) => contents !== undefined)
      .map((contents) => Buffer.from(contents.asBytes()));
  }

  it('leaves the rendered file as it was when signing fails (the timestamp authority is down), so the seal can be signed again (found by attack)', async () => {
    let timestampUrl = 'http://127.0.0.1:1/tsa';
    const signature = prepareSignature(notary, {
      ...info,
      get timestampUrl() {
        return timestampUrl;
      },
    });
    const rendered = await renderNotarizedPdf({
      original: await makeDeedPdf({ pageCount: 1, useObjectStreams: false }),
      fields: [],
      certificate,
      audit,
      beforeSave: signature.addPlaceholder,
    });
    const before = Buffer.from(rendered.pdf);
    await expect(signature.sign(rendered.pdf)).rejects.toThrow();
    expect(rendered.pdf.equals(before)).toBe(true);
    timestampUrl = tsa.url;
    const signed = await signature.sign(rendered.pdf);
    const report = await verifyWithPdfsig(signed, caPem);
    expect(report, report.output).toMatchObject({ isValid: true, hasDigestMismatch: false, signatureCount: 1 });
  });

  it('adds certificates, OCSP responses and CRLs to the document security store once each, keeping the seal valid', async () => {
    const notaryDer = Buffer.from(new X509Certificate(notary.certificatePem).raw);
    const caDer = Buffer.from(new X509Certificate(caPem).raw);
    const ocsp = Buffer.concat([Buffer.from([0x30, 0x82, 0x01, 0x00]), randomBytes(256)]);
    const crl = Buffer.concat([Buffer.from([0x30, 0x81, 0x80]), randomBytes(128)]);
    const withDss = await appendDss(sealed, { certificates: [notaryDer, caDer], ocspResponses: [ocsp], crls: [crl] });
    const again = await appendDss(withDss, { certificates: [caDer, notaryDer], ocspResponses: [ocsp], crls: [] });

    for (const [earlier, later] of [
      [sealed, withDss],
      [withDss, again],
    ] as const) {
      expect(later.subarray(0, earlier.length).equals(earlier)).toBe(true);
    }
    await checkPdfWithQpdf(again);
    const report = await verifyWithPdfsig(again, caPem);
    expect(report, report.output).toMatchObject({ isValid: true, isTrusted: true, hasDigestMismatch: false, signatureCount: 1, isTotal: false });

    const document = await PDFDocument.load(again);
    const dss = document.catalog.lookup(PDFName.of('DSS'), PDFDict);
    const streamsOf = (array: PDFArray | undefined) =>
      (array?.asArray() ?? []).map((ref) => {
        const stream = document.context.lookup(ref);
        if (!(stream instanceof PDFRawStream)) throw new Error('a store entry is not a stream');
        return Buffer.from(stream.contents);
      });
    expect(streamsOf(dss.lookupMaybe(PDFName.of('Certs'), PDFArray))).toEqual([notaryDer, caDer]);
    expect(streamsOf(dss.lookupMaybe(PDFName.of('OCSPs'), PDFArray))).toEqual([ocsp]);
    expect(streamsOf(dss.lookupMaybe(PDFName.of('CRLs'), PDFArray))).toEqual([crl]);

    const [contents] = signatureContents(document);
    if (!contents) throw new Error('no signature value');
    const key = createHash('sha1').update(contents).digest('hex').toUpperCase();
    const vri = dss.lookup(PDFName.of('VRI'), PDFDict);
    expect(vri.keys().map((name) => name.decodeText())).toEqual([key]);
    const entry = vri.lookup(PDFName.of(key), PDFDict);
    expect(streamsOf(entry.lookupMaybe(PDFName.of('Cert'), PDFArray))).toEqual([notaryDer, caDer]);
    expect(streamsOf(entry.lookupMaybe(PDFName.of('OCSP'), PDFArray))).toEqual([ocsp]);
    expect(streamsOf(entry.lookupMaybe(PDFName.of('CRL'), PDFArray))).toEqual([crl]);
    expect(entry.lookup(PDFName.of('TU'), PDFString).decodeDate().getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('appends a document timestamp whose RFC 3161 token covers every byte but its own', async () => {
    const withDss = await appendDss(sealed, { certificates: [Buffer.from(new X509Certificate(caPem).raw)], ocspResponses: [], crls: [] });
    const { pdf, token } = await appendDocumentTimestamp(withDss, tsa.url);

    expect(pdf.subarray(0, withDss.length).equals(withDss)).toBe(true);
    await checkPdfWithQpdf(pdf);
    const text = pdf.toString('latin1');
    const timestampAt = text.lastIndexOf('/Type /DocTimeStamp');
    expect(timestampAt).toBeGreaterThan(withDss.length);
    const dictionary = text.slice(timestampAt - 200, text.indexOf('endobj', timestampAt));
    expect(dictionary).toContain('/SubFilter /ETSI.RFC3161');
    const range = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\s*\]/.exec(dictionary);
    if (!range) throw new Error('no /ByteRange in the document timestamp');
    const [start, length, secondStart, secondLength] = range.slice(1).map(Number) as [number, number, number, number];
    expect(start).toBe(0);
    expect(secondStart + secondLength).toBe(pdf.length);
    const contents = Buffer.from(pdf.subarray(start + length + 1, secondStart - 1).toString('latin1'), 'hex');
    expect(contents.subarray(0, token.length).equals(token)).toBe(true);
    expect(contents.subarray(token.length).every((byte) => byte === 0)).toBe(true);

    const covered = await writeTemporary(
      'covered.bin',
      Buffer.concat([pdf.subarray(start, start + length), pdf.subarray(secondStart, secondStart + secondLength)]),
    );
    const tokenFile = await writeTemporary('token.der', token);
    const caFile = await writeTemporary('tsa-ca.pem', Buffer.from(tsa.caPem));
    const verified = await run('openssl', ['ts', '-verify', '-data', covered, '-in', tokenFile, '-token_in', '-CAfile', caFile]);
    expect(verified.stdout).toContain('Verification: OK');

    // The seal is still valid; it no longer covers the whole file, the timestamp does.
    const report = await verifyWithPdfsig(pdf, caPem);
    const seal = pdfsigBlocks(report.output).find((block) => block.includes('Nora Q. Notary'));
    expect(seal, report.output).toMatch(/^\s*- Signature Validation: Signature is Valid\.$/m);
    expect(report.hasDigestMismatch, report.output).toBe(false);
    expect(signatureFieldNames(await PDFDocument.load(pdf)).sort()).toEqual(['DocumentTimestamp1', 'Signature1']);
  });
});
