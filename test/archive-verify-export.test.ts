import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '#shared/journal.ts';
import type { NotaryArchive } from '#shared/journal-archives.ts';
import { createMemorySource, formatReportText, verifyArchive } from '#shared/archive-verify/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { recordMedia } from '#test/live-session.ts';
import { startTsaStandIn, type TsaStandIn } from '#test/tsa-stand-in.ts';

/**
 * The verifier over an archive made by the real exporter: a recorded, sealed (long-term, with a
 * timestamp authority) and journaled job, exported through the API and downloaded.
 */

const run = promisify(execFile);
const bin = path.resolve('bin/open-ron-verify.mjs');

let tsa: TsaStandIn;
let t: TestApp;
let kit: JobKit;
let notary: TestUser;
let dataDir: string;
let workDir: string;
let zip: Buffer;

async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function sealedAndJournaledJob(): Promise<string> {
  const signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  await kit.saveSignature(signer);
  const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(notary, job.id);
  await kit.moveJob(notary, job.id, ['ready']);
  const participantId = job.participants[0]?.id ?? '';
  const recording = await kit.startRecordedSession(notary, job.id, [signer]);
  const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
  const placed = await kit.call(notary, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
  expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
  await recordMedia(t, recording.recordingId, [participantId, 'notary']);
  expect((await kit.sealJob(notary, job.id)).status).toBe('completed');
  const drafts = (await kit.call(notary, 'GET', `/api/notary-log/drafts/${job.id}`)).json().items as JournalEntry[];
  const finalized = await kit.call(notary, 'POST', `/api/notary-log/finalize/${job.id}`, {
    entries: drafts.map((draft) => ({ id: draft.id, signerAddress: '1208 Maple Avenue, Richmond, VA 23220', feeCents: 2500 })),
  });
  expect(finalized.statusCode, finalized.body).toBe(200);
  return job.id;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-verify-export-data-'));
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-verify-export-'));
  tsa = await startTsaStandIn();
  const port = await findFreePort();
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', DATA_DIR: dataDir, TSA_URL: tsa.url, PUBLIC_URL: `http://127.0.0.1:${port}` });
  await t.app.listen({ host: '127.0.0.1', port });
  kit = createJobKit(t);
  notary = await kit.createNotary({ name: 'Nora Notary' });
  await sealedAndJournaledJob();
  const requested = await kit.call(notary, 'POST', '/api/notary-log/archives', {});
  expect(requested.statusCode, requested.body).toBe(201);
  await t.app.archiveBuilder.runOnce();
  const archive = (await kit.call(notary, 'GET', `/api/notary-log/archives/${(requested.json() as NotaryArchive).id}`)).json() as NotaryArchive;
  expect(archive.status).toBe('ready');
  const download = await kit.call(notary, 'GET', archive.downloadUrl ?? '');
  expect(download.statusCode).toBe(200);
  zip = download.rawPayload;
}, 240_000);

afterAll(async () => {
  await t?.close();
  await tsa?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(workDir, { recursive: true, force: true });
});

/** An entry's name, read from the manifest. */
const entryNamed = (pattern: RegExp) => {
  const manifestAt = zip.lastIndexOf(Buffer.from('{\n  "format"'));
  const manifestText = zip.subarray(manifestAt, zip.indexOf(Buffer.from('PK'), manifestAt)).toString('utf8');
  const names = [...manifestText.matchAll(/"path": "([^"]+)"/g)].map((match) => match[1] as string);
  const name = names.find((candidate) => pattern.test(candidate));
  if (!name) throw new Error(`no entry matches ${pattern}`);
  return name;
};

describe('an archive made by the exporter', () => {
  it('passes, its sealed PDF at PAdES B-LTA with the platform CA’s OCSP answer', async () => {
    const report = await verifyArchive(createMemorySource(new Uint8Array(zip)), 'archive.zip');
    const text = formatReportText(report);
    expect(
      report.findings.filter((finding) => !finding.ok),
      text,
    ).toEqual([]);
    expect(report.isValid).toBe(true);
    const pdf = entryNamed(/\/documents\/[^/]+\.pdf$/);
    const sentences = report.findings.filter((finding) => finding.file === pdf).map((finding) => finding.sentence);
    expect(sentences).toContainEqual(
      expect.stringMatching(
        /^The signature on .* was made by Nora Notary's certificate under Open RON Platform CA \(a certificate in this archive\) on .* UTC \(timestamp of .*\); the certificate was not revoked then \(OCSP answer of Open RON Platform CA/,
      ),
    );
    expect(sentences).toContainEqual(
      `${pdf} reaches PAdES B-LTA (signed, timestamped, with long-term validation data, itself protected by a document timestamp).`,
    );
    expect(text).toMatch(/manifest\.json\.p7s is a valid signature over manifest\.json/);
  });

  it('one changed byte in the sealed PDF is found and the PDF named', async () => {
    const pdfName = entryNamed(/\/documents\/[^/]+\.pdf$/);
    const nameAt = zip.indexOf(Buffer.from(pdfName));
    const dataAt = zip.indexOf(Buffer.from('%PDF-'), nameAt);
    const copy = Buffer.from(zip);
    copy[dataAt + 300] = (copy[dataAt + 300] as number) ^ 0x01;
    const report = await verifyArchive(createMemorySource(new Uint8Array(copy)), 'archive.zip');
    expect(report.isValid).toBe(false);
    expect(new Set(report.findings.filter((finding) => !finding.ok).map((finding) => finding.file))).toEqual(new Set([pdfName]));
  });
});

describe('npx open-ron-verify', () => {
  const runBin = async (args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd: path.resolve('.') });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  };

  it('prints the report and exits 0 for a good archive, 1 for a changed one', async () => {
    const good = path.join(workDir, 'good.zip');
    fs.writeFileSync(good, zip);
    const passed = await runBin([good]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(/^PASSED\nEvery check passed for the archive of Nora Notary/);
    expect(passed.stdout).toContain('Platform CA SHA-256 fingerprint: ');

    const pdfName = entryNamed(/\/documents\/[^/]+\.pdf$/);
    const copy = Buffer.from(zip);
    const at = zip.indexOf(Buffer.from('%PDF-'), zip.indexOf(Buffer.from(pdfName))) + 300;
    copy[at] = (copy[at] as number) ^ 0x01;
    const bad = path.join(workDir, 'bad.zip');
    fs.writeFileSync(bad, copy);
    const failed = await runBin([bad]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^FAILED\n\d+ problems? found/);
    expect(failed.stdout).toContain(`PROBLEM  ${pdfName} was changed: its SHA-256 is`);
  });

  it('exits 2 with a sentence when given no file or not a ZIP', async () => {
    const none = await runBin([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No archive was given.');
    const text = path.join(workDir, 'notes.txt');
    fs.writeFileSync(text, 'not an archive');
    const notZip = await runBin([text]);
    expect(notZip.code).toBe(2);
    expect(notZip.stderr).toContain('is not a ZIP archive');
    const missing = await runBin([path.join(workDir, 'missing.zip')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot be opened');
  });
});
