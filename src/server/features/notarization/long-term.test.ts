import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { auditEvents, notarizedDocumentRevisions, notarizedDocuments } from '#server/db/schema/index.ts';
import { readTimestampToken } from '#server/providers/signing/cms.ts';
import { collectValidationData } from '#server/providers/signing/revocation.ts';
import { verifyWithPdfsig } from '#server/providers/signing/pdfsig.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { findEmbeddedSignatures, readSignatureTimestampToken, readSignerChain } from '#server/providers/signing/signed-pdf.ts';
import { renewDueArchiveTimestamps, startArchiveTimestampRenewal } from '#server/tasks/archive-timestamp-renewal.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { checkOcspResponse, readDss, verifyCmsAt, verifyTimestampToken } from '#test/long-term-pdf.ts';
import { buildMultipart } from '#test/pdf-fixtures.ts';
import { startTsaStandIn, type TsaStandIn } from '#test/tsa-stand-in.ts';

let tsa: TsaStandIn;
let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let signer: TestUser;
let caPem: string;

const hourMs = 3_600_000;
const silentLog = { info: () => {}, error: () => {} };

beforeAll(async () => {
  tsa = await startTsaStandIn();
  // The app listens at its PUBLIC_URL: certificates name its OCSP responder there, and pdfsig asks it online.
  const port = await findFreePort();
  t = await createTestApp({ TSA_URL: tsa.url, PUBLIC_URL: `http://127.0.0.1:${port}` });
  await t.app.listen({ host: '127.0.0.1', port });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  caPem = (await t.app.inject({ method: 'GET', url: '/api/verify/platform-ca.pem' })).body;
});
afterAll(async () => {
  await t?.close();
  await tsa?.close();
});

async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Seals a one-document job (in session, signer known personally to the notary) and downloads the output. */
async function sealDocument(sealingNotary = notary) {
  const job = await kit.createJob(sealingNotary, { notaryId: sealingNotary.id, signers: [{ name: signer.name, email: signer.email }] });
  await kit.uploadPdf(sealingNotary, job.id);
  await kit.moveJob(sealingNotary, job.id, ['ready', 'in_session']);
  await kit.sealJob(sealingNotary, job.id);
  const [row] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, job.id));
  if (!row) throw new Error('nothing was sealed');
  const download = await kit.call(sealingNotary, 'GET', `/api/jobs/${job.id}/notarized/${row.id}/file`);
  expect(download.statusCode).toBe(200);
  return { jobId: job.id, row, pdf: download.rawPayload };
}

/** Seals with TSA_URL unset, as an instance configured without a time-stamping authority. */
async function sealWithoutTsa() {
  const tsaUrl = t.config.tsaUrl;
  t.config.tsaUrl = null;
  try {
    return await sealDocument();
  } finally {
    t.config.tsaUrl = tsaUrl;
  }
}

/** The notary's signature: its CMS, the bytes it covers and its signing time (the signature timestamp's, else the /M). */
function readNotarySignature(pdf: Buffer) {
  const signature = findEmbeddedSignatures(pdf).find((item) => item.kind === 'signature');
  if (!signature) throw new Error('no signature');
  const token = readSignatureTimestampToken(signature.cms);
  const signedAt = token ? readTimestampToken(token).genTime : new Date(Date.now() - 60_000);
  return { ...signature, signedAt };
}

async function findAuditEvents(jobId: string, action: string) {
  return t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.jobId, jobId), eq(auditEvents.action, action)));
}

async function verifyUpload(pdf: Buffer) {
  const body = buildMultipart([{ name: 'copy.pdf', content: pdf }]);
  const response = await t.app.inject({ method: 'POST', url: '/api/verify', headers: body.headers, payload: body.payload });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Every OCSP response of the DSS checks out with OpenSSL against the platform CA or the TSA's root. */
async function checkEveryOcspResponse(responses: Buffer[]) {
  const checks = [];
  for (const response of responses) {
    const byPlatform = await checkOcspResponse(response, caPem);
    checks.push(byPlatform.isVerified ? byPlatform : await checkOcspResponse(response, tsa.caPem));
  }
  return checks;
}

describe('a seal is long-term (PAdES B-LT, B-LTA with a TSA)', () => {
  it('with a TSA: the DSS carries the chain and a good OCSP response per certificate, and a document timestamp covers it (B-LTA)', async () => {
    const { jobId, row, pdf } = await sealDocument();
    expect(row.padesLevel).toBe('B-LTA');
    expect(row.archiveTimestampExpiresAt?.getTime()).toBe(new Date(new X509Certificate(tsa.tsaCertPem).validTo).getTime());

    // The notary's signature is intact and trusted; the document timestamp follows it.
    const signatures = findEmbeddedSignatures(pdf);
    expect(signatures.map((item) => item.kind)).toEqual(['signature', 'document_timestamp']);
    const report = await verifyWithPdfsig(pdf, caPem, { isRevocationCheckedOnline: true });
    const notaryBlock = report.output.split(/^Signature #\d+:$/m)[1] ?? '';
    expect(notaryBlock, report.output).toMatch(/Signature Validation: Signature is Valid\./);
    expect(notaryBlock, report.output).toMatch(/Certificate Validation: Certificate is Trusted\./);
    expect(report.hasDigestMismatch).toBe(false);

    const notarySignature = readNotarySignature(pdf);
    // The signature covers its whole revision; only the long-term revisions (DSS, then the timestamp) follow it.
    const signedEnd = notarySignature.byteRange[2] + notarySignature.byteRange[3];
    expect(pdf.subarray(0, signedEnd).toString('latin1')).toMatch(/%%EOF\s*$/);
    const appended = pdf.subarray(signedEnd).toString('latin1');
    expect(appended).toMatch(/\/DSS/);
    expect(appended.indexOf('/DSS')).toBeLessThan(appended.indexOf('/ETSI.RFC3161'));
    const chain = readSignerChain(notarySignature.cms);
    const dss = await readDss(pdf);
    if (!dss) throw new Error('no DSS');
    const certificates = dss.certificates.map((der) => der.toString('base64'));
    for (const certificate of [...chain, new X509Certificate(tsa.tsaCertPem)]) expect(certificates).toContain(certificate.raw.toString('base64'));
    expect(dss.ocspResponses.length + dss.crls.length).toBeGreaterThan(0);
    const checks = await checkEveryOcspResponse(dss.ocspResponses);
    for (const check of checks) {
      expect(check.isVerified, check.output).toBe(true);
      expect(check.status, check.output).toBe('good');
      // OCSP times have whole seconds.
      expect(check.producedAt?.getTime() ?? 0).toBeGreaterThanOrEqual(Math.floor(notarySignature.signedAt.getTime() / 1000) * 1000);
    }
    // The notary's own certificate has its response.
    expect(checks.some((check) => check.output.includes(chain[0]?.serialNumber.toUpperCase() ?? 'none'))).toBe(true);

    // Every document timestamp is a valid RFC 3161 token over the bytes its /ByteRange covers.
    for (const timestamp of signatures.filter((item) => item.kind === 'document_timestamp')) {
      const verified = await verifyTimestampToken(timestamp.cms, timestamp.signedBytes, tsa.caPem);
      expect(verified.isVerified, verified.output).toBe(true);
    }

    const [event] = await findAuditEvents(jobId, 'document.notarized');
    expect(event?.data).toMatchObject({ padesLevel: 'B-LTA', sha256: row.sha256 });
    // The tests' authority publishes no revocation status for its certificate: said, not hidden.
    expect((event?.data as { validationDataMissing?: string[] }).validationDataMissing).toBeUndefined();
    expect((event?.data as { revocationNotPublished?: string[] }).revocationNotPublished).toEqual([
      expect.stringMatching(/^The issuer of the certificate of Test Timestamp Authority .*publishes no OCSP responder or CRL/),
    ]);
    expect(describeAuditEvent({ action: 'document.notarized', actorName: 'Nora Notary', data: event?.data as Record<string, unknown> })).toContain(
      'It carries long-term validation data and an archive timestamp (PAdES B-LTA).',
    );
  });

  it('without a TSA: the DSS alone (B-LT), no document timestamp and nothing to renew', async () => {
    const { jobId, row, pdf } = await sealWithoutTsa();
    expect(row).toMatchObject({ padesLevel: 'B-LT', archiveTimestampExpiresAt: null });
    expect(findEmbeddedSignatures(pdf).map((item) => item.kind)).toEqual(['signature']);
    const report = await verifyWithPdfsig(pdf, caPem, { isRevocationCheckedOnline: true });
    expect(report.isValid, report.output).toBe(true);
    expect(report.isTrusted, report.output).toBe(true);
    const dss = await readDss(pdf);
    expect(dss?.ocspResponses.length).toBeGreaterThan(0);
    for (const check of await checkEveryOcspResponse(dss?.ocspResponses ?? [])) {
      expect(check.isVerified, check.output).toBe(true);
      expect(check.status).toBe('good');
    }
    const [event] = await findAuditEvents(jobId, 'document.notarized');
    expect(event?.data).toMatchObject({ padesLevel: 'B-LT' });
    expect(describeAuditEvent({ action: 'document.notarized', actorName: 'Nora Notary', data: event?.data as Record<string, unknown> })).toContain(
      'It carries long-term validation data (PAdES B-LT).',
    );
  });

  it('answers 502 with a sentence and seals nothing when the TSA stops answering before the archive timestamp', async () => {
    // In front of the authority: the signature's timestamp goes through, then it answers 503.
    let requests = 0;
    const flaky = http.createServer((request, response) => {
      requests += 1;
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (requests > 1) return void response.writeHead(503).end();
        void fetch(tsa.url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: Buffer.concat(chunks) }).then(async (answer) =>
          response.writeHead(answer.status, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from(await answer.arrayBuffer())),
        );
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const tsaUrl = t.config.tsaUrl;
    t.config.tsaUrl = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    try {
      const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
      const documentId = await kit.uploadPdf(notary, job.id);
      await kit.moveJob(notary, job.id, ['ready', 'in_session']);
      const participantId = job.participants[0]?.id ?? '';
      const bypass = { enabled: true, reason: 'Identity step not under test here', method: 'personal_knowledge' };
      expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/signers/${participantId}/id-bypass`, bypass)).statusCode).toBe(200);
      expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`)).statusCode).toBe(200);
      const refused = await kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
      expect(refused.statusCode).toBe(502);
      expect(refused.json()).toEqual({
        error: 'timestamp_unavailable',
        message: 'The time-stamping authority did not answer, so the seal could not be completed and nothing was sealed. Try again in a few minutes.',
      });
      expect(requests).toBe(2);
      expect((await kit.getJob(notary, job.id)).status).toBe('in_session');
      expect(await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, job.id))).toEqual([]);
    } finally {
      t.config.tsaUrl = tsaUrl;
      await new Promise((resolve) => flaky.close(resolve));
    }
  });

  it('still validates as of its signing time once the notary’s certificate has been revoked', async () => {
    const revokedNotary = await kit.createNotary({ name: 'Rita Revoked' });
    const { pdf } = await sealDocument(revokedNotary);
    const signature = readNotarySignature(pdf);
    const [leaf, ca] = readSignerChain(signature.cms);
    if (!leaf || !ca) throw new Error('no chain');
    const admin = await t.createUser({ roles: ['admin'] });
    const revoked = await kit.call(admin, 'POST', `/api/admin/users/${revokedNotary.id}/certificates/${leaf.serialNumber}/revoke`, { reason: 'keyCompromise' });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const revokedAt = new Date(revoked.json().certificate.revokedAt as string);

    // The platform's responder says revoked from now on…
    const now = await collectValidationData(t.db, t.secretsKey, [leaf.toString(), ca.toString()]);
    const fresh = await checkOcspResponse(now.ocspResponses[0] ?? Buffer.alloc(0), caPem);
    expect(fresh.status, fresh.output).toBe('revoked');
    // …and the document still proves the certificate was good when it signed.
    const atSigning = await verifyCmsAt(signature.cms, signature.signedBytes, caPem, signature.signedAt);
    expect(atSigning.isVerified, atSigning.output).toBe(true);
    const dss = await readDss(pdf);
    const embedded = (await checkEveryOcspResponse(dss?.ocspResponses ?? [])).find((check) => check.output.includes(leaf.serialNumber.toUpperCase()));
    expect(embedded?.isVerified, embedded?.output).toBe(true);
    expect(embedded?.status, embedded?.output).toBe('good');
    expect(embedded?.producedAt?.getTime() ?? Infinity).toBeLessThanOrEqual(revokedAt.getTime());
    const report = await verifyWithPdfsig(pdf, caPem, { isRevocationCheckedOnline: true });
    expect(report.hasDigestMismatch).toBe(false);
  });

  it('still validates as of its signing time once the notary’s certificate has expired', async () => {
    const { pdf } = await sealDocument();
    const signature = readNotarySignature(pdf);
    const [leaf] = readSignerChain(signature.cms);
    if (!leaf) throw new Error('no signer certificate');
    const expiredAt = new Date(new Date(leaf.validTo).getTime() + 24 * hourMs);
    const late = await verifyCmsAt(signature.cms, signature.signedBytes, caPem, expiredAt);
    expect(late.isVerified).toBe(false);
    expect(late.output).toMatch(/certificate has expired/);
    const atSigning = await verifyCmsAt(signature.cms, signature.signedBytes, caPem, signature.signedAt);
    expect(atSigning.isVerified, atSigning.output).toBe(true);
    // The DSS kept the proof that the certificate was good when it signed.
    const dss = await readDss(pdf);
    const ownResponse = (await checkEveryOcspResponse(dss?.ocspResponses ?? [])).find((check) => check.output.includes(leaf.serialNumber.toUpperCase()));
    expect(ownResponse?.status).toBe('good');
  });
});

describe('the archive-timestamp renewal task', () => {
  const deps = () => ({ db: t.db, storage: createLocalStorage(t.blobRoot), secretsKey: t.secretsKey, tsaUrl: tsa.url, log: silentLog });
  const windowMs = 24 * hourMs;

  it('renews a document whose archive timestamp expires soon: a second document timestamp, the earlier copy kept and still verified, audited; a second run does nothing', async () => {
    const { jobId, row, pdf } = await sealDocument();
    // Its TSA certificate would expire within the window.
    await t.db
      .update(notarizedDocuments)
      .set({ archiveTimestampExpiresAt: new Date(Date.now() + 10 * hourMs) })
      .where(eq(notarizedDocuments.id, row.id));
    const pass = await renewDueArchiveTimestamps(deps(), windowMs);
    expect(pass).toMatchObject({ renewed: 1, failed: 0 });

    const [renewed] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.id, row.id));
    if (!renewed) throw new Error('the row is gone');
    expect(renewed.sha256).not.toBe(row.sha256);
    expect(renewed.padesLevel).toBe('B-LTA');
    expect(renewed.archiveTimestampExpiresAt?.getTime()).toBe(new Date(new X509Certificate(tsa.tsaCertPem).validTo).getTime());
    const download = await kit.call(notary, 'GET', `/api/jobs/${jobId}/notarized/${row.id}/file`);
    const newPdf = download.rawPayload;
    // The earlier file is a prefix of the new one: only revisions were appended.
    expect(newPdf.subarray(0, pdf.length).equals(pdf)).toBe(true);
    const signatures = findEmbeddedSignatures(newPdf);
    expect(signatures.map((item) => item.kind)).toEqual(['signature', 'document_timestamp', 'document_timestamp']);
    for (const timestamp of signatures.filter((item) => item.kind === 'document_timestamp')) {
      const verified = await verifyTimestampToken(timestamp.cms, timestamp.signedBytes, tsa.caPem);
      expect(verified.isVerified, verified.output).toBe(true);
    }
    const report = await verifyWithPdfsig(newPdf, caPem, { isRevocationCheckedOnline: true });
    expect(report.hasDigestMismatch, report.output).toBe(false);
    expect(report.output.split(/^Signature #\d+:$/m)[1]).toMatch(/Signature Validation: Signature is Valid\./);

    const revisions = await t.db.select().from(notarizedDocumentRevisions).where(eq(notarizedDocumentRevisions.notarizedDocumentId, row.id));
    expect(revisions).toEqual([
      expect.objectContaining({
        sha256: row.sha256,
        storageKey: row.storageKey,
        sizeBytes: row.sizeBytes,
        padesLevel: 'B-LTA',
        replacedBecause: 'archive_timestamp_renewed',
      }),
    ]);
    // The earlier copy is still recognised, and /verify points to the newer one.
    expect(await verifyUpload(pdf)).toMatchObject({
      isKnown: true,
      sha256: row.sha256,
      notarizedDocumentId: row.id,
      newerCopy: { sha256: renewed.sha256, replacedAt: expect.any(String) },
    });
    expect(await verifyUpload(newPdf)).toMatchObject({ isKnown: true, sha256: renewed.sha256, newerCopy: null });

    const events = await findAuditEvents(jobId, 'document.archive_timestamp_renewed');
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ notarizedDocumentId: row.id, previousSha256: row.sha256, sha256: renewed.sha256 });
    expect(describeAuditEvent({ action: events[0]?.action ?? '', actorName: null, data: events[0]?.data as Record<string, unknown> })).toMatch(
      /^The archive timestamp of deed\.pdf was renewed: a new copy carries a fresh document timestamp, good until .+; the earlier copy still verifies\.$/,
    );

    expect(await renewDueArchiveTimestamps(deps(), windowMs)).toEqual({ renewed: 0, skipped: 0, failed: 0 });
    expect(await findAuditEvents(jobId, 'document.archive_timestamp_renewed')).toHaveLength(1);
  });

  it('renews a document once when two passes race for it', async () => {
    const { jobId, row } = await sealDocument();
    await t.db
      .update(notarizedDocuments)
      .set({ archiveTimestampExpiresAt: new Date(Date.now() + hourMs) })
      .where(eq(notarizedDocuments.id, row.id));
    const passes = await Promise.all([renewDueArchiveTimestamps(deps(), windowMs), renewDueArchiveTimestamps(deps(), windowMs)]);
    expect(passes.reduce((total, pass) => total + pass.renewed, 0)).toBe(1);
    expect(passes.reduce((total, pass) => total + pass.failed, 0)).toBe(0);
    expect(await t.db.select().from(notarizedDocumentRevisions).where(eq(notarizedDocumentRevisions.notarizedDocumentId, row.id))).toHaveLength(1);
    expect(await findAuditEvents(jobId, 'document.archive_timestamp_renewed')).toHaveLength(1);
    const [renewed] = await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.id, row.id));
    // The copy the row names is the one stored.
    expect(await createLocalStorage(t.blobRoot).has(renewed?.storageKey ?? '')).toBe(true);
  });

  it('does nothing without a TSA, and says so once', async () => {
    const lines: unknown[] = [];
    const log = { info: (message: unknown) => lines.push(message), error: () => {} };
    const stop = startArchiveTimestampRenewal({ ...deps(), tsaUrl: null, log }, { everyMs: 10, windowMs });
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    expect(lines).toEqual(['No TSA_URL: notarized documents get no archive timestamp, and none is renewed.']);
    expect(await renewDueArchiveTimestamps({ ...deps(), tsaUrl: null }, windowMs)).toEqual({ renewed: 0, skipped: 0, failed: 0 });
  });
});
