import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, signingCredentials } from '#server/db/schema/index.ts';
import { getOrIssueNotaryCredentials, platformCaCommonName, type NotaryIdentity } from '#server/providers/signing/certificates.ts';
import { signPdf } from '#server/providers/signing/pades.ts';
import { verifyWithPdfsig } from '#server/providers/signing/pdfsig.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { makePdf } from '#test/pdf-fixtures.ts';

const run = promisify(execFile);
const day = 24 * 3600 * 1000;
const password = 'correct horse battery staple';
const signatureInfo = { reason: 'Acknowledgment (remote online notarization)', location: 'Travis, TX', name: 'Nora Own', contactInfo: 'nora@example.test' };

interface TestKeys {
  privateKeyPem: string;
  publicKeyPem: string;
}

interface TestCa extends TestKeys {
  certificatePem: string;
}

function createRsaKeys(): TestKeys {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** A certificate made with node-forge: self-signed when no issuer is given. */
function createCertificate(options: {
  commonName: string;
  keys: TestKeys;
  issuer?: TestCa;
  isCa?: boolean;
  notBefore?: Date;
  notAfter?: Date;
  keyUsage?: object;
}): string {
  const certificate = forge.pki.createCertificate();
  certificate.serialNumber = `01${randomBytes(8).toString('hex')}`;
  certificate.publicKey = forge.pki.publicKeyFromPem(options.keys.publicKeyPem);
  certificate.validity.notBefore = options.notBefore ?? new Date(Date.now() - day);
  certificate.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * day);
  const subject = [
    { name: 'commonName', value: options.commonName },
    { name: 'organizationName', value: 'Example Notary Services' },
  ];
  certificate.setSubject(subject);
  certificate.setIssuer(options.issuer ? forge.pki.certificateFromPem(options.issuer.certificatePem).subject.attributes : subject);
  certificate.setExtensions(
    options.isCa
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', critical: true, ...(options.keyUsage ?? { digitalSignature: true, nonRepudiation: true }) },
        ],
  );
  certificate.sign(forge.pki.privateKeyFromPem((options.issuer ?? options.keys).privateKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(certificate);
}

/** A PKCS#12 file made with node-forge: the key, then the certificates (leaf first). */
function createPkcs12(privateKeyPem: string, certificatePems: string[], filePassword = password): Buffer {
  const container = forge.pkcs12.toPkcs12Asn1(
    forge.pki.privateKeyFromPem(privateKeyPem),
    certificatePems.map((pem) => forge.pki.certificateFromPem(pem)),
    filePassword,
    { algorithm: '3des' },
  );
  return Buffer.from(forge.asn1.toDer(container).getBytes(), 'binary');
}

/** A multipart/form-data body: the file under `p12` and the password field. */
function buildCertificateUpload(file: Buffer | null, filePassword: string | null = password) {
  const boundary = `----ron${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  if (filePassword !== null) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\n${filePassword}\r\n`));
  if (file) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="p12"; filename="notary.p12"\r\nContent-Type: application/x-pkcs12\r\n\r\n`),
      file,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

let t: TestApp;
let ca: TestCa;
let workDirectory: string;

beforeAll(async () => {
  t = await createTestApp();
  const caKeys = createRsaKeys();
  ca = {
    ...caKeys,
    certificatePem: createCertificate({ commonName: 'Example Notary CA', keys: caKeys, isCa: true, notAfter: new Date(Date.now() + 3650 * day) }),
  };
  workDirectory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-notary-certificate-'));
});

afterAll(async () => {
  await t.close();
  if (workDirectory) await fs.promises.rm(workDirectory, { recursive: true, force: true });
});

async function createNotary(): Promise<{ user: TestUser; headers: Record<string, string>; identity: NotaryIdentity }> {
  const user = await t.createUser({ roles: ['notary'], name: 'Nora Own' });
  const identity = {
    userId: user.id,
    name: user.name,
    email: user.email,
    commissionState: 'TX',
    commissionNumber: 'TX-4242',
    commissionExpiresOn: '2031-06-30',
  };
  return { user, headers: await t.signInAs(user), identity };
}

/** A notary's PKCS#12 from the test CA: a fresh key and a certificate for it. */
function createNotaryPkcs12(options: { notBefore?: Date; notAfter?: Date; keyUsage?: object } = {}) {
  const keys = createRsaKeys();
  const certificatePem = createCertificate({ commonName: 'Nora Own', keys, issuer: ca, ...options });
  return { file: createPkcs12(keys.privateKeyPem, [certificatePem, ca.certificatePem]), certificatePem };
}

const upload = (headers: Record<string, string>, body: ReturnType<typeof buildCertificateUpload>) =>
  t.app.inject({ method: 'POST', url: '/api/notary/certificate', headers: { ...headers, ...body.headers }, payload: body.payload });
const getCertificate = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/notary/certificate', headers });
const removeCertificate = (headers: Record<string, string>) => t.app.inject({ method: 'DELETE', url: '/api/notary/certificate', headers });

describe('a notary’s own signing certificate', () => {
  it('signs the notary’s documents with an uploaded PKCS#12 certificate, trusted through its own CA', async () => {
    const notary = await createNotary();
    const { file, certificatePem } = createNotaryPkcs12();
    const res = await upload(notary.headers, buildCertificateUpload(file));
    expect(res.statusCode).toBe(201);
    const expected = {
      source: 'uploaded',
      subject: 'CN=Nora Own, O=Example Notary Services',
      issuer: 'CN=Example Notary CA, O=Example Notary Services',
      serialNumber: forge.pki.certificateFromPem(certificatePem).serialNumber.toLowerCase(),
      notBefore: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      notAfter: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    };
    expect(res.json()).toEqual(expected);
    expect((await getCertificate(notary.headers)).json()).toEqual(res.json());

    const credentials = await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity);
    expect(credentials.certificatePem.replace(/\r/g, '')).toBe(certificatePem.replace(/\r/g, ''));
    expect(credentials.chainPems.map((pem) => pem.replace(/\s/g, ''))).toEqual([ca.certificatePem.replace(/\s/g, '')]);
    const signed = await signPdf(await makePdf(2, 'Deed of trust'), credentials, signatureInfo);
    // This chain names no OCSP responder: poppler's offline mode calls such a certificate "Unknown issue", its online mode has nothing to ask.
    const report = await verifyWithPdfsig(signed, ca.certificatePem, { isRevocationCheckedOnline: true });
    expect(report).toMatchObject({ isValid: true, isTrusted: true, isTotal: true, signatureCount: 1 });
    expect(report.output).toContain('Signer Certificate Common Name: Nora Own');
  });

  it('keeps the uploaded key only encrypted and records the upload in the audit trail without it', async () => {
    const notary = await createNotary();
    const res = await upload(notary.headers, buildCertificateUpload(createNotaryPkcs12().file));
    expect(res.statusCode).toBe(201);
    const [row] = await t.db
      .select()
      .from(signingCredentials)
      .where(and(eq(signingCredentials.userId, notary.user.id), eq(signingCredentials.source, 'uploaded')));
    expect(row?.privateKeyEncrypted).toMatch(/^v1\./);
    expect(row?.privateKeyEncrypted).not.toContain('PRIVATE KEY');
    const [event] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.actorId, notary.user.id), eq(auditEvents.action, 'notary.certificate_uploaded')));
    expect(event?.data).toEqual({ subject: res.json().subject, serialNumber: res.json().serialNumber, notAfter: res.json().notAfter });
    expect(JSON.stringify(event)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(event)).not.toContain(password);
  });

  it('signs with an elliptic-curve key from an OpenSSL-made PKCS#12 file', async () => {
    const notary = await createNotary();
    const file = (name: string) => path.join(workDirectory, name);
    await Promise.all([
      fs.promises.writeFile(file('ca.pem'), ca.certificatePem),
      fs.promises.writeFile(file('ca.key'), ca.privateKeyPem),
      fs.promises.writeFile(file('leaf.cnf'), 'keyUsage=critical,digitalSignature,nonRepudiation\nbasicConstraints=CA:FALSE\n'),
    ]);
    await run('openssl', [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      file('ec.key'),
      '-out',
      file('ec.csr'),
      '-subj',
      '/CN=Eve Curve',
    ]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      file('ec.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-set_serial',
      '4242',
      '-days',
      '30',
      '-extfile',
      file('leaf.cnf'),
      '-out',
      file('ec.pem'),
    ]);
    await run('openssl', [
      'pkcs12',
      '-export',
      '-inkey',
      file('ec.key'),
      '-in',
      file('ec.pem'),
      '-certfile',
      file('ca.pem'),
      '-out',
      file('ec.p12'),
      '-passout',
      `pass:${password}`,
    ]);
    const res = await upload(notary.headers, buildCertificateUpload(await fs.promises.readFile(file('ec.p12'))));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      source: 'uploaded',
      subject: 'CN=Eve Curve',
      issuer: 'CN=Example Notary CA, O=Example Notary Services',
      serialNumber: '1092',
    });
    const credentials = await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity);
    const signed = await signPdf(await makePdf(1), credentials, signatureInfo);
    expect(await verifyWithPdfsig(signed, ca.certificatePem, { isRevocationCheckedOnline: true })).toMatchObject({ isValid: true, isTrusted: true });
  });

  it('replaces an earlier uploaded certificate with a new one', async () => {
    const notary = await createNotary();
    const first = (await upload(notary.headers, buildCertificateUpload(createNotaryPkcs12().file))).json();
    const second = (await upload(notary.headers, buildCertificateUpload(createNotaryPkcs12().file))).json();
    expect(second.serialNumber).not.toBe(first.serialNumber);
    expect((await getCertificate(notary.headers)).json()).toEqual(second);
    const rows = await t.db
      .select()
      .from(signingCredentials)
      .where(and(eq(signingCredentials.userId, notary.user.id), eq(signingCredentials.source, 'uploaded')));
    expect(rows.find((row) => row.serialNumber === first.serialNumber)?.revokedAt).toBeInstanceOf(Date);
    expect(rows.find((row) => row.serialNumber === second.serialNumber)?.revokedAt).toBeNull();
    expect((await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity)).serialNumber).toBe(second.serialNumber);
  });

  it('goes back to the platform certificate when the notary removes theirs', async () => {
    const notary = await createNotary();
    expect((await getCertificate(notary.headers)).json()).toEqual({
      source: null,
      subject: null,
      issuer: null,
      serialNumber: null,
      notBefore: null,
      notAfter: null,
    });
    const platform = await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity);
    expect((await getCertificate(notary.headers)).json()).toMatchObject({
      source: 'platform',
      serialNumber: platform.serialNumber,
      issuer: expect.stringContaining(`CN=${platformCaCommonName}`),
    });

    expect((await upload(notary.headers, buildCertificateUpload(createNotaryPkcs12().file))).statusCode).toBe(201);
    expect((await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity)).credentialId).not.toBe(platform.credentialId);

    const removed = await removeCertificate(notary.headers);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ source: 'platform', serialNumber: platform.serialNumber, subject: platform.subject });
    expect((await getOrIssueNotaryCredentials(t.db, t.secretsKey, notary.identity)).credentialId).toBe(platform.credentialId);

    const again = await removeCertificate(notary.headers);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: 'not_found', message: 'You have no uploaded signing certificate; the platform certificate is already in use.' });
  });
});

describe('refused certificate uploads', () => {
  let notary: Awaited<ReturnType<typeof createNotary>>;
  beforeAll(async () => {
    notary = await createNotary();
  });

  const expectRefused = async (body: ReturnType<typeof buildCertificateUpload>, message: string) => {
    const res = await upload(notary.headers, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_certificate', message });
    expect((await getCertificate(notary.headers)).json()).toMatchObject({ source: null });
  };

  it('refuses a wrong password, and a file that is no PKCS#12 at all, with one plain message', async () => {
    await expectRefused(buildCertificateUpload(createNotaryPkcs12().file, 'not the password'), 'The certificate file or its password is not right.');
    await expectRefused(buildCertificateUpload(randomBytes(2000)), 'The certificate file or its password is not right.');
  });

  it('refuses a file whose private key belongs to no certificate in it', async () => {
    const { certificatePem } = createNotaryPkcs12();
    const otherKeys = createRsaKeys();
    await expectRefused(
      buildCertificateUpload(createPkcs12(otherKeys.privateKeyPem, [certificatePem, ca.certificatePem])),
      'The private key in the file does not belong to any certificate in it.',
    );
  });

  it('refuses a file that holds certificates but no private key', async () => {
    const { certificatePem } = createNotaryPkcs12();
    const container = forge.pkcs12.toPkcs12Asn1(null, [forge.pki.certificateFromPem(certificatePem)], password, { algorithm: '3des' });
    await expectRefused(buildCertificateUpload(Buffer.from(forge.asn1.toDer(container).getBytes(), 'binary')), 'The file must hold exactly one private key.');
  });

  it('refuses a file asking for millions of key-derivation rounds before spending them', async () => {
    const keys = createRsaKeys();
    const container = forge.pkcs12.toPkcs12Asn1(
      forge.pki.privateKeyFromPem(keys.privateKeyPem),
      [forge.pki.certificateFromPem(createCertificate({ commonName: 'Nora Own', keys, issuer: ca }))],
      password,
      { algorithm: '3des' },
    );
    // MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER }
    const macIterations = ((container.value as forge.asn1.Asn1[])[2]?.value as forge.asn1.Asn1[])[2] as forge.asn1.Asn1;
    macIterations.value = forge.asn1.integerToDer(50_000_000).getBytes();
    const started = Date.now();
    await expectRefused(
      buildCertificateUpload(Buffer.from(forge.asn1.toDer(container).getBytes(), 'binary')),
      'This file’s password protection uses more rounds than this server accepts. Export it again with standard settings.',
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses an expired certificate and one not valid yet', async () => {
    const expired = createNotaryPkcs12({ notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
    await expectRefused(buildCertificateUpload(expired.file), 'This certificate has expired.');
    const early = createNotaryPkcs12({ notBefore: new Date(Date.now() + 30 * day), notAfter: new Date(Date.now() + 400 * day) });
    await expectRefused(buildCertificateUpload(early.file), 'This certificate is not valid yet.');
  });

  it('refuses a certificate whose key usage does not allow signatures', async () => {
    const { file } = createNotaryPkcs12({ keyUsage: { keyEncipherment: true } });
    await expectRefused(
      buildCertificateUpload(file),
      'This certificate may not be used for signatures: its key usage allows neither digital signature nor non-repudiation.',
    );
  });

  it('asks for the file when none is sent', async () => {
    for (const res of [
      await upload(notary.headers, buildCertificateUpload(null)),
      await t.app.inject({ method: 'POST', url: '/api/notary/certificate', headers: notary.headers, payload: { password } }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'no_file', message: 'Choose your certificate file (.p12 or .pfx).' });
    }
  });

  it('refuses a file over 100 KB', async () => {
    const res = await upload(notary.headers, buildCertificateUpload(randomBytes(100 * 1024 + 1)));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'file_too_large' });
  });

  it('lets only a signed-in notary see or change a signing certificate', async () => {
    const countUploaded = async () => (await t.db.select().from(signingCredentials).where(eq(signingCredentials.source, 'uploaded'))).length;
    const before = await countUploaded();
    const body = buildCertificateUpload(createNotaryPkcs12().file);
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/notary/certificate', headers: body.headers, payload: body.payload });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized' });
    const signerHeaders = await t.signInAs(await t.createUser({ roles: ['signer'] }));
    for (const res of [await upload(signerHeaders, body), await getCertificate(signerHeaders), await removeCertificate(signerHeaders)]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
    }
    expect(await countUploaded()).toBe(before);
  });
});
