import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import { AppError } from '#server/lib/errors.ts';
import { getOrCreatePlatformCa, getOrIssueNotaryCredentials, type SigningCredentials } from '#server/providers/signing/certificates.ts';
import { signPreparedPdf, type SignatureInfo } from '#server/providers/signing/pades.ts';
import { verifyWithPdfsig } from '#server/providers/signing/pdfsig.ts';
import { makeBrokenPdf, makePdf } from '#test/pdf-fixtures.ts';
import type { AuditFacts, CertificateFacts } from './render.ts';
import { maxWaiting, readySealingThreads, renderInPool, startSealing, stopSealing } from './seal-pool.ts';

const dump = () => new Blob([fs.readFileSync(inject('pgliteDumpPath'))]);
let database: Database;
let credentials: SigningCredentials;
let caPem: string;

const info: SignatureInfo = {
  reason: 'Acknowledgment (remote online notarization)',
  location: 'Travis, TX',
  name: 'Nora Notary',
  contactInfo: 'nora@example.test',
};
const certificate: CertificateFacts = {
  actKey: 'acknowledgment',
  actLabel: 'Acknowledgment',
  notaryName: 'Nora Notary',
  commissionNumber: '13245768-9',
  commissionState: 'TX',
  county: 'Travis',
  commissionExpiresOn: '2030-06-30',
  notarizedAt: new Date(Date.UTC(2026, 10, 29, 15, 0, 0)),
  signerNames: ['Sam Signer'],
  notarialFacts: { isNotarialAct: false, hasRecordedSession: false, hasProvenIdentity: false, reasons: ['No audio-video session was recorded.'] },
  verification: { id: '00000000-0000-4000-8000-0000000000aa', url: 'http://localhost:3000/verify?id=00000000-0000-4000-8000-0000000000aa' },
};
const audit: AuditFacts = {
  jobId: '00000000-0000-4000-8000-000000000001',
  jobTitle: 'Refinance closing',
  documentName: 'deed.pdf',
  originalSha256: '0'.repeat(64),
  signers: [{ name: 'Sam Signer', role: 'signer', signedAt: new Date(Date.UTC(2026, 10, 29, 14, 59, 0)), identityMethod: 'Not proven' }],
  recordingReference: null,
  events: [{ at: new Date(Date.UTC(2026, 10, 29, 14, 58, 0)), action: 'job.created', actorName: 'Nora Notary', data: {} }],
};
const job = (original: Buffer) => ({
  original,
  fields: [],
  certificate,
  audit,
  placeholder: { certificates: { certificatePem: credentials.certificatePem, chainPems: credentials.chainPems }, info },
});

beforeAll(async () => {
  database = await createDatabase({ databaseUrl: null, dataDir: null, loadDataDir: dump() });
  const secretsKey = randomBytes(32);
  const [user] = await database.db
    .insert(users)
    .values({ email: 'seal-pool@example.test', name: 'Nora Notary', roles: ['notary'] })
    .returning();
  if (!user) throw new Error('no user');
  credentials = await getOrIssueNotaryCredentials(database.db, secretsKey, {
    userId: user.id,
    name: user.name,
    email: user.email,
    commissionState: 'TX',
    commissionNumber: '13245768-9',
    commissionExpiresOn: '2030-06-30',
  });
  caPem = (await getOrCreatePlatformCa(database.db, secretsKey)).certificatePem;
});

afterAll(async () => {
  await stopSealing();
  await database?.close();
});

describe('the seal pool (decision 070)', () => {
  it('renders in a thread and leaves the signing to the caller: the signed output verifies and begins with the original', async () => {
    const original = await makePdf(3);
    const rendered = await renderInPool(job(original));
    // The caller's original is left as it was (the thread got a copy).
    expect(original.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(rendered.pageCount).toBeGreaterThan(3);
    expect(rendered.pdf.subarray(0, original.length).equals(original)).toBe(true);
    const signed = await signPreparedPdf(rendered.pdf, credentials, info, rendered.mark);
    const report = await verifyWithPdfsig(signed, caPem);
    expect(report.isValid && report.isTrusted && report.isTotal, report.output).toBe(true);
  });

  it('keeps the event loop free while a large document is rendered', async () => {
    const original = await makePdf(1500);
    await renderInPool(job(await makePdf(1)));
    let ticks = 0;
    const interval = setInterval(() => {
      ticks += 1;
    }, 5);
    try {
      await renderInPool(job(original));
    } finally {
      clearInterval(interval);
    }
    // Rendered on this thread, the awaits inside the renderer resolve as microtasks: no timer could run until it ended.
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('rejects a document it cannot render with a plain error (the caller names the document), and keeps working', async () => {
    const failure = await renderInPool(job(makeBrokenPdf())).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(AppError);
    const rendered = await renderInPool(job(await makePdf(1)));
    expect(rendered.pdf.length).toBeGreaterThan(0);
  });

  it('refuses with a sentence and a 503 once more documents wait than the queue holds', async () => {
    const original = await makePdf(200);
    const runs = Array.from({ length: maxWaiting + 8 }, () =>
      renderInPool(job(original)).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    const outcomes = await Promise.all(runs);
    const refused = outcomes.filter((outcome): outcome is AppError => outcome instanceof AppError);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error.statusCode).toBe(503);
      expect(error.code).toBe('sealing_busy');
      expect(error.message).toMatch(/Try again in a minute/);
    }
    expect(outcomes.filter((outcome) => outcome === null).length).toBeGreaterThanOrEqual(maxWaiting);
  });

  it('starts a thread before the first document when the server starts (the first seal does not wait for one), and no second one', async () => {
    await stopSealing();
    expect(readySealingThreads()).toBe(0);
    await startSealing();
    expect(readySealingThreads()).toBe(1);
    await startSealing();
    expect(readySealingThreads()).toBe(1);
    const rendered = await renderInPool(job(await makePdf(1)));
    expect(rendered.pdf.length).toBeGreaterThan(0);
    expect(readySealingThreads()).toBe(1);
  });
});
