import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEvents,
  documents,
  emailOutbox,
  jobParticipants,
  jobs,
  notarizedDocuments,
  notaryJournalEntries,
  recordings,
  videoSessionParticipants,
} from '#server/db/schema/index.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verifyWithPdfsig } from '#server/providers/signing/pdfsig.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { buildPdfWith } from '#test/pdf-attacks.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

/**
 * Sealing attacked: refusals for an interrupted recording and for unprintable text must
 * write nothing, two seals must not both pass, and hostile names must not crash the font layer.
 */

let t: TestApp;
let kit: JobKit;
let notary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
});
afterAll(async () => t?.close());

interface Options {
  signerName?: string;
  fileName?: string;
  textValue?: string;
  /** Seconds ago the recording began (the recording and the admissions moved back that far). */
  secondsAgo?: number;
  /** The signer's name corrected by the agent while the job is a draft. */
  renameTo?: string;
  /** The original uploaded (one page of makePdf otherwise). */
  content?: Buffer;
}

/** A job in session with one signer who filled a signature (and a text field with textValue), every document completed. */
async function sealableJob(options: Options = {}) {
  const agent = await t.createUser({ roles: ['title_agent'] });
  const signer = await t.createUser({ roles: ['signer'], ...(options.signerName ? { name: options.signerName } : {}) });
  await kit.saveSignature(signer);
  const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: options.signerName ?? signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const body = buildMultipart([{ name: options.fileName ?? 'deed.pdf', content: options.content ?? (await makePdf(1)) }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents`,
    headers: { ...(await kit.headersFor(agent)), ...body.headers },
    payload: body.payload,
  });
  expect(uploaded.statusCode, uploaded.body).toBe(201);
  const document = uploaded.json().items[0] as { id: string; name: string };
  if (options.renameTo) {
    const renamed = await kit.call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${job.participants[0]?.id ?? ''}`, { name: options.renameTo });
    expect(renamed.statusCode, renamed.body).toBe(200);
  }
  await kit.moveJob(agent, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(notary, job.id, [signer]);
  const start = new Date(Date.now() - (options.secondsAgo ?? 30) * 1000);
  await t.db.update(recordings).set({ startedAt: start }).where(eq(recordings.id, recording.recordingId));
  const admitted = new Date(start.getTime() - 1000);
  await t.db
    .update(videoSessionParticipants)
    .set({ joinedAt: admitted, decidedAt: admitted })
    .where(eq(videoSessionParticipants.sessionId, recording.sessionId));
  const base = `/api/jobs/${job.id}/documents/${document.id}/fields`;
  const place = async (type: string, y: number) => {
    const placed = await kit.call(notary, 'POST', base, { type, participantId, page: 1, x: 0.1, y, width: 0.5, height: 0.05 });
    expect(placed.statusCode, placed.body).toBe(201);
    return placed.json().id as string;
  };
  const signatureField = await place('signature', 0.7);
  const textField = options.textValue === undefined ? null : await place('text', 0.5);
  const fillAll = async () => {
    expect((await kit.call(signer, 'POST', `${base}/${signatureField}/fill`, { version: 1 })).statusCode).toBe(200);
    if (textField) {
      const filled = await kit.call(signer, 'POST', `${base}/${textField}/fill`, { version: 1, value: options.textValue });
      expect(filled.statusCode, filled.body).toBe(200);
    }
  };
  const complete = async () => expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${document.id}/complete`)).statusCode).toBe(200);
  return { jobId: job.id, document, signer, agent, participantId, recordingId: recording.recordingId, start, fillAll, complete };
}

/** What a seal writes: its outputs, the completed status, its audit events, its mail and the journal draft. */
async function tracesOf(jobId: string, people: TestUser[]) {
  const [job] = await t.db.select({ status: jobs.status, version: jobs.version }).from(jobs).where(eq(jobs.id, jobId));
  const notarized = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, jobId));
  const events = await t.db.select({ action: auditEvents.action, data: auditEvents.data }).from(auditEvents).where(eq(auditEvents.jobId, jobId));
  const mail = [];
  for (const person of people)
    mail.push(
      ...(await t.db
        .select()
        .from(emailOutbox)
        .where(and(eq(emailOutbox.toAddress, person.email), eq(emailOutbox.kind, 'job_completed')))),
    );
  const journal = await t.db.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.jobId, jobId));
  return {
    status: job?.status,
    notarized: notarized.length,
    notarizedEvents: events.filter((event) => event.action === 'document.notarized').length,
    completedEvents: events.filter((event) => event.action === 'job.status_changed' && (event.data as { to?: string }).to === 'completed').length,
    mail: mail.length,
    journal: journal.length,
  };
}

/** Seals a job over `content` (signed, recorded, completed) and checks the output with pdfsig; returns the job and the sealed file. */
async function sealAndVerify(content: Buffer) {
  const job = await sealableJob({ content });
  await job.fillAll();
  await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
  await job.complete();
  const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
  expect(sealed.statusCode, sealed.body).toBe(200);
  const [output] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, job.jobId));
  const pdf = await createLocalStorage(t.blobRoot).read(output?.storageKey ?? '');
  const caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
  // Nothing listens where the certificates name the revocation responder: the chain only.
  const report = await verifyWithPdfsig(pdf, caPem, { isRevocationCheckedOnline: false });
  expect(report, report.output).toMatchObject({ isValid: true, isTrusted: true, hasDigestMismatch: false });
  return { job, pdf };
}

const nothingWritten = { status: 'in_session', notarized: 0, notarizedEvents: 0, completedEvents: 0, mail: 0, journal: 0 };

describe('refusals write nothing', () => {
  it('refuses the merge-documents fallback too when the notary was out of the recorded call for 40 seconds, leaving no output, status, event, mail or journal draft', async () => {
    const job = await sealableJob({ secondsAgo: 90 });
    const at = (seconds: number) => new Date(job.start.getTime() + seconds * 1000);
    await recordMedia(t, job.recordingId, [job.participantId]);
    await recordMedia(t, job.recordingId, ['notary'], at(20));
    await recordMedia(t, job.recordingId, ['notary'], new Date(), at(60));
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    for (const url of ['merge-documents', 'complete-job']) {
      const refused = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/${url}`);
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json().error).toBe('recording_interrupted');
    }
    expect(await tracesOf(job.jobId, [job.signer, job.agent])).toEqual(nothingWritten);
  });

  it('refuses a signer named with a character no font prints (a name stored before names were checked where typed), leaving nothing written, and seals nothing for another person asking', async () => {
    const job = await sealableJob();
    await t.db.update(jobParticipants).set({ name: 'Sam 🂡 Signer' }).where(eq(jobParticipants.id, job.participantId));
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    const refused = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toBe('unprintable_text');
    for (const person of [job.signer, job.agent]) expect((await kit.call(person, 'POST', `/api/jobs/${job.jobId}/complete-job`)).statusCode).toBe(403);
    expect(await tracesOf(job.jobId, [job.signer, job.agent])).toEqual(nothingWritten);
  });
});

describe('text no font prints, corrected before the act', () => {
  it('refuses such a name where it is typed, and seals a job whose audit trail holds one from before that rule, printing its code point', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const typed = await kit.call(agent, 'POST', '/api/jobs', {
      title: 'Deed',
      notarizationType: 'acknowledgment',
      signers: [{ name: 'Sam 🂡 Signer', email: 'sam-typed@example.test' }],
    });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error).toBe('unprintable_text');

    const job = await sealableJob();
    // The trail keeps what was written before the rule; nobody can change it, so it must never block the seal.
    await appendAuditEvent(
      { db: t.db, user: null, ipAddress: '127.0.0.1', userAgent: 'test' },
      { jobId: job.jobId, action: 'participant.updated', data: { participantId: job.participantId, name: 'Sam 🂡 Signer' } },
    );
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
    expect(sealed.statusCode, sealed.body.slice(0, 400)).toBe(200);
  });

  it('seals a job whose notary wrote an emoji in an identity bypass reason', async () => {
    const job = await sealableJob();
    const bypass = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/signers/${job.participantId}/id-bypass`, {
      enabled: true,
      reason: 'Known to me 👍 for years',
      method: 'personal_knowledge',
    });
    expect([200, 400], bypass.body).toContain(bypass.statusCode);
    const again = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/signers/${job.participantId}/id-bypass`, {
      enabled: true,
      reason: 'Known to me for years',
      method: 'personal_knowledge',
    });
    expect(again.statusCode, again.body).toBe(200);
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
    expect(sealed.statusCode, sealed.body.slice(0, 400)).toBe(200);
  });
});

describe('two seals at once', () => {
  it('lets exactly one of two racing seals through: one set of outputs, one completed status, one mail per person', async () => {
    const job = await sealableJob();
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    const results = await Promise.all([
      kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`),
      kit.call(notary, 'POST', `/api/jobs/${job.jobId}/merge-documents`),
    ]);
    expect(results.map((res) => res.statusCode).sort(), results.map((res) => res.body.slice(0, 200)).join(' | ')).toEqual([200, 409]);
    const traces = await tracesOf(job.jobId, [job.signer]);
    expect(traces).toMatchObject({ status: 'completed', notarized: 1, notarizedEvents: 1, completedEvents: 1, mail: 1 });
  });
});

describe('hostile names and text', () => {
  it('refuses text-direction overrides and control characters in an uploaded document’s name, as in every other name', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [] });
    for (const name of ['invoice\u202Efdp.exe.pdf', 'deed\u0085.pdf', 'deed\u2066x.pdf']) {
      const body = buildMultipart([{ name, content: await makePdf(1) }]);
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/jobs/${job.id}/documents`,
        headers: { ...(await kit.headersFor(agent)), ...body.headers },
        payload: body.payload,
      });
      expect(res.statusCode, res.body).toBe(400);
    }
  });

  it('never cuts a document’s name inside a character: a 200th character outside the BMP stays whole (and, being an emoji, is refused by name)', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [] });
    const body = buildMultipart([{ name: `${'a'.repeat(199)}😀b.pdf`, content: await makePdf(1) }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...(await kit.headersFor(agent)), ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(400);
    const message = res.json().message as string;
    expect(message).toContain('(😀, U+1F600)');
    expect(message).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('answers a seal of combining marks, joiners, right-to-left text and a long field within seconds, and never 500', async () => {
    const stacked = `Ze${'\u0301\u0323\u0308'.repeat(38)}`.slice(0, 120);
    const job = await sealableJob({
      signerName: stacked,
      textValue: `${'שלום\u200dעולם مرحبا\u200c بالعالم '.repeat(20)}`.slice(0, 500),
    });
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    const started = performance.now();
    const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
    const elapsed = performance.now() - started;
    expect([200, 409], sealed.body.slice(0, 300)).toContain(sealed.statusCode);
    if (sealed.statusCode === 409) expect(sealed.json().error).toBe('unprintable_text');
    expect(elapsed).toBeLessThan(15_000);
  });

  it('refuses an uploaded document named with an emoji where it is uploaded, never 500: a completed document’s name could not be corrected', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [] });
    const body = buildMultipart([{ name: '🏠 deed.pdf', content: await makePdf(1) }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { ...(await kit.headersFor(agent)), ...body.headers },
      payload: body.payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(400);
    expect(uploaded.json()).toMatchObject({ error: 'unprintable_text', message: expect.stringContaining('U+1F3E0') });
    expect((await kit.getJob(agent, job.id)).documentCount).toBe(0);
  });
});

describe('originals the seal cannot write as they are', () => {
  it('seals an original that carries the text of a signature placeholder (a name of ten asterisks), and pdfsig verifies it, the original’s bytes kept as they were', async () => {
    const content = buildPdfWith({ 3: ['<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Note [0 /********** /********** /**********] >>'] });
    const { pdf } = await sealAndVerify(content);
    expect(pdf.subarray(0, content.length).equals(content)).toBe(true);
  });

  it('answers 422 naming the document when an original stored before uploads were checked cannot be sealed, writing nothing', async () => {
    const job = await sealableJob({ fileName: 'old-deed.pdf' });
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    // The same page and field, but its media box is a number, not a rectangle: stored as it was
    // before uploads were checked (decision 064). (Resources that name themselves as their fonts,
    // this test's file before decision 070, are now sealed: render.test.ts.)
    const looped = buildPdfWith({ 3: ['<< /Type /Page /Parent 2 0 R /MediaBox 5 >>'] });
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-looped-'));
    const file = path.join(directory, 'looped.pdf');
    fs.writeFileSync(file, looped);
    const key = await createLocalStorage(t.blobRoot).putFile(file, createHash('sha256').update(looped).digest('hex'), 'application/pdf');
    fs.rmSync(directory, { recursive: true, force: true });
    await t.db.update(documents).set({ storageKey: key }).where(eq(documents.id, job.document.id));
    const refused = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual({
      error: 'unsealable_pdf',
      message:
        '“old-deed.pdf” could not be sealed: its PDF is built in a way the seal cannot write, so nothing was sealed. Upload it again saved from a PDF viewer (for example with Print to PDF) on a new job, and sign it there.',
    });
    expect(await tracesOf(job.jobId, [job.signer, job.agent])).toEqual(nothingWritten);
  });
});

describe('originals that broke the seal after it had signed (found by attack)', () => {
  const page = (entries: string) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${entries} >>`;
  /** `base` with `count` empty cross-reference sections appended, each pointing at the one before. */
  const withSections = (base: Buffer, count: number) => {
    let out = base.toString('latin1');
    for (let index = 0; index < count; index += 1) {
      const previous = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(out)?.[1]);
      const at = out.length;
      out += `xref\n0 0\ntrailer\n<< /Size 4 /Root 1 0 R /Prev ${previous} >>\nstartxref\n${at}\n%%EOF\n`;
    }
    return Buffer.from(out, 'latin1');
  };

  it.each([
    ['a catalog whose /DSS is a number', () => buildPdfWith({ 1: ['<< /Type /Catalog /Pages 2 0 R /DSS 42 >>'] })],
    ['a page that is its own content stream', () => buildPdfWith({ 3: [page('/Contents 3 0 R')] })],
  ])('answers 422 naming the document for %s, never a 500 or a seal whose signature is broken, and writes nothing', async (_label, content) => {
    const job = await sealableJob({ content: content(), fileName: 'odd.pdf' });
    await job.fillAll();
    await recordMedia(t, job.recordingId, [job.participantId, 'notary']);
    await job.complete();
    const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.jobId}/complete-job`);
    expect(sealed.statusCode, sealed.body).toBe(422);
    expect(sealed.json()).toMatchObject({ error: 'unsealable_pdf', message: expect.stringMatching(/^“odd\.pdf” could not be sealed/) });
    expect(await tracesOf(job.jobId, [job.signer, job.agent])).toEqual(nothingWritten);
  });

  it('seals an original of 999 cross-reference sections by saving it again as a whole before signing, so its validation data can still be appended and pdfsig verifies it', async () => {
    const { job } = await sealAndVerify(withSections(buildPdfWith({}), 999));
    const [event] = await t.db
      .select({ data: auditEvents.data })
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, job.jobId), eq(auditEvents.action, 'document.notarized')));
    expect(JSON.stringify(event?.data)).toContain('more than 900 cross-reference sections');
  });
});
