import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMemorySource, formatReportText, verifyArchive, type ArchiveReport } from '#shared/archive-verify/index.ts';
import { createDatabase, type Database } from '#server/db/client.ts';
import { users } from '#server/db/schema/index.ts';
import type { NotaryIdentity } from '#server/providers/signing/certificates.ts';
import {
  appendDocumentSecurityStore,
  createArchiveScenario,
  createOcspResponse,
  packArchive,
  startTestTsa,
  writeStoredZip,
  type ArchiveFile,
  type ArchiveScenario,
} from './archive-fixtures.ts';

let database: Database;
let workDirectory: string;
let tsa: Awaited<ReturnType<typeof startTestTsa>>;
let scenario: ArchiveScenario;
let goodZip: Buffer;
const secretsKey = randomBytes(32);

async function createNotary(name: string): Promise<NotaryIdentity> {
  const email = `nora.${randomBytes(3).toString('hex')}@example.test`;
  const [row] = await database.db
    .insert(users)
    .values({ email, name, roles: ['notary'] })
    .returning({ id: users.id });
  if (!row) throw new Error('user insert failed');
  return { userId: row.id, name, email, commissionState: 'TX', commissionNumber: '13245768-9', commissionExpiresOn: '2030-06-30' };
}

const verify = (zip: Buffer, name = 'archive.zip') => verifyArchive(createMemorySource(new Uint8Array(zip)), name);
const problems = (report: ArchiveReport) => report.findings.filter((finding) => !finding.ok);
const fileOf = (path_: string) => scenario.files.find((file) => file.path === path_) as ArchiveFile;

/** The archive with one byte of one file's data changed (entries are stored, so the file's bytes sit in the ZIP as they are). */
function flipByte(zip: Buffer, file: Buffer, offsetInFile: number): Buffer {
  const at = zip.indexOf(file);
  expect(at).toBeGreaterThan(0);
  const copy = Buffer.from(zip);
  copy[at + offsetInFile] = (copy[at + offsetInFile] as number) ^ 0x01;
  return copy;
}

beforeAll(async () => {
  database = await createDatabase({ databaseUrl: null, dataDir: null, loadDataDir: new Blob([fs.readFileSync(inject('pgliteDumpPath'))]) });
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-archive-verify-'));
  tsa = await startTestTsa(workDirectory);
  scenario = await createArchiveScenario(database.db, secretsKey, await createNotary('Nora Notary'), workDirectory, tsa.url);
  goodZip = (await packArchive(scenario.files, scenario.notary, scenario.signer)).zip;
});

afterAll(async () => {
  await tsa?.close();
  await database?.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

describe('a good archive', () => {
  it('passes every check, says what each file proved and prints the platform CA fingerprint', async () => {
    const report = await verify(goodZip);
    expect(problems(report)).toEqual([]);
    expect(report.isValid).toBe(true);
    expect(report.summary).toMatch(
      /^Every check passed for the archive of Nora Notary, made on \d+ \w+ \d{4} at \d\d:\d\d UTC: the 13 files its signed manifest lists \([\d.]+ KB in all\) are there unchanged \(3 signed PDFs, 2 audit trails, 2 recording segments/,
    );
    const sentences = report.findings.map((finding) => finding.sentence).join('\n');
    expect(sentences).toContain(
      `The signature on ${scenario.paths.plainPdf} was made by Nora Notary's certificate under Open RON Platform CA (a certificate in this archive)`,
    );
    expect(sentences).toContain(`${scenario.paths.plainPdf} reaches PAdES B-B`);
    expect(sentences).toContain(`${scenario.paths.timestampedPdf} reaches PAdES B-T`);
    expect(sentences).toContain('(timestamp of Test TSA)');
    expect(sentences).toContain(`${scenario.paths.longTermPdf} reaches PAdES B-LT`);
    expect(sentences).toMatch(/the certificate was not revoked then \(OCSP answer of Open RON Platform CA, \d+ \w+ \d{4} at \d\d:\d\d UTC\)/);
    expect(sentences).toContain(`${scenario.paths.longTermPdf} ends with a revision of`);
    expect(sentences).toContain(`The last signed revision of ${scenario.paths.plainPdf} covers the whole file.`);
    expect(sentences).toContain(`The audit trail in ${scenario.paths.jobAudit} holds: 3 events`);
    expect(sentences).toContain(`The recording segment ${scenario.paths.segment} matches the hash the platform recorded when it was made.`);
    expect(sentences).toContain('manifest.json.p7s is a valid signature over manifest.json by Open RON platform (records custodian)');
    expect(sentences).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    const fingerprint = Buffer.from(scenario.ca.certificatePem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const { createHash } = await import('node:crypto');
    const expected = (createHash('sha256').update(fingerprint).digest('hex').toUpperCase().match(/../g) ?? []).join(':');
    expect(report.platformCaFingerprint).toBe(expected);
    expect(formatReportText(report)).toContain(`Platform CA SHA-256 fingerprint: ${expected}`);
  });

  it('reads an archive written with ZIP64 records', async () => {
    const { zip } = await packArchive(scenario.files, scenario.notary, scenario.signer, { zip64: true });
    const report = await verify(zip);
    expect(problems(report)).toEqual([]);
  });

  it('reports progress up to every byte of the files', async () => {
    const seen: number[] = [];
    let total = 0;
    await verifyArchive(createMemorySource(new Uint8Array(goodZip)), 'archive.zip', {
      onProgress: ({ bytesRead, totalBytes }) => {
        seen.push(bytesRead);
        total = totalBytes;
      },
    });
    expect(total).toBeGreaterThan(30_000);
    expect(seen.at(-1)).toBe(total);
    expect(seen).toEqual([...seen].sort((left, right) => left - right));
  });
});

describe('one changed byte is found and the file named', () => {
  const expectNamed = (report: ArchiveReport, file: string) => {
    expect(report.isValid).toBe(false);
    expect(problems(report).map((finding) => finding.file)).toContain(file);
    expect(report.summary).toMatch(/^\d+ problems? found in (the archive of Nora Notary|archive\.zip)/);
  };

  it('in a PDF inside its signed range: the hash and the signature both fail', async () => {
    const pdf = fileOf(scenario.paths.plainPdf).bytes;
    const report = await verify(flipByte(goodZip, pdf, 200));
    expectNamed(report, scenario.paths.plainPdf);
    const sentences = problems(report).map((finding) => finding.sentence);
    expect(sentences).toContainEqual(expect.stringMatching(new RegExp(`^${scenario.paths.plainPdf} was changed: its SHA-256 is`)));
    expect(sentences).toContainEqual(
      `The signature on ${scenario.paths.plainPdf} does not hold: the signed bytes were changed after signing (their digest differs from the signed one).`,
    );
  });

  it("in a PDF's DSS (its OCSP answer)", async () => {
    const pdf = fileOf(scenario.paths.longTermPdf).bytes;
    // An OCSPResponse: SEQUENCE { responseStatus ENUMERATED 0, [0] { ... } }.
    const ocspAt = pdf.indexOf(Buffer.from([0x0a, 0x01, 0x00, 0xa0, 0x82])) + 60;
    expect(ocspAt).toBeGreaterThan(pdf.length / 2);
    const report = await verify(flipByte(goodZip, pdf, ocspAt));
    expectNamed(report, scenario.paths.longTermPdf);
    expect(problems(report).map((finding) => finding.sentence)).toContainEqual(
      expect.stringContaining(`In the validation data of ${scenario.paths.longTermPdf}, OCSP response 1`),
    );
  });

  for (const [label, key] of [
    ['in a recording segment', 'segment'],
    ["in a job's audit.json", 'jobAudit'],
    ["in the account's audit.json", 'accountAudit'],
    ['in segments.json', 'segmentIndex'],
    ["in the notary's certificate file", 'notaryCertificate'],
  ] as const) {
    it(label, async () => {
      const file = fileOf(scenario.paths[key]).bytes;
      const report = await verify(flipByte(goodZip, file, Math.floor(file.length / 2)));
      expectNamed(report, scenario.paths[key]);
    });
  }

  it('in certificates/platform-ca.pem', async () => {
    const file = fileOf('certificates/platform-ca.pem').bytes;
    const report = await verify(flipByte(goodZip, file, 100));
    expectNamed(report, 'certificates/platform-ca.pem');
  });

  it('in manifest.json: its signature no longer holds', async () => {
    const { manifest } = await packArchive(scenario.files, scenario.notary, scenario.signer);
    const zip = (await packArchive(scenario.files, scenario.notary, scenario.signer)).zip;
    const current = zip.subarray(zip.indexOf(Buffer.from('{\n  "format"')), zip.indexOf(Buffer.from('{\n  "format"')) + manifest.length);
    const report = await verify(flipByte(zip, Buffer.from(current), 30));
    expectNamed(report, 'manifest.json');
  });

  it('anywhere in manifest.json.p7s', async () => {
    const { zip, signature } = await packArchive(scenario.files, scenario.notary, scenario.signer);
    // Every 97th byte of the signature, so headers, certificates, attributes and the signature value are all tried.
    for (let offset = 0; offset < signature.length; offset += 97) {
      const report = await verify(flipByte(zip, signature, offset));
      expect(report.isValid, `byte ${offset} of the signature`).toBe(false);
      expect(problems(report).map((finding) => finding.file)).toContainEqual(expect.stringMatching(/^manifest\.json(\.p7s)?$/));
    }
  });
});

describe('what the signed manifest alone would not show', () => {
  /** Re-signs the manifest after a change, as someone holding the platform's key could: the inner checks must still catch it. */
  const repack = (files: ArchiveFile[]) => packArchive(files, scenario.notary, scenario.signer);
  const replace = (target: string, bytes: Buffer) => scenario.files.map((file) => (file.path === target ? { ...file, bytes } : file));

  it('an edited audit event breaks the chain at that event', async () => {
    const trail = JSON.parse(fileOf(scenario.paths.jobAudit).bytes.toString()) as { events: { data: Record<string, unknown> }[] };
    (trail.events[1] as { data: Record<string, unknown> }).data.bytes = 4096;
    const report = await verify((await repack(replace(scenario.paths.jobAudit, Buffer.from(JSON.stringify(trail))))).zip);
    expect(problems(report)).toEqual([
      {
        ok: false,
        file: scenario.paths.jobAudit,
        sentence: expect.stringMatching(
          /^The audit trail in .* is broken at event 2 \(recording\.segment_saved, .* UTC\): its content no longer matches its hash/,
        ),
      },
    ]);
  });

  it('a removed audit event breaks the links', async () => {
    const trail = JSON.parse(fileOf(scenario.paths.jobAudit).bytes.toString()) as { events: unknown[] };
    trail.events.splice(1, 1);
    const report = await verify((await repack(replace(scenario.paths.jobAudit, Buffer.from(JSON.stringify(trail))))).zip);
    expect(problems(report).map((finding) => finding.sentence)).toEqual([
      expect.stringContaining('is broken at event 2 (document.notarized): it does not link to the event before it'),
    ]);
  });

  it('a recording segment replaced after recording no longer matches the recorded hash', async () => {
    const report = await verify((await repack(replace(scenario.paths.segment, randomBytes(20_000)))).zip);
    expect(problems(report)).toEqual([
      { ok: false, file: scenario.paths.segment, sentence: expect.stringContaining('does not match the hash the platform recorded when it was made') },
    ]);
  });

  it('a changed PDF fails its own signature', async () => {
    const pdf = Buffer.from(fileOf(scenario.paths.timestampedPdf).bytes);
    pdf[150] = (pdf[150] as number) ^ 0x01;
    const report = await verify((await repack(replace(scenario.paths.timestampedPdf, pdf))).zip);
    expect(problems(report).map((finding) => finding.file)).toEqual([scenario.paths.timestampedPdf]);
  });

  it('a PDF whose certificate had been revoked before it was signed', async () => {
    const signedOnly = fileOf(scenario.paths.plainPdf).bytes;
    const ocsp = await createOcspResponse(workDirectory, scenario.ca, scenario.credentials.certificatePem, { revokedAt: new Date(Date.now() - 3600_000) });
    const revoked = await appendDocumentSecurityStore(signedOnly, { certificatePems: [scenario.ca.certificatePem], ocsps: [ocsp] });
    const report = await verify((await repack(replace(scenario.paths.plainPdf, revoked))).zip);
    expect(problems(report).map((finding) => finding.sentence)).toEqual([
      expect.stringMatching(/certificate had been revoked on .* UTC, before the signature \(OCSP answer of Open RON Platform CA/),
    ]);
  });

  it('bytes appended to a signed PDF that add more than validation data', async () => {
    const pdf = Buffer.concat([fileOf(scenario.paths.plainPdf).bytes, Buffer.from('\n9 0 obj\n<< /Type /Page >>\nendobj\n%%EOF\n')]);
    const report = await verify((await repack(replace(scenario.paths.plainPdf, pdf))).zip);
    expect(problems(report).map((finding) => finding.sentence)).toEqual([
      expect.stringContaining(`${scenario.paths.plainPdf} was changed after its last signature`),
    ]);
  });
});

describe('a damaged or incomplete archive', () => {
  it('a truncated archive is named as not readable', async () => {
    const report = await verify(goodZip.subarray(0, goodZip.length - 500), 'cut.zip');
    expect(report.isValid).toBe(false);
    expect(problems(report)).toEqual([
      { ok: false, file: 'cut.zip', sentence: expect.stringContaining('cut.zip cannot be read as a ZIP archive: no ZIP directory was found at its end') },
    ]);
  });

  it('a file listed in the manifest but missing from the ZIP', async () => {
    const { manifest, signature } = await packArchive(scenario.files, scenario.notary, scenario.signer);
    const zip = writeStoredZip([
      ...scenario.files.filter((file) => file.path !== scenario.paths.plainPdf).map((file) => ({ name: file.path, bytes: file.bytes })),
      { name: 'manifest.json', bytes: manifest },
      { name: 'manifest.json.p7s', bytes: signature },
    ]);
    const report = await verify(zip);
    expect(problems(report)).toEqual([
      {
        ok: false,
        file: scenario.paths.plainPdf,
        sentence: `${scenario.paths.plainPdf} is listed in the manifest (Deed of trust) but missing from the archive.`,
      },
    ]);
  });

  it('a file added to the ZIP that the manifest does not list', async () => {
    const { manifest, signature } = await packArchive(scenario.files, scenario.notary, scenario.signer);
    const zip = writeStoredZip([
      ...scenario.files.map((file) => ({ name: file.path, bytes: file.bytes })),
      { name: 'jobs/extra.pdf', bytes: fileOf(scenario.paths.plainPdf).bytes },
      { name: 'manifest.json', bytes: manifest },
      { name: 'manifest.json.p7s', bytes: signature },
    ]);
    const report = await verify(zip);
    expect(problems(report)).toEqual([
      { ok: false, file: 'jobs/extra.pdf', sentence: 'jobs/extra.pdf is in the archive but not in the signed manifest: it was added afterwards.' },
    ]);
  });
});
