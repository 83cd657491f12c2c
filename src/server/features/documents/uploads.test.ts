import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentMessages, maxFormFields, type JobDocument } from '#shared/documents.ts';
import type { Job } from '#shared/jobs.ts';
import { documents } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { buildPdfWith, streamObject } from '#test/pdf-attacks.ts';
import { buildMultipart, makeBrokenPdf, makeEncryptedPdf, makePdf, makeQpdfEncryptedPdf, makeUnpackingBombPdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let headers: Record<string, string>;
let dataDir: string;
let pdf: Buffer;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-uploads-'));
  t = await createTestApp({ DATA_DIR: dataDir });
  headers = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
  pdf = await makePdf(3, 'Upload checks');
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function createJob(): Promise<Job> {
  const res = await t.app.inject({ method: 'POST', url: '/api/jobs', headers, payload: { title: 'Uploads', notarizationType: 'jurat' } });
  expect(res.statusCode).toBe(201);
  return res.json() as Job;
}

function upload(jobId: string, files: Array<{ name: string; content: Buffer; contentType?: string }>, url = 'documents/batch') {
  const body = buildMultipart(files);
  return t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/${url}`, headers: { ...headers, ...body.headers }, payload: body.payload });
}

function filesUnder(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** What a refused upload must leave as it was: the documents, the audit trail, the stored blobs. */
async function snapshot(jobId: string) {
  const [documents, audit] = await Promise.all([
    t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/documents`, headers }),
    t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/audit`, headers }),
  ]);
  return { documents: documents.json().items, auditEvents: audit.json().events.length, blobs: filesUnder(t.blobRoot).sort() };
}

const pageWith = (entries: string) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${entries} >>`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('only real, readable, unprotected PDFs are accepted', () => {
  it.each([
    ['plain text', 'notes.txt', () => Buffer.from('Just some notes, not a PDF.'), 'text/plain'],
    ['a JPEG named .pdf', 'scan.pdf', () => Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]), 'application/pdf'],
  ])('refuses %s with 415 not_pdf', async (_label, name, content, contentType) => {
    const job = await createJob();
    const res = await upload(job.id, [{ name, content: content(), contentType }], 'documents');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: 'not_pdf', message: `${name}: ${documentMessages.notPdf}` });
  });

  it('refuses a file that starts like a PDF but is garbage with 422 broken_pdf', async () => {
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'garbage.pdf', content: makeBrokenPdf() }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'broken_pdf', message: `garbage.pdf: ${documentMessages.broken}` });
  });

  it.each([
    ['one stream that unpacks to 40 MB', () => makeUnpackingBombPdf(40)],
    ['five streams of 30 MB each, past the bound of one document together', () => makeUnpackingBombPdf(30, 5)],
  ])('refuses a PDF whose compressed structure unpacks past its bound (%s) with 422, and stores nothing', async (_label, content) => {
    const job = await createJob();
    const before = await snapshot(job.id);
    const res = await upload(job.id, [{ name: 'bomb.pdf', content: content() }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'pdf_unpacks_too_large', message: `bomb.pdf: ${documentMessages.unpacksTooLarge}` });
    expect(await snapshot(job.id)).toEqual(before);
  });

  it.each([
    [
      'a cross-reference stream whose entries have no width (/W [0 0 0]), listing 3 million',
      () => buildPdfWith({ 4: streamObject('/Type /XRef /Size 5 /W [0 0 0] /Index [0 3000000]', Buffer.alloc(0)) }),
    ],
    [
      'an object stream whose 20 entries all point at one 1 MB array',
      () => {
        const header = `${Array.from({ length: 20 }, (_, index) => `${100 + index} 0`).join(' ')}\n`;
        const body = Buffer.concat([Buffer.from(`${header}[`), Buffer.alloc(1024 * 1024, '0 '), Buffer.from(']')]);
        return buildPdfWith({ 4: streamObject(`/Type /ObjStm /N 20 /First ${header.length} /Filter /FlateDecode`, deflateSync(body, { level: 9 })) });
      },
    ],
  ])('refuses a PDF whose structure is not what it claims (%s) with 422 broken_pdf', async (_label, content) => {
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'forged.pdf', content: content() }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'broken_pdf', message: `forged.pdf: ${documentMessages.broken}` });
  });

  it('refuses a PDF that takes more memory to read than any document needs (four object streams, each one array of 30 MB of numbers) with 422, and the server goes on', async () => {
    // Within the bounds on unpacking (4 x 30 MB), but pdf-lib makes an object of every number: far past the thread's heap.
    const objects: Record<number, Array<string | Uint8Array>> = {};
    for (let index = 0; index < 4; index += 1) {
      const header = `${100 + index} 0\n`;
      const body = Buffer.concat([Buffer.from(`${header}[`), Buffer.alloc(30 * 1024 * 1024, '0 '), Buffer.from(']')]);
      objects[4 + index] = streamObject(`/Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode`, deflateSync(body, { level: 1 }));
    }
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'heavy.pdf', content: buildPdfWith(objects) }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'pdf_too_complex', message: `heavy.pdf: ${documentMessages.tooComplex}` });
    expect((await upload(job.id, [{ name: 'fine.pdf', content: pdf }])).statusCode).toBe(201);
    // The thread reads until its heap is full: 15 to 35 s on a quiet machine here, most of it V8
    // collecting near the limit; the pool answers by its own 60 s limit whatever happens (the same 422).
  }, 90_000);

  it('refuses an empty file with 422 broken_pdf', async () => {
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'empty.pdf', content: Buffer.alloc(0) }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'broken_pdf', message: 'empty.pdf: the file is empty.' });
  });

  it.each([
    ['resources that name themselves as their fonts', { 3: [`${pageWith('/Resources 4 0 R')}`], 4: ['<< /Font 4 0 R >>'] }],
    ['a page that names itself as its resources', { 3: [`${pageWith('/Resources 3 0 R')}`] }],
    ['resources that name the page as their images', { 3: [`${pageWith('/Resources 4 0 R')}`], 4: ['<< /XObject 3 0 R >>'] }],
  ])('refuses a PDF with %s (no seal can be written over such a page) with 422 unsealable_pdf, storing nothing', async (_label, objects) => {
    const job = await createJob();
    const before = await snapshot(job.id);
    const res = await upload(job.id, [{ name: 'loop.pdf', content: buildPdfWith(objects) }], 'documents');
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({ error: 'unsealable_pdf', message: `loop.pdf: ${documentMessages.unsealable}` });
    expect(await snapshot(job.id)).toEqual(before);
  });

  it('refuses a PDF that numbers its objects past where the seal could number its own with 422 unsealable_pdf (found by attack), storing nothing', async () => {
    // Objects 1-3 and 9,000,000, each table subsection listing its own: a reader reads it whole.
    const bodies: Array<[number, string]> = [
      [1, '<< /Type /Catalog /Pages 2 0 R >>'],
      [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
      [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 9000000 0 R >> >> >>'],
      [9_000_000, '<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length 0 >>\nstream\n\nendstream'],
    ];
    let text = '%PDF-1.7\n';
    const offsets = new Map<number, number>();
    for (const [number, body] of bodies) {
      offsets.set(number, text.length);
      text += `${number} 0 obj\n${body}\nendobj\n`;
    }
    const entry = (number: number) => `${String(offsets.get(number)).padStart(10, '0')} 00000 n \n`;
    const xref = text.length;
    text += `xref\n0 4\n0000000000 65535 f \n${entry(1)}${entry(2)}${entry(3)}9000000 1\n${entry(9_000_000)}`;
    text += `trailer\n<< /Size 9000001 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    const job = await createJob();
    const before = await snapshot(job.id);
    const res = await upload(job.id, [{ name: 'numbers.pdf', content: Buffer.from(text, 'latin1') }], 'documents');
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({ error: 'unsealable_pdf', message: `numbers.pdf: ${documentMessages.numberedPastLimit}` });
    // So does one that only refers to such an object, which the seal would refuse (second attack).
    const referring = buildPdfWith({ 3: ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 8300000 0 R >> >> >>'] });
    const refused = await upload(job.id, [{ name: 'refers.pdf', content: referring }], 'documents');
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual({ error: 'unsealable_pdf', message: `refers.pdf: ${documentMessages.numberedPastLimit}` });
    // Or refers to it from an object stream no table lists, which a viewer rebuilding the table would read.
    const packed = Buffer.from('9 0 << /X 8300000 0 R >>', 'latin1');
    const stray = buildPdfWith({ 10: streamObject(`/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode`, deflateSync(packed)) });
    const strayRefused = await upload(job.id, [{ name: 'stray.pdf', content: stray }], 'documents');
    expect(strayRefused.statusCode, strayRefused.body).toBe(422);
    expect(strayRefused.json()).toEqual({ error: 'unsealable_pdf', message: `stray.pdf: ${documentMessages.numberedPastLimit}` });
    expect(await snapshot(job.id)).toEqual(before);
  });

  it('refuses a PDF with more form fields than a seal can flatten in time with 422 and a sentence (found by attack: 16,000 took 87 s), and takes one with as many as allowed', async () => {
    const formWith = (count: number) => {
      const fields = Array.from({ length: count }, (_, index) => `${index + 10} 0 R`).join(' ');
      const objects: Record<number, string[]> = { 1: [`<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${fields}] >> >>`] };
      for (let index = 0; index < count; index += 1) objects[index + 10] = [`<< /FT /Tx /T (f${index}) /Rect [0 0 10 10] /Subtype /Widget >>`];
      return buildPdfWith(objects);
    };
    const job = await createJob();
    const before = await snapshot(job.id);
    const res = await upload(job.id, [{ name: 'form.pdf', content: formWith(maxFormFields + 1) }], 'documents');
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({ error: 'pdf_too_complex', message: `form.pdf: ${documentMessages.tooManyFormFields}` });
    expect(await snapshot(job.id)).toEqual(before);
    expect((await upload(job.id, [{ name: 'form.pdf', content: formWith(maxFormFields) }], 'documents')).statusCode).toBe(201);
    // A field listed twice: pdf-lib's flattening fails on it, and listing one field many times multiplies its time (second attack).
    const twice = buildPdfWith({
      1: ['<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [10 0 R 10 0 R 11 0 R] >> >>'],
      10: ['<< /FT /Tx /T (a) /Rect [0 0 10 10] /Subtype /Widget >>'],
      11: ['<< /T (b) /Kids [12 0 R 12 0 R] >>'],
      12: ['<< /FT /Tx /Parent 11 0 R /Rect [0 0 10 10] /Subtype /Widget >>'],
    });
    const refused = await upload(job.id, [{ name: 'twice.pdf', content: twice }], 'documents');
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual({ error: 'broken_pdf', message: `twice.pdf: ${documentMessages.broken}` });
  });

  it('accepts resources shared by every page through the page tree, and a font dictionary several pages share', async () => {
    const job = await createJob();
    const shared = buildPdfWith({
      2: ['<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 /Resources 4 0 R >>'],
      4: ['<< /Font 6 0 R >>'],
      5: ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font 6 0 R >> >>'],
      6: ['<< /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >>'],
    });
    const res = await upload(job.id, [{ name: 'shared.pdf', content: shared }], 'documents');
    expect(res.statusCode, res.body).toBe(201);
  });

  it('accepts a page whose annotations or resources are of a kind the seal skips (found by attack: refused as damaged at first)', async () => {
    const job = await createJob();
    for (const entries of ['/Annots 0', '/Annots << >>', '/Resources []', '/Resources << /Font [] >>', '/Resources << /ExtGState /None >>']) {
      const content = buildPdfWith({
        2: ['<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'],
        4: [pageWith(entries)],
      });
      const res = await upload(job.id, [{ name: 'odd.pdf', content }], 'documents');
      expect(res.statusCode, `${entries}: ${res.body}`).toBe(201);
    }
  });

  it('checks every page against loops once, however many pages share one large resource dictionary (found by attack: 3,000 pages took 26 s, 4,000 over 30)', async () => {
    const job = await createJob();
    const pageCount = 4000;
    const kids = Array.from({ length: pageCount }, (_, index) => `${index + 10} 0 R`).join(' ');
    const pages: Record<number, string[]> = {
      2: [`<< /Type /Pages /Kids [${kids}] /Count ${pageCount} /Resources 4 0 R >>`],
      4: [`<< /ProcSet [${'[]'.repeat(30_000)}] >>`],
    };
    for (let index = 0; index < pageCount; index += 1) pages[index + 10] = ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>'];
    const res = await upload(job.id, [{ name: 'shared.pdf', content: buildPdfWith(pages) }], 'documents');
    expect(res.statusCode, res.body).toBe(201);
  });

  it('refuses a PDF that declares encryption with 422 encrypted_pdf', async () => {
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'locked.pdf', content: await makeEncryptedPdf() }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'encrypted_pdf', message: `locked.pdf: ${documentMessages.encrypted}` });
  });

  it('refuses a PDF encrypted with a password by qpdf (AES-256) with 422 encrypted_pdf', async (context) => {
    const encrypted = await makeQpdfEncryptedPdf();
    if (!encrypted) return context.skip('qpdf is not installed');
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'protected.pdf', content: encrypted }], 'documents');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: 'encrypted_pdf', message: `protected.pdf: ${documentMessages.encrypted}` });
  });

  it('stores nothing from a batch with one bad file: no document, no audit event, no blob', async () => {
    const job = await createJob();
    expect((await upload(job.id, [{ name: 'existing.pdf', content: await makePdf(1, 'Existing') }])).statusCode).toBe(201);
    const before = await snapshot(job.id);
    for (const bad of [
      { name: 'broken.pdf', content: makeBrokenPdf() },
      { name: 'locked.pdf', content: await makeEncryptedPdf() },
      { name: 'notes.txt', content: Buffer.from('not a pdf') },
    ]) {
      const res = await upload(job.id, [{ name: 'good-one.pdf', content: await makePdf(2, 'Good one') }, bad, { name: 'good-two.pdf', content: pdf }]);
      expect(res.statusCode).toBeGreaterThanOrEqual(415);
      expect(res.json().message).toMatch(new RegExp(`^${bad.name}: `));
      expect(await snapshot(job.id)).toEqual(before);
    }
  });

  it('leaves no temporary upload files behind, whether the upload succeeds or not', async () => {
    const job = await createJob();
    expect((await upload(job.id, [{ name: 'fine.pdf', content: pdf }])).statusCode).toBe(201);
    expect(
      (
        await upload(job.id, [
          { name: 'fine.pdf', content: pdf },
          { name: 'bad.pdf', content: makeBrokenPdf() },
        ])
      ).statusCode,
    ).toBe(422);
    expect(filesUnder(path.join(dataDir, 'tmp'))).toEqual([]);
  });
});

describe('content-addressed storage', () => {
  it('keeps one blob for identical uploads, on one job or two, named by their SHA-256', async () => {
    const content = await makePdf(2, 'Shared content');
    const hash = sha256(content);
    const blobsBefore = filesUnder(t.blobRoot).length;
    const [first, second] = [await createJob(), await createJob()];
    const uploads = [
      await upload(first.id, [{ name: 'a.pdf', content }]),
      await upload(first.id, [{ name: 'b.pdf', content }]),
      await upload(second.id, [{ name: 'c.pdf', content }]),
    ];
    const documents = uploads.map((res) => res.json().items[0] as JobDocument);
    expect(documents.map((document) => document.sha256)).toEqual([hash, hash, hash]);
    expect(new Set(documents.map((document) => document.id)).size).toBe(3);

    const blobs = filesUnder(t.blobRoot);
    expect(blobs).toHaveLength(blobsBefore + 1);
    const blob = blobs.find((file) => path.basename(file) === hash);
    expect(blob).toBe(path.join(t.blobRoot, hash.slice(0, 2), hash.slice(2, 4), hash));
    expect(fs.readFileSync(blob ?? '').equals(content)).toBe(true);
  });

  it('still serves a document after another one with the same content is deleted', async () => {
    const content = await makePdf(1, 'Twice');
    const job = await createJob();
    const [kept, removed] = [
      (await upload(job.id, [{ name: 'kept.pdf', content }])).json().items[0],
      (await upload(job.id, [{ name: 'gone.pdf', content }])).json().items[0],
    ];
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/jobs/${job.id}/documents/${removed.id}`, headers: { ...headers, 'if-match': '"1"' } });
    expect(deleted.statusCode).toBe(200);
    const file = await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/documents/${kept.id}/file`, headers });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(content)).toBe(true);
  });

  it('records each document’s storage key as its hash', async () => {
    const job = await createJob();
    const document = (await upload(job.id, [{ name: 'key.pdf', content: pdf }])).json().items[0] as JobDocument;
    const [row] = await t.db.select({ storageKey: documents.storageKey }).from(documents).where(eq(documents.id, document.id));
    expect(row?.storageKey).toBe(sha256(pdf));
  });
});
