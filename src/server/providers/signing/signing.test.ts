import { execFile } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { eq } from 'drizzle-orm';
import forge from 'node-forge';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type Database, type Db } from '#server/db/client.ts';
import * as schema from '#server/db/schema/index.ts';
import { signingCredentials, users } from '#server/db/schema/index.ts';
import { renderNotarizedPdf } from '#server/features/notarization/render.ts';
import { decryptSecret } from '#server/lib/secrets.ts';
import { makePdf } from '#test/pdf-fixtures.ts';
import { PDFDict, PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { documentSigningOid, getOrCreatePlatformCa, getOrIssueNotaryCredentials, platformCaCommonName, type NotaryIdentity } from './certificates.ts';
import { cmsOids, createTimestampRequest, readTimestampResponse, readTimestampToken } from './cms.ts';
import { fetchTimestampToken, signPdf } from './pades.ts';
import { verifyWithPdfsig } from './pdfsig.ts';

const run = promisify(execFile);
const dump = () => new Blob([fs.readFileSync(inject('pgliteDumpPath'))]);

let database: Database;
let db: Db;
const secretsKey = randomBytes(32);
let workDirectory: string;

async function createNotaryUser(name: string): Promise<NotaryIdentity> {
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}.${randomBytes(3).toString('hex')}@example.test`;
  const [row] = await db
    .insert(users)
    .values({ email, name, roles: ['notary'] })
    .returning({ id: users.id });
  if (!row) throw new Error('user insert failed');
  return { userId: row.id, name, email, commissionState: 'TX', commissionNumber: '13245768-9', commissionExpiresOn: '2030-06-30' };
}

const signatureInfo = { reason: 'Acknowledgment (remote online notarization)', location: 'Travis, TX', name: 'Nora Notary', contactInfo: 'nora@example.test' };

/** The DER CMS blob and the bytes it signs, read back out of a signed PDF as a verifier does. */
function readSignature(pdf: Buffer): { cms: Buffer; signedBytes: Buffer } {
  const match = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\s*\]/.exec(pdf.toString('latin1'));
  if (!match) throw new Error('no /ByteRange');
  const [start, length, secondStart, secondLength] = match.slice(1).map(Number) as [number, number, number, number];
  const hex = pdf.subarray(start + length + 1, secondStart - 1).toString('latin1');
  const padded = Buffer.from(hex, 'hex');
  // SEQUENCE with a long-form length: 0x30 0x8n, then n length octets.
  const lengthOctets = (padded[1] ?? 0) & 0x7f;
  const contentLength = padded.subarray(2, 2 + lengthOctets).reduce((total, octet) => total * 256 + octet, 0);
  return {
    cms: padded.subarray(0, 2 + lengthOctets + contentLength),
    signedBytes: Buffer.concat([pdf.subarray(start, start + length), pdf.subarray(secondStart, secondStart + secondLength)]),
  };
}

beforeAll(async () => {
  database = await createDatabase({ databaseUrl: null, dataDir: null, loadDataDir: dump() });
  db = database.db;
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-signing-test-'));
});

afterAll(async () => {
  await database?.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

describe('platform CA and notary certificates', () => {
  it('creates a self-signed platform CA that may only sign certificates', async () => {
    const ca = await getOrCreatePlatformCa(db, secretsKey);
    const certificate = new X509Certificate(ca.certificatePem);
    expect(certificate.subject).toContain(`CN=${platformCaCommonName}`);
    expect(certificate.ca).toBe(true);
    expect(certificate.checkIssued(certificate)).toBe(true);
    expect(certificate.publicKey.asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(2048);
    const years = (Date.parse(certificate.validTo) - Date.now()) / (365.25 * 24 * 3600 * 1000);
    expect(years).toBeGreaterThan(19.9);
    const file = path.join(workDirectory, 'ca-inspect.pem');
    await fs.promises.writeFile(file, ca.certificatePem);
    const { stdout } = await run('openssl', ['x509', '-noout', '-in', file, '-ext', 'basicConstraints,keyUsage']);
    expect(stdout).toContain('CA:TRUE');
    expect(stdout).toContain('Certificate Sign, CRL Sign');
    expect((await getOrCreatePlatformCa(db, secretsKey)).credentialId).toBe(ca.credentialId);
  });

  it('issues a notary a certificate from the platform CA naming the notary, state and commission', async () => {
    const notary = await createNotaryUser('Nora Quinn Notary');
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    const ca = await getOrCreatePlatformCa(db, secretsKey);
    const certificate = new X509Certificate(credentials.certificatePem);
    const caCertificate = new X509Certificate(ca.certificatePem);

    expect(certificate.checkIssued(caCertificate)).toBe(true);
    expect(certificate.verify(caCertificate.publicKey)).toBe(true);
    expect(certificate.ca).toBe(false);
    expect(certificate.subject.split('\n')).toEqual(
      expect.arrayContaining(['CN=Nora Quinn Notary', 'O=Open RON notary', 'ST=TX', 'serialNumber=13245768-9', `emailAddress=${notary.email}`]),
    );
    expect(certificate.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.4', documentSigningOid]));
    expect(new Date(certificate.validTo).toISOString()).toBe('2030-06-30T23:59:59.000Z');
    expect(credentials.chainPems).toEqual([ca.certificatePem]);
    expect(credentials.serialNumber).toBe(certificate.serialNumber.toLowerCase());
    expect(credentials.subject).toContain('CN=Nora Quinn Notary');

    const file = path.join(workDirectory, 'notary-inspect.pem');
    await fs.promises.writeFile(file, credentials.certificatePem);
    const { stdout } = await run('openssl', ['x509', '-noout', '-in', file, '-ext', 'keyUsage,extendedKeyUsage']);
    expect(stdout).toContain('Digital Signature, Non Repudiation');
    expect(stdout).toContain('E-mail Protection');

    // An ECDSA P-256 key (decision 065): a tenth of RSA's signing time, and a key identifier that is
    // the SHA-1 of the key's bits (RFC 5280 4.2.1.2), as OpenSSL computes it.
    expect(certificate.publicKey.asymmetricKeyType).toBe('ec');
    expect(certificate.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const keyBits = certificate.publicKey.export({ type: 'spki', format: 'der' }).subarray(-65);
    const { stdout: identifiers } = await run('openssl', ['x509', '-noout', '-in', file, '-ext', 'subjectKeyIdentifier']);
    expect(identifiers.replace(/[\s:]/g, '').toLowerCase()).toContain(createHash('sha1').update(keyBits).digest('hex'));
  });

  it('reuses a valid notary certificate and issues a new one when the commission changes', async () => {
    const notary = await createNotaryUser('Reuben Reuse');
    const first = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    const again = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    expect(again.credentialId).toBe(first.credentialId);
    expect(again.certificatePem).toBe(first.certificatePem);

    const renewed = await getOrIssueNotaryCredentials(db, secretsKey, { ...notary, commissionNumber: '99887766-1' });
    expect(renewed.credentialId).not.toBe(first.credentialId);
    expect(new X509Certificate(renewed.certificatePem).subject).toContain('serialNumber=99887766-1');
  });

  it('gives a second notary a different certificate from the same CA', async () => {
    const [first, second] = await Promise.all([createNotaryUser('Ada First'), createNotaryUser('Bo Second')]);
    const one = await getOrIssueNotaryCredentials(db, secretsKey, first);
    const two = await getOrIssueNotaryCredentials(db, secretsKey, second);
    const [certificateOne, certificateTwo] = [new X509Certificate(one.certificatePem), new X509Certificate(two.certificatePem)];
    expect(two.credentialId).not.toBe(one.credentialId);
    expect(certificateTwo.serialNumber).not.toBe(certificateOne.serialNumber);
    expect(certificateTwo.publicKey.export({ format: 'pem', type: 'spki' })).not.toBe(certificateOne.publicKey.export({ format: 'pem', type: 'spki' }));
    expect(certificateTwo.issuer).toBe(certificateOne.issuer);
    expect(two.chainPems).toEqual(one.chainPems);
  });

  it('refuses to issue a certificate for an expired commission', async () => {
    const notary = await createNotaryUser('Ex Pired');
    await expect(getOrIssueNotaryCredentials(db, secretsKey, { ...notary, commissionExpiresOn: '2020-01-31' })).rejects.toMatchObject({
      statusCode: 409,
      message: expect.stringContaining('expired on 2020-01-31'),
    });
  });

  it('caps a notary certificate at five years when the commission runs longer', async () => {
    const notary = await createNotaryUser('Long Commission');
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, { ...notary, commissionExpiresOn: '2099-12-31' });
    const years = (Date.parse(new X509Certificate(credentials.certificatePem).validTo) - Date.now()) / (365.25 * 24 * 3600 * 1000);
    expect(years).toBeGreaterThan(4.9);
    expect(years).toBeLessThanOrEqual(5.01);
  });

  it('stores private keys only encrypted under the secrets key', async () => {
    const notary = await createNotaryUser('Kay Keys');
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    const rows = await db.select().from(signingCredentials);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row.privateKeyEncrypted).toMatch(/^v1\./);
      expect(row.privateKeyEncrypted).not.toContain('PRIVATE KEY');
      const plaintext = decryptSecret(secretsKey, row.privateKeyEncrypted);
      const keyBody = plaintext.split('\n').find((line) => line.length >= 40) ?? '';
      expect(keyBody.length).toBeGreaterThanOrEqual(40);
      expect(row.privateKeyEncrypted).not.toContain(keyBody);
      expect(() => decryptSecret(randomBytes(32), row.privateKeyEncrypted)).toThrow();
    }
    const [own] = await db.select().from(signingCredentials).where(eq(signingCredentials.id, credentials.credentialId));
    expect(decryptSecret(secretsKey, own?.privateKeyEncrypted ?? '')).toBe(credentials.privateKeyPem);
    await expect(getOrCreatePlatformCa(db, randomBytes(32))).rejects.toThrow(/platform CA signing key .* cannot be decrypted: was SECRETS_KEY/);
  });

  it('creates the platform CA once when first calls race, also from separate database handles', async () => {
    const client = new PGlite({ loadDataDir: dump() });
    await client.waitReady;
    try {
      // Two handles on one database, as two app instances would have: the in-process de-duplication
      // cannot help, only the advisory lock and the re-check inside the transaction.
      const handles = [drizzle(client, { schema }), drizzle(client, { schema })] as unknown as Db[];
      const results = await Promise.all([0, 1, 2, 3].map((index) => getOrCreatePlatformCa(handles[index % 2] as Db, secretsKey)));
      expect(new Set(results.map((result) => result.credentialId)).size).toBe(1);
      expect(new Set(results.map((result) => result.certificatePem)).size).toBe(1);
      const rows = await (handles[0] as Db).select().from(signingCredentials).where(eq(signingCredentials.kind, 'platform_ca'));
      expect(rows).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('signed PDFs as a verifier sees them', () => {
  let caPem: string;
  let original: Buffer;
  let signed: Buffer;

  beforeAll(async () => {
    const notary = await createNotaryUser('Nora Notary');
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    caPem = (await getOrCreatePlatformCa(db, secretsKey)).certificatePem;
    original = await makePdf(3, 'Deed of trust');
    signed = await signPdf(original, credentials, signatureInfo);
  });

  it('appends the signature to the original, whose bytes stay its first bytes', () => {
    expect(signed.subarray(0, original.length).equals(original)).toBe(true);
    expect(signed.length).toBeGreaterThan(original.length);
    const appended = signed.subarray(original.length).toString('latin1');
    expect(appended).toContain('/Type /XRef');
    expect(appended).toMatch(/\/Prev \d+/);
  });

  it('is reported by pdfsig as valid, trusted through the platform CA and covering the whole document', async () => {
    const report = await verifyWithPdfsig(signed, caPem);
    expect(report.output).toContain('Signature Validation: Signature is Valid.');
    expect(report.output).toContain('Certificate Validation: Certificate is Trusted.');
    expect(report.output).toMatch(/^\s*- Total document signed$/m);
    expect(report.output).toContain('Signer Certificate Common Name: Nora Notary');
    expect(report.output).toContain('Signing Hash Algorithm: SHA-256');
    expect(report.output).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toMatchObject({ isValid: true, isTrusted: true, isTotal: true, hasDigestMismatch: false, signatureCount: 1 });
  });

  it('is not trusted by a verifier that does not know the platform CA', async () => {
    const keyFile = path.join(workDirectory, 'other-ca.key');
    const certificateFile = path.join(workDirectory, 'other-ca.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certificateFile,
      '-days',
      '2',
      '-subj',
      '/CN=Some Other CA',
    ]);
    const otherCa = { certificatePem: await fs.promises.readFile(certificateFile, 'utf8') };
    const report = await verifyWithPdfsig(signed, otherCa.certificatePem);
    expect(report.isValid).toBe(true);
    expect(report.isTrusted).toBe(false);
    expect(report.output).toContain("Certificate Validation: Certificate issuer isn't Trusted.");
  });

  it('reports a one-byte change after signing as a digest mismatch', async () => {
    const tampered = Buffer.from(signed);
    const position = tampered.indexOf('Acknowledgment');
    expect(position).toBeGreaterThan(0);
    tampered[position] = 'a'.charCodeAt(0);
    const report = await verifyWithPdfsig(tampered, caPem);
    expect(report.output).toContain('Signature Validation: Digest Mismatch.');
    expect(report).toMatchObject({ isValid: false, hasDigestMismatch: true });
  });

  it('signs an original that carries the text of a signature placeholder, filling its own placeholder and leaving the original’s text as it was', async () => {
    const document = await PDFDocument.load(await makePdf(1, 'Decoy'));
    // An uploader's document can hold any text; this is what the placeholder looks like before signing.
    const decoyText = '/ByteRange [0 /********** /********** /**********] /Contents <00>';
    document.context.lookup(document.context.trailerInfo.Info, PDFDict).set(PDFName.of('Subject'), PDFString.of(decoyText));
    const decoy = Buffer.from(await document.save({ useObjectStreams: false }));
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, await createNotaryUser('Dora Decoy'));
    const sealed = await signPdf(decoy, credentials, signatureInfo);
    expect(sealed.subarray(0, decoy.length).equals(decoy)).toBe(true);
    expect(await verifyWithPdfsig(sealed, caPem)).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });
  });

  it('signs an original whose direct /Info, which the new trailer repeats after the placeholder, carries the text of one', async () => {
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, await createNotaryUser('Dora Direct'));
    const objects = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
    ];
    let out = '%PDF-1.7\n';
    const offsets = objects.map((body, index) => {
      const at = out.length;
      out += `${index + 1} 0 obj\n${body}\nendobj\n`;
      return at;
    });
    const xref = out.length;
    out += `xref\n0 4\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
    out += `trailer\n<< /Size 4 /Root 1 0 R /Info << /Title [0 /********** /********** /**********] >> >>\nstartxref\n${xref}\n%%EOF\n`;
    const sealed = await signPdf(Buffer.from(out, 'latin1'), credentials, signatureInfo);
    expect(await verifyWithPdfsig(sealed, caPem)).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });
  });

  it('signs an original whose trailer carries the text "/ByteRange" (its /ID, or a direct /Info the new trailer repeats after the placeholder; found by attack)', async () => {
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, await createNotaryUser('Tara Trailer'));
    for (const trailerExtra of ['/ID [(/ByteRange) (x)]', '/Info << /Title (/ByteRange [0 1 2 3]) >>']) {
      const catalog = '<< /Type /Catalog /Pages 2 0 R >>';
      const pages = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
      const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';
      let out = '%PDF-1.7\n';
      const offsets = [catalog, pages, page].map((body, index) => {
        const at = out.length;
        out += `${index + 1} 0 obj\n${body}\nendobj\n`;
        return at;
      });
      const xref = out.length;
      out += `xref\n0 4\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
      out += `trailer\n<< /Size 4 /Root 1 0 R ${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
      const sealed = await signPdf(Buffer.from(out, 'latin1'), credentials, signatureInfo);
      expect(await verifyWithPdfsig(sealed, caPem), trailerExtra).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });
    }
  });

  it('makes room for a long certificate chain, such as a notary’s own PKCS #12 from a commercial authority', async () => {
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, await createNotaryUser('Lena Longchain'));
    // Seven more certificates in the chain: some 5.5 KB the signature carries beside the notary’s own.
    const extra: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      const file = path.join(workDirectory, `chain-${index}`);
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${file}.key`,
        '-out',
        `${file}.pem`,
        '-days',
        '2',
        '-subj',
        `/CN=Intermediate ${index}`,
      ]);
      extra.push(await fs.promises.readFile(`${file}.pem`, 'utf8'));
    }
    const signedLong = await signPdf(await makePdf(1, 'Long chain'), { ...credentials, chainPems: [...credentials.chainPems, ...extra] }, signatureInfo);
    const report = await verifyWithPdfsig(signedLong, caPem);
    expect(report).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });
  });

  it('reports bytes appended after signing as not covering the whole document', async () => {
    const appended = Buffer.concat([signed, Buffer.from('\n% appended after signing\n')]);
    const report = await verifyWithPdfsig(appended, caPem);
    expect(report.output).toMatch(/^\s*- Not total document signed$/m);
    expect(report).toMatchObject({ isTotal: false, isValid: true, hasDigestMismatch: false });
  });

  it('carries a PAdES baseline CMS that openssl verifies: signing-certificate-v2, no CMS signing time, the chain embedded', async () => {
    const { cms, signedBytes } = readSignature(signed);
    const files = { cms: path.join(workDirectory, 'sig.der'), content: path.join(workDirectory, 'content.bin'), ca: path.join(workDirectory, 'ca.pem') };
    await Promise.all([fs.promises.writeFile(files.cms, cms), fs.promises.writeFile(files.content, signedBytes), fs.promises.writeFile(files.ca, caPem)]);
    const verified = await run('openssl', [
      'cms',
      '-verify',
      '-binary',
      '-inform',
      'DER',
      '-in',
      files.cms,
      '-content',
      files.content,
      '-CAfile',
      files.ca,
      '-purpose',
      'any',
      '-out',
      '/dev/null',
    ]);
    expect(verified.stderr).toContain('Verification successful');
    const { stdout } = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', files.cms]);
    expect(stdout).toContain('id-smime-aa-signingCertificateV2');
    expect(stdout).toContain('messageDigest');
    expect(stdout).not.toContain('signingTime');
    expect(stdout.match(/cert_info:/g)).toHaveLength(2);
  });

  it('signs a rendered notarized document without breaking its pages', async () => {
    const notary = await createNotaryUser('Rita Render');
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    const original = await makePdf(2, 'Power of attorney');
    const { pdf, pageCount } = await renderNotarizedPdf({
      original,
      fields: [{ type: 'name', page: 1, x: 0.1, y: 0.8, width: 0.4, height: 0.04, value: 'Sam Signer', imagePng: null }],
      certificate: {
        actKey: 'jurat',
        actLabel: 'Jurat',
        notaryName: notary.name,
        commissionNumber: notary.commissionNumber,
        commissionState: notary.commissionState,
        county: 'Travis',
        commissionExpiresOn: notary.commissionExpiresOn,
        notarizedAt: new Date(),
        signerNames: ['Sam Signer'],
        // What this version records: no session recording, no identity proofing (a banner on every page).
        notarialFacts: {
          isNotarialAct: false,
          hasRecordedSession: false,
          hasProvenIdentity: false,
          reasons: ['No audio-video session was recorded.', 'No signer’s identity was proven.'],
        },
        verification: { id: '00000000-0000-4000-8000-0000000000aa', url: 'http://localhost:3000/verify?id=00000000-0000-4000-8000-0000000000aa' },
      },
      audit: {
        jobId: '00000000-0000-4000-8000-000000000001',
        jobTitle: 'Power of attorney',
        documentName: 'poa.pdf',
        originalSha256: createHash('sha256').update(original).digest('hex'),
        signers: [{ name: 'Sam Signer', role: 'signer', signedAt: new Date(), identityMethod: 'Not proven: no identity proofing outcome is recorded' }],
        recordingReference: null,
        events: [{ at: new Date(), action: 'document.completed', actorName: 'Sam Signer', data: { documentName: 'poa.pdf' } }],
      },
    });
    const signedRendered = await signPdf(pdf, credentials, { ...signatureInfo, name: notary.name });
    const report = await verifyWithPdfsig(signedRendered, caPem);
    expect(report).toMatchObject({ isValid: true, isTrusted: true, isTotal: true });
    const file = path.join(workDirectory, 'rendered-signed.pdf');
    await fs.promises.writeFile(file, signedRendered);
    const { stdout } = await run('pdfinfo', [file]);
    expect(stdout).toMatch(new RegExp(`^Pages:\\s+${pageCount}$`, 'm'));
    expect(pageCount).toBe(4);
  });
});

describe('RFC 3161 timestamp', () => {
  let tsaUrl: string;
  let server: http.Server;
  let tsaDirectory: string;

  beforeAll(async () => {
    tsaDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-tsa-'));
    const file = (name: string) => path.join(tsaDirectory, name);
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      file('tsa.key'),
      '-out',
      file('tsa.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=Test TSA',
      '-addext',
      'extendedKeyUsage=critical,timeStamping',
      '-addext',
      'keyUsage=critical,digitalSignature',
      '-addext',
      'basicConstraints=critical,CA:FALSE',
    ]);
    await fs.promises.writeFile(file('serial'), '01\n');
    await fs.promises.writeFile(
      file('tsa.cnf'),
      [
        '[ tsa ]',
        'default_tsa = local',
        '[ local ]',
        `serial = ${file('serial')}`,
        `signer_cert = ${file('tsa.pem')}`,
        `signer_key = ${file('tsa.key')}`,
        'signer_digest = sha256',
        'default_policy = 1.2.3.4.1',
        'digests = sha256',
        'accuracy = secs:1',
        'ess_cert_id_alg = sha256',
        'ordering = no',
        'tsa_name = no',
        'ess_cert_id_chain = no',
      ].join('\n'),
    );
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const id = randomBytes(6).toString('hex');
        await fs.promises.writeFile(file(`${id}.tsq`), Buffer.concat(chunks));
        await run('openssl', ['ts', '-reply', '-config', file('tsa.cnf'), '-queryfile', file(`${id}.tsq`), '-out', file(`${id}.tsr`)]);
        response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(await fs.promises.readFile(file(`${id}.tsr`)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tsaUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (tsaDirectory) await fs.promises.rm(tsaDirectory, { recursive: true, force: true });
  });

  it('adds a timestamp token over the signature value when a timestamp authority is given', async () => {
    const notary = await createNotaryUser('Tim Stamp');
    const credentials = await getOrIssueNotaryCredentials(db, secretsKey, notary);
    const caPem = (await getOrCreatePlatformCa(db, secretsKey)).certificatePem;
    const before = Date.now();
    const signed = await signPdf(await makePdf(1), credentials, { ...signatureInfo, timestampUrl: tsaUrl });
    expect((await verifyWithPdfsig(signed, caPem)).isValid).toBe(true);

    const { cms } = readSignature(signed);
    await fs.promises.writeFile(path.join(tsaDirectory, 'signed.der'), cms);
    const { stdout } = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', path.join(tsaDirectory, 'signed.der')]);
    expect(stdout).toContain('id-smime-aa-timeStampToken');

    // The token's imprint is the SHA-256 of the signature value, and the TSA's signature checks out.
    const { asn1, util } = forge;
    const children = (node: forge.asn1.Asn1 | undefined) => (node?.value ?? []) as forge.asn1.Asn1[];
    const signedData = children(children(asn1.fromDer(util.createBuffer(cms.toString('binary'))))[1])[0];
    const signerInfo = children(children(signedData).at(-1))[0];
    const signatureNode = children(signerInfo).find((node) => node.tagClass === asn1.Class.UNIVERSAL && node.type === asn1.Type.OCTETSTRING);
    const signatureValue = Buffer.from(signatureNode?.value as string, 'binary');
    const unsigned = children(signerInfo).find((node) => node.tagClass === asn1.Class.CONTEXT_SPECIFIC && node.type === 1);
    const [attributeType, attributeValues] = children(children(unsigned)[0]);
    expect(asn1.derToOid(util.createBuffer(attributeType?.value as string))).toBe(cmsOids.signatureTimeStampToken);
    const token = Buffer.from(asn1.toDer(children(attributeValues)[0] as forge.asn1.Asn1).getBytes(), 'binary');
    const facts = readTimestampToken(token);
    expect(facts.hashedMessage.equals(createHash('sha256').update(signatureValue).digest())).toBe(true);
    expect(facts.genTime.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 2000);
    await fs.promises.writeFile(path.join(tsaDirectory, 'token.der'), token);
    const verified = await run('openssl', [
      'ts',
      '-verify',
      '-token_in',
      '-in',
      path.join(tsaDirectory, 'token.der'),
      '-digest',
      createHash('sha256').update(signatureValue).digest('hex'),
      '-CAfile',
      path.join(tsaDirectory, 'tsa.pem'),
    ]);
    expect(verified.stdout).toContain('Verification: OK');
  });

  it('names the reason a timestamp authority gives when it refuses a request', async () => {
    const query = path.join(tsaDirectory, 'sha512.tsq');
    await fs.promises.writeFile(path.join(tsaDirectory, 'data.bin'), 'refuse me');
    await run('openssl', ['ts', '-query', '-data', path.join(tsaDirectory, 'data.bin'), '-sha512', '-cert', '-out', query]);
    const response = await fetch(tsaUrl, { method: 'POST', body: await fs.promises.readFile(query) });
    const reply = Buffer.from(await response.arrayBuffer());
    expect(() => readTimestampResponse(reply)).toThrow('the timestamp authority refused the request (status 2: Message digest algorithm is not supported.)');
  });

  it('writes the nonce as a DER integer OpenSSL reads, whatever its first bytes (one request in 256 began with a zero byte and was refused)', async () => {
    const digest = createHash('sha256').update('nonce').digest();
    for (const nonce of ['0001020304050607', '0000000000000001', '1001020304050607', '9001020304050607', '0080000000000000', '0000000000000000']) {
      const file = path.join(workDirectory, `nonce-${nonce}.tsq`);
      await fs.promises.writeFile(file, createTimestampRequest(digest, Buffer.from(nonce, 'hex')));
      const { stdout } = await run('openssl', ['ts', '-query', '-in', file, '-text']);
      const value = BigInt(`0x${nonce}`).toString(16).toUpperCase();
      // OpenSSL prints whole octets, and zero as 0x0.
      expect(stdout, nonce).toContain(`Nonce: 0x${value.length % 2 && value !== '0' ? `0${value}` : value}\n`);
    }
  });

  it('asks once more when the connection closes before the authority answers, as a kept-alive socket closed by the server does', async () => {
    // In front of the authority: the first request's connection is closed unanswered, later ones go through.
    let requests = 0;
    const front = http.createServer((request, response) => {
      requests += 1;
      if (requests === 1) return void request.socket.destroy();
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void fetch(tsaUrl, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: Buffer.concat(chunks) }).then(async (answer) =>
          response.writeHead(answer.status, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from(await answer.arrayBuffer())),
        );
      });
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const digest = createHash('sha256').update('asked twice').digest();
      const token = await fetchTimestampToken(`http://127.0.0.1:${(front.address() as AddressInfo).port}/`, digest);
      expect(readTimestampToken(token).hashedMessage).toEqual(digest);
      expect(requests).toBe(2);
    } finally {
      await new Promise((resolve) => front.close(resolve));
    }
  });

  it('does not ask again when the authority answers with an error', async () => {
    let requests = 0;
    const refusing = http.createServer((_request, response) => {
      requests += 1;
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const digest = createHash('sha256').update('refused').digest();
      await expect(fetchTimestampToken(`http://127.0.0.1:${(refusing.address() as AddressInfo).port}/`, digest)).rejects.toThrow(
        'the timestamp authority answered HTTP 503',
      );
      expect(requests).toBe(1);
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});
