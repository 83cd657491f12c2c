import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { auditEvents } from '#server/db/schema/index.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import {
  getOrCreatePlatformCa,
  getOrIssueNotaryCredentials,
  getOrIssuePlatformSignerCredentials,
  type NotaryIdentity,
  type PlatformCa,
  type SigningCredentials,
} from '#server/providers/signing/certificates.ts';
import { createDetachedCmsSignature } from '#server/providers/signing/cms.ts';
import { appendDss, signPdf } from '#server/providers/signing/pades.ts';
import { makePdf } from './pdf-fixtures.ts';

/**
 * Builds notary archives for the verifier's tests, following the agreed format (decision 060):
 * STORED ZIP entries, manifest.json written last and signed by the platform signer certificate,
 * real sealed PDFs, real audit rows, recording segments with their index.
 */

const run = promisify(execFile);

export type ArchiveFileKind =
  'readme' | 'certificate' | 'journal' | 'job' | 'audit_trail' | 'notarized_document' | 'recording_segment' | 'recording_index' | 'account_audit';

export interface ArchiveFile {
  path: string;
  kind: ArchiveFileKind;
  bytes: Buffer;
  recordedAt?: string;
  jobId?: string;
  title?: string;
}

/** A ZIP of STORED entries (UTF-8 names); with `zip64`, ZIP64 records even for small entries. */
export function writeStoredZip(entries: { name: string; bytes: Buffer }[], options: { zip64?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const zip64 = Boolean(options.zip64);
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = zlib.crc32(entry.bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(zip64 ? 45 : 20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(zip64 ? 0xffffffff : entry.bytes.length, 18);
    local.writeUInt32LE(zip64 ? 0xffffffff : entry.bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    const localExtra = zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (zip64) {
      localExtra.writeUInt16LE(1, 0);
      localExtra.writeUInt16LE(16, 2);
      localExtra.writeBigUInt64LE(BigInt(entry.bytes.length), 4);
      localExtra.writeBigUInt64LE(BigInt(entry.bytes.length), 12);
    }
    local.writeUInt16LE(localExtra.length, 28);
    parts.push(local, name, localExtra, entry.bytes);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(zip64 ? 45 : 20, 4);
    header.writeUInt16LE(zip64 ? 45 : 20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(zip64 ? 0xffffffff : entry.bytes.length, 20);
    header.writeUInt32LE(zip64 ? 0xffffffff : entry.bytes.length, 24);
    header.writeUInt16LE(name.length, 28);
    const extra = zip64 ? Buffer.alloc(28) : Buffer.alloc(0);
    if (zip64) {
      extra.writeUInt16LE(1, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(entry.bytes.length), 4);
      extra.writeBigUInt64LE(BigInt(entry.bytes.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    header.writeUInt16LE(extra.length, 30);
    header.writeUInt32LE(zip64 ? 0xffffffff : offset, 42);
    central.push(header, name, extra);
    offset += local.length + name.length + localExtra.length + entry.bytes.length;
  }
  const directory = Buffer.concat(central);
  const tail: Buffer[] = [];
  if (zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(zip64 ? 0xffffffff : directory.length, 12);
  end.writeUInt32LE(zip64 ? 0xffffffff : offset, 16);
  return Buffer.concat([...parts, directory, ...tail, end]);
}

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export interface ArchiveNotary {
  id: string;
  name: string;
  commissionState: string;
  commissionNumber: string;
}

/** The manifest, its detached CMS signature, and the ZIP with every file in the agreed order. */
export async function packArchive(
  files: ArchiveFile[],
  notary: ArchiveNotary,
  signer: SigningCredentials,
  options: { zip64?: boolean; createdAt?: Date } = {},
): Promise<{ zip: Buffer; manifest: Buffer; signature: Buffer }> {
  const count = (kind: ArchiveFileKind) => files.filter((file) => file.kind === kind).length;
  const manifest = Buffer.from(
    JSON.stringify(
      {
        format: 'open-ron-archive/1',
        createdAt: (options.createdAt ?? new Date()).toISOString(),
        generator: 'Open RON test',
        notary,
        counts: {
          journalEntries: 0,
          jobs: files.filter((file) => file.kind === 'job').length,
          documents: count('notarized_document'),
          recordingSegments: count('recording_segment'),
        },
        files: files.map((file) => ({
          path: file.path,
          kind: file.kind,
          sha256: sha256Hex(file.bytes),
          sizeBytes: file.bytes.length,
          recordedAt: file.recordedAt ?? new Date().toISOString(),
          ...(file.jobId ? { jobId: file.jobId } : {}),
          ...(file.title ? { title: file.title } : {}),
        })),
      },
      null,
      2,
    ),
  );
  const signature = await createDetachedCmsSignature(manifest, {
    certificatePem: signer.certificatePem,
    privateKeyPem: signer.privateKeyPem,
    chainPems: signer.chainPems,
  });
  const zip = writeStoredZip(
    [
      ...files.map((file) => ({ name: file.path, bytes: file.bytes })),
      { name: 'manifest.json', bytes: manifest },
      { name: 'manifest.json.p7s', bytes: signature },
    ],
    { zip64: options.zip64 },
  );
  return { zip, manifest, signature };
}

/** An audit trail as the archive exports it: every hashed column, createdAt as hashed, and the hashes. */
export async function exportAuditTrail(db: Db, scope: string): Promise<Buffer> {
  const rows = await db.select().from(auditEvents).where(eq(auditEvents.scope, scope)).orderBy(asc(auditEvents.sequence));
  const events = rows.map((row) => ({
    id: row.id,
    sequence: row.sequence,
    scope: row.scope,
    jobId: row.jobId,
    actorId: row.actorId,
    action: row.action,
    ipAddress: row.ipAddress,
    userAgent: row.userAgent,
    data: row.data,
    createdAt: row.createdAt.toISOString(),
    previousHash: row.previousHash,
    hash: row.hash,
  }));
  return Buffer.from(JSON.stringify({ scope, events }, null, 2));
}

/** The local OpenSSL timestamp authority the tests sign through (a stand-in for a TSA on the internet). */
export async function startTestTsa(directory: string): Promise<{ url: string; certificatePem: string; close: () => Promise<void> }> {
  const file = (name: string) => path.join(directory, name);
  await run(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('tsa.key'), '-out', file('tsa.pem'), '-days', '2', '-subj', '/CN=Test TSA'].concat([
      '-addext',
      'extendedKeyUsage=critical,timeStamping',
      '-addext',
      'keyUsage=critical,digitalSignature',
      '-addext',
      'basicConstraints=critical,CA:FALSE',
    ]),
  );
  await fs.promises.writeFile(file('serial'), '01\n');
  await fs.promises.writeFile(
    file('tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = local',
      '[ local ]',
      `serial = ${file('serial')}`,
      `signer_cert = ${file('tsa.pem')}`,
      `certs = ${file('tsa.pem')}`,
      `signer_key = ${file('tsa.key')}`,
    ]
      .concat([
        'signer_digest = sha256',
        'default_policy = 1.2.3.4.1',
        'digests = sha256',
        'accuracy = secs:1',
        'ess_cert_id_alg = sha256',
        'ordering = no',
        'tsa_name = no',
        'ess_cert_id_chain = no',
      ])
      .join('\n'),
  );
  const server = http.createServer((request, response) => {
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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    certificatePem: await fs.promises.readFile(file('tsa.pem'), 'utf8'),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An OCSP response (DER) from OpenSSL, signed by the platform CA itself, about `certificatePem`. */
export async function createOcspResponse(directory: string, ca: PlatformCa, certificatePem: string, status: { revokedAt?: Date } = {}): Promise<Buffer> {
  const file = (name: string) => path.join(directory, name);
  const id = randomBytes(4).toString('hex');
  await fs.promises.writeFile(file('ca.pem'), ca.certificatePem);
  await fs.promises.writeFile(file('ca.key'), ca.privateKeyPem, { mode: 0o600 });
  await fs.promises.writeFile(file(`${id}-leaf.pem`), certificatePem);
  const certificate = new X509Certificate(certificatePem);
  const stamp = (date: Date) => `${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`;
  const subject = `/${certificate.subject.split('\n').join('/')}`;
  const line = status.revokedAt
    ? ['R', stamp(new Date(certificate.validTo)), stamp(status.revokedAt), certificate.serialNumber.toUpperCase(), 'unknown', subject]
    : ['V', stamp(new Date(certificate.validTo)), '', certificate.serialNumber.toUpperCase(), 'unknown', subject];
  await fs.promises.writeFile(file(`${id}-index.txt`), `${line.join('\t')}\n`);
  await run('openssl', ['ocsp', '-issuer', file('ca.pem'), '-cert', file(`${id}-leaf.pem`), '-reqout', file(`${id}-req.der`), '-no_nonce']);
  await run('openssl', [
    'ocsp',
    '-index',
    file(`${id}-index.txt`),
    '-rsigner',
    file('ca.pem'),
    '-rkey',
    file('ca.key'),
    '-CA',
    file('ca.pem'),
    '-reqin',
    file(`${id}-req.der`),
    '-respout',
    file(`${id}-resp.der`),
    '-ndays',
    '1',
  ]);
  return fs.promises.readFile(file(`${id}-resp.der`));
}

const derOfPem = (pem: string) => Buffer.from(new X509Certificate(pem).raw);

/** Appends a revision holding a /DSS (certificates and OCSP responses) to a signed PDF, with the sealing code's appendDss (PAdES B-LT). */
export function appendDocumentSecurityStore(pdf: Buffer, store: { certificatePems: string[]; ocsps: Buffer[] }): Promise<Buffer> {
  return appendDss(pdf, { certificates: store.certificatePems.map(derOfPem), ocspResponses: store.ocsps, crls: [] });
}

export interface ArchiveScenario {
  files: ArchiveFile[];
  notary: ArchiveNotary;
  signer: SigningCredentials;
  ca: PlatformCa;
  credentials: SigningCredentials;
  paths: {
    plainPdf: string;
    timestampedPdf: string;
    longTermPdf: string;
    segment: string;
    segmentIndex: string;
    jobAudit: string;
    accountAudit: string;
    notaryCertificate: string;
  };
}

/**
 * A realistic archive's files: the platform CA, the notary's certificate, three sealed PDFs (B-B,
 * B-T through a local TSA, B-LT with a DSS holding the CA's OCSP answer), a job's and the
 * account's audit trails written through appendAuditEvent, two recording segments and their index.
 */
export async function createArchiveScenario(
  db: Db,
  secretsKey: Buffer,
  notaryIdentity: NotaryIdentity,
  workDirectory: string,
  tsaUrl: string,
): Promise<ArchiveScenario> {
  const ca = await getOrCreatePlatformCa(db, secretsKey);
  const credentials = await getOrIssueNotaryCredentials(db, secretsKey, notaryIdentity);
  const signer = await getOrIssuePlatformSignerCredentials(db, secretsKey);
  const jobId = randomUUID();
  const info = { reason: 'Acknowledgment (remote online notarization)', location: 'Travis, TX', name: notaryIdentity.name, contactInfo: notaryIdentity.email };
  const plain = await signPdf(await makePdf(2, 'Deed of trust'), credentials, info);
  const timestamped = await signPdf(await makePdf(1, 'Affidavit'), credentials, { ...info, timestampUrl: tsaUrl });
  const longTermSigned = await signPdf(await makePdf(1, 'Power of attorney'), credentials, { ...info, timestampUrl: tsaUrl });
  const ocsp = await createOcspResponse(workDirectory, ca, credentials.certificatePem);
  const longTerm = await appendDocumentSecurityStore(longTermSigned, { certificatePems: [credentials.certificatePem, ca.certificatePem], ocsps: [ocsp] });

  const ctx = { db, user: null, apiKey: null, ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (test)' };
  const jobScope = `job:${jobId}`;
  await appendAuditEvent(ctx, { scope: jobScope, action: 'job.created', data: { title: 'Refinance' } });
  await appendAuditEvent(ctx, { scope: jobScope, action: 'recording.segment_saved', data: { bytes: 2048, nested: { b: 1, a: [1, 'two'] } } });
  await appendAuditEvent(ctx, { scope: jobScope, action: 'document.notarized', data: { documentName: 'Deed of trust' } });
  const accountScope = `archive-test:${randomUUID()}`;
  await appendAuditEvent(ctx, { scope: accountScope, action: 'job.created', data: { note: 'account event' } });

  const segments = [randomBytes(20_000), randomBytes(7_000)].map((bytes, index) => ({ id: randomUUID(), bytes, index }));
  const folder = `jobs/${jobId}/recordings`;
  const segmentIndex = Buffer.from(
    JSON.stringify(
      segments.map((segment) => ({
        id: segment.id,
        participantName: 'Sam Signer',
        participantRole: 'signer',
        trackKind: segment.index === 0 ? 'video' : 'audio',
        startedAt: new Date(Date.now() - 60_000).toISOString(),
        endedAt: new Date().toISOString(),
        sizeBytes: segment.bytes.length,
        sha256: sha256Hex(segment.bytes),
        path: `${folder}/${segment.id}.webm`,
      })),
      null,
      2,
    ),
  );
  const documents = `jobs/${jobId}/documents`;
  const paths = {
    plainPdf: `${documents}/${randomUUID()}.pdf`,
    timestampedPdf: `${documents}/${randomUUID()}.pdf`,
    longTermPdf: `${documents}/${randomUUID()}.pdf`,
    segment: `${folder}/${segments[0]?.id}.webm`,
    segmentIndex: `${folder}/segments.json`,
    jobAudit: `jobs/${jobId}/audit.json`,
    accountAudit: 'account/audit.json',
    notaryCertificate: `certificates/${credentials.credentialId}.pem`,
  };
  const files: ArchiveFile[] = [
    {
      path: 'README.txt',
      kind: 'readme',
      bytes: Buffer.from('This is a notary archive. Verify it with npx open-ron-verify <file> or the /verify-archive page.\n'),
    },
    { path: 'certificates/platform-ca.pem', kind: 'certificate', bytes: Buffer.from(ca.certificatePem) },
    { path: paths.notaryCertificate, kind: 'certificate', bytes: Buffer.from([credentials.certificatePem, ...credentials.chainPems].join('\n')) },
    { path: 'journal/entries.json', kind: 'journal', bytes: Buffer.from('[]') },
    { path: `jobs/${jobId}/job.json`, kind: 'job', jobId, bytes: Buffer.from(JSON.stringify({ id: jobId, title: 'Refinance', state: 'completed' })) },
    { path: paths.jobAudit, kind: 'audit_trail', jobId, bytes: await exportAuditTrail(db, jobScope) },
    { path: paths.plainPdf, kind: 'notarized_document', jobId, title: 'Deed of trust', bytes: plain },
    { path: paths.timestampedPdf, kind: 'notarized_document', jobId, title: 'Affidavit', bytes: timestamped },
    { path: paths.longTermPdf, kind: 'notarized_document', jobId, title: 'Power of attorney', bytes: longTerm },
    ...segments.map((segment) => ({ path: `${folder}/${segment.id}.webm`, kind: 'recording_segment' as const, jobId, bytes: segment.bytes })),
    { path: paths.segmentIndex, kind: 'recording_index', jobId, bytes: segmentIndex },
    { path: paths.accountAudit, kind: 'account_audit', bytes: await exportAuditTrail(db, accountScope) },
  ];
  return {
    files,
    notary: {
      id: notaryIdentity.userId,
      name: notaryIdentity.name,
      commissionState: notaryIdentity.commissionState,
      commissionNumber: notaryIdentity.commissionNumber,
    },
    signer,
    ca,
    credentials,
    paths,
  };
}
