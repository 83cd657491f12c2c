import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documents, jobParticipants, jobs, notarizedDocuments, notaryProfiles, priceItems, userSignatures } from '#server/db/schema/index.ts';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { verifyWithPdfsig } from '#server/providers/signing/pdfsig.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { recordMedia, startRecordedSession } from '#test/live-session.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';
import { makePng } from '#test/png-fixtures.ts';

const run = promisify(execFile);
const publicUrl = 'https://notary.example.test';
/** Nothing listens at publicUrl, where certificates name the OCSP responder: pdfsig checks the chain only (long-term.test.ts asks the responder). */
const offline = { isRevocationCheckedOnline: false };
/** A job in session that was never recorded: not a notarial act, for that reason alone. */
const unrecordedReasons = ['No audio-video session was recorded.'];

/** The text of each page of a PDF, as a reader extracts it, whitespace collapsed. */
async function extractPages(pdf: Buffer, pageCount: number): Promise<string[]> {
  const file = path.join(os.tmpdir(), `notarized-${createHash('sha256').update(pdf).digest('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  try {
    const pages: string[] = [];
    for (let page = 1; page <= pageCount; page += 1) {
      const { stdout } = await run('pdftotext', ['-f', String(page), '-l', String(page), '-enc', 'UTF-8', file, '-']);
      pages.push(stdout.replace(/\s+/g, ' '));
    }
    return pages;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

const tinyPng = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let t: TestApp;
let notary: TestUser;
let signer: TestUser;
let notaryHeaders: Record<string, string>;
let signerHeaders: Record<string, string>;

async function saveSignature(user: TestUser) {
  const file = path.join(os.tmpdir(), `sig-${user.id}.png`);
  fs.writeFileSync(file, tinyPng);
  const sha256 = createHash('sha256').update(tinyPng).digest('hex');
  await createLocalStorage(t.blobRoot).putFile(file, sha256, 'image/png');
  await t.db.insert(userSignatures).values({ userId: user.id, kind: 'signature', method: 'upload', storageKey: sha256 });
}

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: publicUrl });
  notary = await t.createUser({ roles: ['notary'], name: 'Nora Notary' });
  // By hand, not createNotary: the verification test below expects this fixed commission number,
  // and createNotary makes a random one.
  await t.db.insert(notaryProfiles).values({
    userId: notary.id,
    commissionState: 'TX',
    commissionNumber: 'TX-777',
    commissionExpiresOn: '2031-01-01',
    county: 'Travis',
    approvalStatus: 'approved',
  });
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  notaryHeaders = await t.signInAs(notary);
  signerHeaders = await t.signInAs(signer);
  await saveSignature(notary);
  await saveSignature(signer);
});
afterAll(async () => t.close());

/** A jurat for the signer, made by the notary, with its one participant's id. */
async function createAffidavitJob() {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: notaryHeaders,
    payload: { title: 'Affidavit of identity', notarizationType: 'jurat', signers: [{ name: signer.name, email: signer.email }] },
  });
  const job = created.json() as { id: string; participants: Array<{ id: string }> };
  return { job, participantId: job.participants[0]?.id as string };
}

/** A job in session with one signed document (signer signature, notary signature and seal filled), completed. */
async function prepareSignedJob() {
  const { job, participantId } = await createAffidavitJob();
  await t.db.update(jobParticipants).set({ userId: signer.id }).where(eq(jobParticipants.id, participantId));
  const original = await makePdf(2, 'Affidavit');
  const upload = buildMultipart([{ name: 'affidavit.pdf', content: original }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents`,
    headers: { ...notaryHeaders, ...upload.headers },
    payload: upload.payload,
  });
  const documentId = uploaded.json().items[0].id as string;
  expect(
    (await t.app.inject({ method: 'PATCH', url: `/api/jobs/${job.id}`, headers: notaryHeaders, payload: { status: 'ready', version: 1 } })).statusCode,
  ).toBe(200);
  // The session is started and recorded for real; the hub's segments are stored as they would be.
  const { recordingId } = await startRecordedSession(t, job.id, notaryHeaders, [{ headers: signerHeaders, participantId }]);
  recordingOf.set(job.id, { recordingId, participantIds: [participantId, 'notary'] });
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const place = async (payload: Record<string, unknown>) => (await t.app.inject({ method: 'POST', url: base, headers: notaryHeaders, payload })).json();
  const signature = await place({ type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  const notarySignature = await place({ type: 'notary_signature', page: 2, x: 0.1, y: 0.6, width: 0.3, height: 0.06 });
  const seal = await place({ type: 'notary_seal', page: 2, x: 0.6, y: 0.6, width: 0.2, height: 0.15 });
  expect((await t.app.inject({ method: 'POST', url: `${base}/${signature.id}/fill`, headers: signerHeaders, payload: { version: 1 } })).statusCode).toBe(200);
  for (const field of [notarySignature, seal]) {
    expect((await t.app.inject({ method: 'POST', url: `${base}/${field.id}/fill`, headers: notaryHeaders, payload: { version: 1 } })).statusCode).toBe(200);
  }
  return { jobId: job.id, documentId, original, recordingId, participantId };
}

/**
 * A job put in session without a live session (no recording) and with nothing filled, its signer
 * known personally to the notary and its document completed: it may be sealed, as no field was
 * filled outside a recording, but not as a notarial act.
 */
async function prepareUnrecordedJob() {
  const { job, participantId } = await createAffidavitJob();
  const upload = buildMultipart([{ name: 'affidavit.pdf', content: await makePdf(2, 'Affidavit') }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents`,
    headers: { ...notaryHeaders, ...upload.headers },
    payload: upload.payload,
  });
  const documentId = uploaded.json().items[0].id as string;
  for (const [status, version] of [
    ['ready', 1],
    ['in_session', 2],
  ] as const) {
    const moved = await t.app.inject({ method: 'PATCH', url: `/api/jobs/${job.id}`, headers: notaryHeaders, payload: { status, version } });
    expect(moved.statusCode, moved.body).toBe(200);
  }
  const bypass = { enabled: true, reason: 'Identity step not under test here', method: 'personal_knowledge' };
  const bypassed = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/signers/${participantId}/id-bypass`,
    headers: notaryHeaders,
    payload: bypass,
  });
  expect(bypassed.statusCode, bypassed.body).toBe(200);
  const completed = await t.app.inject({ method: 'POST', url: `/api/jobs/${job.id}/documents/${documentId}/complete`, headers: notaryHeaders });
  expect(completed.statusCode, completed.body).toBe(200);
  return { jobId: job.id, documentId, participantId };
}

const recordingOf = new Map<string, { recordingId: string; participantIds: string[] }>();

/** POST complete-job (or merge-documents) as the notary, the hub having stored every participant's media until now. */
async function seal(jobId: string, action: 'complete-job' | 'merge-documents' = 'complete-job') {
  const recording = recordingOf.get(jobId);
  if (recording) await recordMedia(t, recording.recordingId, recording.participantIds);
  return t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/${action}`, headers: notaryHeaders });
}

describe('POST /api/jobs/:id/complete-job', () => {
  it('refuses to seal before every document is complete, and refuses anyone but the job’s notary', async () => {
    const { jobId, documentId } = await prepareSignedJob();
    const early = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/complete-job`, headers: notaryHeaders });
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toBe('Complete every document first: affidavit.pdf.');
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const bySigner = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/complete-job`, headers: signerHeaders });
    expect(bySigner.statusCode).toBe(403);
    const otherNotary = await t.createUser({ roles: ['notary'] });
    const byOther = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/complete-job`, headers: await t.signInAs(otherNotary) });
    expect(byOther.statusCode).toBe(404);
  });

  it('produces a new signed PDF that pdfsig trusts, keeps the original, records its hash and completes the job', async () => {
    const { jobId, documentId, original } = await prepareSignedJob();
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const sealed = await seal(jobId, 'merge-documents');
    expect(sealed.statusCode).toBe(200);
    const [item] = sealed.json().items as Array<{ id: string; sha256: string; downloadUrl: string; pageCount: number; name: string }>;
    // A notarial act (recorded, the signer personally known to the notary): its name says so.
    expect(item).toMatchObject({ name: 'affidavit (notarized).pdf', pageCount: expect.any(Number), isNotarialAct: true, notNotarialReasons: [] });
    expect(item?.pageCount).toBeGreaterThanOrEqual(4);

    const download = await t.app.inject({ method: 'GET', url: item?.downloadUrl ?? '', headers: signerHeaders });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe('attachment; filename="affidavit (notarized).pdf"');
    const listed = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/notarized`, headers: signerHeaders });
    expect(listed.json().items).toEqual([expect.objectContaining({ id: item?.id, name: 'affidavit (notarized).pdf', isNotarialAct: true })]);
    const notarized = download.rawPayload;
    expect(createHash('sha256').update(notarized).digest('hex')).toBe(item?.sha256);
    const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
    expect(caPem).toContain('BEGIN CERTIFICATE');
    const report = await verifyWithPdfsig(notarized, caPem, offline);
    // Not the whole file: the long-term validation data (DSS) is appended after the signature (decision 058).
    expect(report).toMatchObject({ isValid: true, isTrusted: true, isTotal: false, hasDigestMismatch: false });
    // The seal is appended to the original as an incremental update: the upload is its first bytes.
    expect(notarized.subarray(0, original.length).equals(original)).toBe(true);

    const originalFile = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/documents/${documentId}/file`, headers: signerHeaders });
    expect(originalFile.rawPayload.equals(original)).toBe(true);
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job?.status).toBe('completed');
    const [document] = await t.db.select().from(documents).where(eq(documents.id, documentId));
    expect(document?.sha256).toBe(createHash('sha256').update(original).digest('hex'));
    const audit = (await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/audit`, headers: notaryHeaders })).json();
    expect(audit.verification.isValid).toBe(true);
    const notarizedEvent = audit.events.find((event: { action: string }) => event.action === 'document.notarized');
    expect(notarizedEvent.data).toMatchObject({ sha256: item?.sha256 });
    expect(notarizedEvent.data).not.toHaveProperty('fullSaveReason');

    const again = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/complete-job`, headers: notaryHeaders });
    expect(again.statusCode).toBe(409);
  });
});

describe('names in every script', () => {
  it('seals a job whose signer is named in Vietnamese and prints the name unchanged on the audit certificate', async () => {
    const { jobId, documentId, participantId } = await prepareSignedJob();
    await t.db.update(jobParticipants).set({ name: 'Nguyễn Thị Ánh' }).where(eq(jobParticipants.id, participantId));
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const sealed = await seal(jobId);
    expect(sealed.statusCode, sealed.body).toBe(200);
    const [item] = sealed.json().items as Array<{ downloadUrl: string; pageCount: number }>;
    const download = await t.app.inject({ method: 'GET', url: item?.downloadUrl ?? '', headers: notaryHeaders });
    const pages = await extractPages(download.rawPayload, item?.pageCount ?? 0);
    expect(pages.join(' ')).toContain('Nguyễn Thị Ánh');
    expect(pages.join(' ')).not.toContain('Nguy?n');
  });

  it('refuses to seal, with a sentence naming the text and the character, when a name or title holds a character no embedded font can print', async () => {
    const { jobId, documentId, participantId } = await prepareSignedJob();
    await t.db.update(jobParticipants).set({ name: 'Sam 🏠 Signer' }).where(eq(jobParticipants.id, participantId));
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const refused = await seal(jobId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: 'unprintable_text',
      message: 'The signer name “Sam 🏠 Signer” has a character no font of the notarized record can print (🏠, U+1F3E0). Correct it, then seal again.',
    });
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job?.status).toBe('in_session');
  });
});

/** Every image of the PDF as pdfimages extracts it: its size and first pixel (RGB). */
async function listImages(pdf: Buffer): Promise<Array<{ width: number; height: number; firstPixel: number[] }>> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'notarized-images-'));
  try {
    const file = path.join(directory, 'output.pdf');
    await fs.promises.writeFile(file, pdf);
    await run('pdfimages', [file, path.join(directory, 'image')]);
    const images = [];
    for (const name of (await fs.promises.readdir(directory)).filter((entry) => entry.endsWith('.ppm')).sort()) {
      const bytes = await fs.promises.readFile(path.join(directory, name));
      const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'));
      if (!header) continue;
      const start = header[0].length;
      images.push({ width: Number(header[1]), height: Number(header[2]), firstPixel: [...bytes.subarray(start, start + 3)] });
    }
    return images;
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
}

/** The notary replaces their signature image (the old one stays on record, no longer current). */
async function setNotarySignature(png: Buffer) {
  const sha256 = createHash('sha256').update(png).digest('hex');
  const file = path.join(os.tmpdir(), `sig-${sha256}.png`);
  fs.writeFileSync(file, png);
  await createLocalStorage(t.blobRoot).putFile(file, sha256, 'image/png');
  await t.db
    .update(userSignatures)
    .set({ isCurrent: false })
    .where(and(eq(userSignatures.userId, notary.id), eq(userSignatures.kind, 'signature')));
  await t.db.insert(userSignatures).values({ userId: notary.id, kind: 'signature', method: 'upload', storageKey: sha256 });
}

describe('the notary’s images from one seal to the next', () => {
  it('draws the notary’s signature as it is at each seal: after they change it, the next output carries the new image, not the one prepared for the last seal', async () => {
    // Images are prepared once per process and reused by every seal, keyed by their content.
    const sealWithSignature = async (png: Buffer) => {
      await setNotarySignature(png);
      const { jobId, documentId } = await prepareSignedJob();
      await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
      const sealed = await seal(jobId);
      expect(sealed.statusCode).toBe(200);
      const download = await t.app.inject({ method: 'GET', url: sealed.json().items[0].downloadUrl, headers: notaryHeaders });
      return download.rawPayload;
    };
    const blue = await sealWithSignature(makePng(6, 3, { color: [0, 0, 255] }));
    const red = await sealWithSignature(makePng(6, 3, { color: [255, 0, 0] }));
    const notarySignatures = async (pdf: Buffer) =>
      (await listImages(pdf)).filter((image) => image.width === 6 && image.height === 3).map((image) => image.firstPixel);
    expect(await notarySignatures(blue)).toEqual([[0, 0, 255]]);
    expect(await notarySignatures(red)).toEqual([[255, 0, 0]]);
    const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
    // Not the whole file: the long-term validation data (DSS) is appended after the signature (decision 058).
    expect(await verifyWithPdfsig(red, caPem, offline)).toMatchObject({ isValid: true, isTrusted: true, isTotal: false, hasDigestMismatch: false });
  });
});

describe('fields on every page', () => {
  it('prints a field placed on every page on each page of the document', async () => {
    const { jobId, documentId } = await prepareSignedJob();
    const [participant] = await t.db
      .select()
      .from(jobParticipants)
      .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.userId, signer.id)));
    const base = `/api/jobs/${jobId}/documents/${documentId}/fields`;
    const field = (
      await t.app.inject({
        method: 'POST',
        url: base,
        headers: notaryHeaders,
        payload: { type: 'text', participantId: participant?.id, page: 1, x: 0.1, y: 0.85, width: 0.5, height: 0.04, isOnEveryPage: true },
      })
    ).json();
    expect(
      (await t.app.inject({ method: 'POST', url: `${base}/${field.id}/fill`, headers: signerHeaders, payload: { value: 'Parcel 17 initialled', version: 1 } }))
        .statusCode,
    ).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const sealed = await seal(jobId);
    expect(sealed.statusCode).toBe(200);
    const download = await t.app.inject({ method: 'GET', url: sealed.json().items[0].downloadUrl, headers: notaryHeaders });
    const pages = await extractPages(download.rawPayload, 2);
    expect(pages[0]).toContain('Parcel 17 initialled');
    expect(pages[1]).toContain('Parcel 17 initialled');
  });
});

describe('what the notarized output states', () => {
  it('lists the job’s history on the audit pages as sentences with the document, page and field, and prints dates as the notary’s state writes them', async () => {
    const { jobId, documentId } = await prepareSignedJob();
    const [participant] = await t.db
      .select()
      .from(jobParticipants)
      .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.userId, signer.id)));
    const base = `/api/jobs/${jobId}/documents/${documentId}/fields`;
    const date = (
      await t.app.inject({
        method: 'POST',
        url: base,
        headers: notaryHeaders,
        payload: { type: 'date', participantId: participant?.id, page: 2, x: 0.1, y: 0.4, width: 0.3, height: 0.04 },
      })
    ).json();
    expect(
      (await t.app.inject({ method: 'POST', url: `${base}/${date.id}/fill`, headers: signerHeaders, payload: { value: '2026-03-14', version: 1 } })).statusCode,
    ).toBe(200);
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const [item] = (await seal(jobId)).json().items;
    const pages = await extractPages((await t.app.inject({ method: 'GET', url: item.downloadUrl, headers: signerHeaders })).rawPayload, item.pageCount);

    // Texas writes dates month/day/year.
    expect(pages[1]).toContain('03/14/2026');
    expect(pages[1]).not.toContain('2026-03-14');
    const audit = pages.filter((text) => text.includes('Audit certificate, page')).join(' ');
    for (const sentence of [
      'Nora Notary created the job “Affidavit of identity” (Jurat).',
      'Nora Notary uploaded affidavit.pdf (2 pages).',
      'Nora Notary moved the job from Draft to Ready.',
      'Nora Notary started the session.',
      'Nora Notary placed a signature field for Sam Signer on page 1 of affidavit.pdf.',
      'Sam Signer signed page 1 of affidavit.pdf.',
      'Nora Notary signed page 2 of affidavit.pdf as the notary.',
      'Nora Notary applied the notary seal on page 2 of affidavit.pdf.',
      'Sam Signer filled the date field on page 2 of affidavit.pdf.',
      'Nora Notary marked affidavit.pdf complete.',
    ]) {
      expect(audit).toContain(sentence);
    }
    for (const code of ['job.status_changed', 'field.placed', 'field.filled', 'in_session']) expect(audit).not.toContain(code);
  });

  it('refuses to seal a recorded job while its signer’s identity is not proven (a bypass stored without a method counts for nothing), naming the signer', async () => {
    const { jobId, documentId, participantId } = await prepareSignedJob();
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    // A bypass stored before one needed a method: no route makes one now, the database may hold it.
    await t.db.update(jobParticipants).set({ isIdBypassed: true, idBypassMethod: null }).where(eq(jobParticipants.id, participantId));
    const refused = await seal(jobId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: 'identity_not_proven',
      message: 'Confirm the identity of Sam Signer first (or record how you know them). The job cannot be sealed.',
      detail: { names: ['Sam Signer'] },
    });
    const [job] = await t.db.select().from(jobs).where(eq(jobs.id, jobId));
    expect(job?.status).toBe('in_session');
    expect(await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, jobId))).toEqual([]);

    // The notary sets the bypass again, naming how they know the signer: now it seals, as a notarial act.
    const bypass = { enabled: true, reason: 'Known to me for ten years', method: 'personal_knowledge' };
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/signers/${participantId}/id-bypass`, headers: notaryHeaders, payload: bypass }))
        .statusCode,
    ).toBe(200);
    const sealed = await seal(jobId);
    expect(sealed.statusCode, sealed.body).toBe(200);
    expect(sealed.json().items[0]).toMatchObject({ isNotarialAct: true, notNotarialReasons: [] });
  });

  it('seals a recorded job whose signer the notary knows personally as a notarial act: names the identification and the recording, stores the facts, and pdfsig verifies it', async () => {
    const { jobId, documentId, recordingId } = await prepareSignedJob();
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const [item] = (await seal(jobId)).json().items;
    const bytes = (await t.app.inject({ method: 'GET', url: item.downloadUrl, headers: signerHeaders })).rawPayload;

    const pages = await extractPages(bytes, item.pageCount);
    expect(pages).toHaveLength(item.pageCount);
    pages.forEach((text, index) => expect(text, `page ${index + 1}`).not.toContain('NOT A NOTARIAL ACT'));
    const certificatePage = pages.find((text) => text.includes('NOTARIAL CERTIFICATE')) ?? '';
    expect(certificatePage).toContain('Nora Notary');
    expect(certificatePage).not.toContain('It was not performed as a notarial act.');
    const auditPage = pages.filter((text) => text.includes('Audit certificate, page')).join(' ');
    expect(auditPage).not.toContain('Not a notarial act');
    expect(auditPage).toContain('Identity: Personally known to the notary (the notary’s statement: Identity step not under test here)');
    expect(auditPage).toMatch(new RegExp(`Recording ${recordingId}: \\d+ stored segments of 2 participants`));
    expect(auditPage).toContain('Nora Notary (notary): none longer than 5 seconds. Sam Signer (signer): none longer than 5 seconds.');

    const [row] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.id, item.id));
    expect(row).toMatchObject({ isNotarialAct: true, hasRecordedSession: true, hasProvenIdentity: true, notNotarialReasons: [] });
    const audit = (await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/audit`, headers: notaryHeaders })).json();
    expect(audit.events.find((event: { action: string }) => event.action === 'document.notarized').data).toMatchObject({
      isNotarialAct: true,
      notNotarialReasons: [],
    });

    const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
    // Not the whole file: the long-term validation data (DSS) is appended after the signature (decision 058).
    expect(await verifyWithPdfsig(bytes, caPem, offline)).toMatchObject({ isValid: true, isTrusted: true, isTotal: false, hasDigestMismatch: false });
  });

  it('seals a job in session that was never recorded, with nothing filled, as "not a notarial act" for that reason alone, stores the facts, and /verify says so', async () => {
    const { jobId } = await prepareUnrecordedJob();
    const sealed = await seal(jobId);
    expect(sealed.statusCode, sealed.body).toBe(200);
    const [item] = sealed.json().items;
    expect(item).toMatchObject({ name: 'affidavit (signed, not notarized).pdf', isNotarialAct: false, notNotarialReasons: unrecordedReasons });
    const bytes = (await t.app.inject({ method: 'GET', url: item.downloadUrl, headers: notaryHeaders })).rawPayload;

    const pages = await extractPages(bytes, item.pageCount);
    expect(pages).toHaveLength(item.pageCount);
    pages.forEach((text, index) => expect(text, `page ${index + 1}`).toContain('NOT A NOTARIAL ACT: no recorded audio-video session'));
    const all = pages.join(' ');
    expect(all).not.toContain('no proven identity');
    for (const claim of ['audio-video communication', 'appeared before me', 'sworn to', 'communication technology']) expect(all).not.toContain(claim);
    const certificatePage = pages.find((text) => text.includes('SIGNING CERTIFICATE')) ?? '';
    expect(certificatePage).toContain('Requested act: Jurat. It was not performed as a notarial act.');
    expect(certificatePage).toContain(`Not a notarial act: ${unrecordedReasons.join(' ')}`);
    const auditPage = pages.filter((text) => text.includes('Audit certificate, page')).join(' ');
    expect(auditPage).toContain(`Not a notarial act: ${unrecordedReasons.join(' ')}`);
    expect(auditPage).toContain('Identity: Personally known to the notary (the notary’s statement: Identity step not under test here)');
    expect(auditPage).toContain('None: no audio-video session was recorded');

    const [row] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.id, item.id));
    expect(row).toMatchObject({ isNotarialAct: false, hasRecordedSession: false, hasProvenIdentity: true, notNotarialReasons: unrecordedReasons });
    const byId = await t.app.inject({ method: 'GET', url: `/api/verify/${item.id}` });
    expect(byId.json()).toMatchObject({
      isKnown: true,
      checkedBy: 'id',
      notarizedDocumentId: item.id,
      isNotarialAct: false,
      notNotarialReasons: unrecordedReasons,
    });
    const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
    // Not the whole file: the long-term validation data (DSS) is appended after the signature (decision 058).
    expect(await verifyWithPdfsig(bytes, caPem, offline)).toMatchObject({ isValid: true, isTrusted: true, isTotal: false, hasDigestMismatch: false });
  });

  it('prints the document’s verification id and its address under PUBLIC_URL on the certificate page', async () => {
    const { jobId, documentId } = await prepareSignedJob();
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const [item] = (await seal(jobId)).json().items;
    const bytes = (await t.app.inject({ method: 'GET', url: item.downloadUrl, headers: signerHeaders })).rawPayload;
    const certificatePage = (await extractPages(bytes, item.pageCount)).find((text) => text.includes('NOTARIAL CERTIFICATE')) ?? '';
    expect(certificatePage).toContain(`Verification ID: ${item.id}`);
    expect(certificatePage).toContain(`Verify at: ${publicUrl}/verify?id=${item.id}`);
    expect((await t.app.inject({ method: 'GET', url: `/api/verify/${item.id}` })).json()).toMatchObject({ isKnown: true, notarizedDocumentId: item.id });
  });
});

describe('public verification', () => {
  it('confirms a notarized file by its bytes or id without personal data, and rejects a changed copy', async () => {
    const { jobId, documentId } = await prepareSignedJob();
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const [item] = (await seal(jobId)).json().items;
    const bytes = (await t.app.inject({ method: 'GET', url: item.downloadUrl, headers: notaryHeaders })).rawPayload;

    const upload = buildMultipart([{ name: 'check.pdf', content: bytes }]);
    const checked = await t.app.inject({ method: 'POST', url: '/api/verify', headers: upload.headers, payload: upload.payload });
    expect(checked.statusCode).toBe(200);
    expect(checked.json()).toMatchObject({
      isKnown: true,
      checkedBy: 'file',
      notarizedDocumentId: item.id,
      actLabel: 'Jurat',
      notaryName: 'Nora Notary',
      commissionState: 'TX',
      commissionNumber: 'TX-777',
      isNotarialAct: true,
      notNotarialReasons: [],
    });
    expect(checked.body).not.toContain('Sam Signer');
    expect(checked.body).not.toContain(signer.email);

    const changed = Buffer.from(bytes);
    changed.writeUInt8(changed.readUInt8(200) ^ 1, 200);
    const tampered = buildMultipart([{ name: 'check.pdf', content: changed }]);
    const refused = await t.app.inject({ method: 'POST', url: '/api/verify', headers: tampered.headers, payload: tampered.payload });
    expect(refused.json()).toMatchObject({
      isKnown: false,
      checkedBy: 'file',
      notarizedDocumentId: null,
      notaryName: null,
      isNotarialAct: null,
      notNotarialReasons: [],
    });

    const byId = await t.app.inject({ method: 'GET', url: `/api/verify/${item.id}` });
    // By id nothing was checked: the answer is what was issued (with its SHA-256 to compare), marked as such.
    expect(byId.json()).toMatchObject({
      isKnown: true,
      checkedBy: 'id',
      sha256: item.sha256,
      notaryName: 'Nora Notary',
      isNotarialAct: true,
      notNotarialReasons: [],
    });
    expect(byId.body).not.toContain('Sam Signer');
    expect((await t.app.inject({ method: 'GET', url: '/api/verify/not-a-uuid' })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: '/api/verify/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
  });

  it('prepares the journal entries for the notary only', async () => {
    const { jobId } = await prepareSignedJob();
    const prepared = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/prepare-notary-log`, headers: notaryHeaders });
    expect(prepared.statusCode).toBe(200);
    expect(prepared.json().entries).toEqual([
      expect.objectContaining({
        signerName: 'Sam Signer',
        documentName: 'affidavit.pdf',
        actType: 'Jurat',
        notarizedAt: null,
        identityMethod: 'Personally known to the notary (the notary’s statement: Identity step not under test here)',
      }),
    ]);
    expect((await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/prepare-notary-log`, headers: signerHeaders })).statusCode).toBe(403);
  });
});

describe('the charges of a completed job', () => {
  const defaults = [
    { key: 'first_seal', label: 'Notarial act', amountCents: 2500, unit: 'act', feeKind: 'notarial' },
    { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' },
    { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' },
    { key: 'extra_signer', label: 'Each further signer', amountCents: 700, unit: 'additional_signer', feeKind: 'platform' },
    { key: 'witness', label: 'Witness provided', amountCents: 1500, unit: 'witness', feeKind: 'platform' },
  ] as const;
  beforeAll(async () => {
    await t.db.insert(priceItems).values(defaults.map((price, position) => ({ ...price, companyId: null, position })));
  });
  afterAll(async () => {
    await t.db.delete(priceItems);
  });
  const chargesAs = async (headers: Record<string, string>, jobId: string) => t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/charges`, headers });

  it('are written once at completion from the prices of that moment, the notarial fee apart, and never recomputed', async () => {
    const { jobId, documentId } = await prepareSignedJob();
    await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/${documentId}/complete`, headers: notaryHeaders });
    const admin = await t.createUser({ roles: ['admin'] });
    const billing = await t.createUser({ roles: ['billing'] });
    const before = (await chargesAs(await t.signInAs(billing), jobId)).json();
    expect(before).toEqual({ jobId, chargedAt: null, items: [], notarialFeeCents: 0, platformFeeCents: 0, totalCents: 0 });
    expect((await seal(jobId)).statusCode).toBe(200);
    const charged = await chargesAs(await t.signInAs(billing), jobId);
    expect(charged.statusCode, charged.body).toBe(200);
    expect(charged.json()).toEqual({
      jobId,
      chargedAt: expect.any(String),
      items: [
        {
          key: 'first_seal',
          label: 'Notarial act',
          unit: 'act',
          feeKind: 'notarial',
          quantity: 1,
          unitAmountCents: 2500,
          amountCents: 2500,
          source: 'default',
        },
        { key: 'platform', label: 'Platform fee', unit: 'job', feeKind: 'platform', quantity: 1, unitAmountCents: 1000, amountCents: 1000, source: 'default' },
        {
          key: 'identity_check',
          label: 'Identity check',
          unit: 'signer',
          feeKind: 'platform',
          quantity: 1,
          unitAmountCents: 400,
          amountCents: 400,
          source: 'default',
        },
      ],
      notarialFeeCents: 2500,
      platformFeeCents: 1400,
      totalCents: 3900,
    });
    // A later price change reaches jobs completed later, never this one.
    await t.db.update(priceItems).set({ amountCents: 2000 }).where(eq(priceItems.key, 'first_seal'));
    expect((await chargesAs(await t.signInAs(admin), jobId)).json().totalCents).toBe(3900);
    await t.db.update(priceItems).set({ amountCents: 2500 }).where(eq(priceItems.key, 'first_seal'));
    const trail = await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/audit`, headers: await t.signInAs(admin) });
    // The journal entry of the act carries the notarial fee charged for it.
    const log = await t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/prepare-notary-log`, headers: notaryHeaders });
    expect(log.json().entries.map((entry: { feeCents: number | null }) => entry.feeCents)).toEqual([2500]);
    const sentences = (trail.json().events as Parameters<typeof describeAuditEvent>[0][]).map((event) => describeAuditEvent(event));
    expect(sentences).toContain('The job was charged $39.00 (notarial fee $25.00, platform fees $14.00).');
  });

  it('carry no notarial fee for an output that is not a notarial act', async () => {
    const { jobId } = await prepareUnrecordedJob();
    expect((await seal(jobId)).statusCode).toBe(200);
    const charges = (await chargesAs(await t.signInAs(await t.createUser({ roles: ['finance'] })), jobId)).json();
    expect(charges.items.map((item: { key: string }) => item.key)).toEqual(['platform', 'identity_check']);
    expect(charges).toMatchObject({ notarialFeeCents: 0, platformFeeCents: 1400, totalCents: 1400 });
  });

  it('are read by administrators, billing and finance; the notary, the signer and a title company without the job are refused', async () => {
    const { jobId } = await prepareUnrecordedJob();
    expect((await seal(jobId)).statusCode).toBe(200);
    expect((await chargesAs(notaryHeaders, jobId)).statusCode).toBe(403);
    expect((await chargesAs(signerHeaders, jobId)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/charges` })).statusCode).toBe(401);
    const strangerTitle = await t.createUser({ roles: ['title'] });
    expect((await chargesAs(await t.signInAs(strangerTitle), jobId)).statusCode).toBe(404);
    expect((await chargesAs(await t.signInAs(await t.createUser({ roles: ['admin'] })), '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await chargesAs(await t.signInAs(await t.createUser({ roles: ['admin'] })), 'nope')).statusCode).toBe(400);
  });
});
