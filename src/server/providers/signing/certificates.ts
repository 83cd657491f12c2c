import { createHash, createPublicKey, generateKeyPair, randomBytes, sign as signWithKey, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { and, asc, desc, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import forge from 'node-forge';
import type { DbOrTx } from '#server/db/client.ts';
import { signingCredentials } from '#server/db/schema/index.ts';
import { conflict } from '#server/lib/errors.ts';
import { decryptSecret, encryptSecret } from '#server/lib/secrets.ts';
import { readChildren, readTlv } from './der.ts';
import { buildRevocationExtensions, getPkiPublicUrl, namesRevocationSources } from './pki-sources.ts';

/** What a signer needs: the leaf certificate and key, and the certificates up to the root. */
export interface SigningCredentials {
  credentialId: string;
  certificatePem: string;
  privateKeyPem: string;
  /** Issuer certificates, nearest first (for platform certificates: the platform CA; for uploaded ones: the file's chain). */
  chainPems: string[];
  /** The certificate's serial number, hex. */
  serialNumber: string;
  subject: string;
  notAfter?: Date;
}

export interface PlatformCa {
  credentialId: string;
  certificatePem: string;
  privateKeyPem: string;
}

export interface NotaryIdentity {
  userId: string;
  name: string;
  email: string;
  commissionState: string;
  commissionNumber: string;
  /** YYYY-MM-DD; the certificate expires at the end of that day (UTC), at most five years ahead. */
  commissionExpiresOn: string;
}

/** Where issued certificates send a verifier for revocation data; buildApp records the deployment's PUBLIC_URL. */
export interface IssueOptions {
  /** Overrides the PUBLIC_URL buildApp recorded (tests, a second deployment's keys). */
  publicUrl?: string;
}

/**
 * A certificate the CA issued may be reused only if it names this deployment's OCSP responder and
 * CRL: one issued before they existed, or under another PUBLIC_URL, is replaced on next use (decision 057).
 */
function isNamingRevocationSources(certificatePem: string, publicUrl: string | null): boolean {
  return publicUrl === null || namesRevocationSources(certificatePem, publicUrl);
}

const revocationExtensions = (publicUrl: string | null) => (publicUrl === null ? [] : buildRevocationExtensions(publicUrl));

export const platformCaCommonName = 'Open RON Platform CA';
export const notaryOrganization = 'Open RON notary';
/** Microsoft "document signing" extended key usage. */
export const documentSigningOid = '1.3.6.1.4.1.311.10.3.12';

const caKeyBits = 3072;
const caValidityYears = 20;
const notaryMaximumValidityYears = 5;
/** Backdating notBefore absorbs clock skew between this server and a verifier. */
const clockSkewMs = 10 * 60 * 1000;
/** A certificate about to expire is not handed out for a new signature. */
const minimumRemainingMs = 60 * 60 * 1000;

const sha256WithRsaOid = '1.2.840.113549.1.1.11';
const subjectKeyIdentifierOid = '2.5.29.14';
const utf8 = forge.asn1.Type.UTF8 as unknown as forge.asn1.Class;
const ia5 = forge.asn1.Type.IA5STRING as unknown as forge.asn1.Class;
const printable = forge.asn1.Type.PRINTABLESTRING as unknown as forge.asn1.Class;

type CredentialRow = typeof signingCredentials.$inferSelect;

const generateKeyPairAsync = promisify(generateKeyPair);

async function generateRsaKeyPair(bits: number): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/**
 * The key of a certificate that signs documents (a notary's, the platform signer's): ECDSA P-256
 * (decision 065). Its signature takes a tenth of RSA 2048's time and room; PAdES, pdfsig (NSS),
 * Acrobat and our verifier accept it. The platform CA stays RSA 3072.
 */
async function generateSigningKeyPair(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generateKeyPairAsync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: privateKey };
}

/** A positive, non-zero 128-bit serial (RFC 5280 allows up to 20 octets). */
function createSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

interface NameAttribute {
  label: string;
  field: forge.pki.CertificateField;
}

function nameAttribute(label: string, type: string, value: string, tag: forge.asn1.Class = utf8): NameAttribute {
  return { label, field: { type, value, valueTagClass: tag } };
}

function formatDistinguishedName(attributes: NameAttribute[]): string {
  return attributes.map(({ label, field }) => `${label}=${String(field.value).replace(/([,+"\\<>;=])/g, '\\$1')}`).join(', ');
}

function addYears(date: Date, years: number): Date {
  const result = new Date(date);
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}

function buildCertificate(options: {
  subject: NameAttribute[];
  issuer: forge.pki.CertificateField[] | null;
  publicKeyPem: string;
  signingKeyPem: string;
  notBefore: Date;
  notAfter: Date;
  extensions: object[];
}): { pem: string; serialNumber: string } {
  const certificate = forge.pki.createCertificate();
  certificate.version = 2;
  certificate.serialNumber = createSerialNumber();
  // forge writes RSA keys only: its TBS is built around a stand-in RSA key whose SubjectPublicKeyInfo
  // is then replaced by the real one (RSA or EC, DER from node:crypto), and the subject key
  // identifier is computed here from the real key's bits (RFC 5280 4.2.1.2 method 1, as forge and
  // OpenSSL compute it for RSA).
  const spki = createPublicKey(options.publicKeyPem).export({ type: 'spki', format: 'der' });
  const spkiAsn1 = forge.asn1.fromDer(spki.toString('binary'));
  const keyBits = readChildren(spki, readTlv(spki, 0))[1];
  if (keyBits?.tag !== 0x03) throw new Error('the public key has no key bits');
  // The BIT STRING's value without its unused-bits octet.
  const keyIdentifier = createHash('sha1')
    .update(spki.subarray(keyBits.start + 1, keyBits.end))
    .digest('binary');
  certificate.publicKey = forge.pki.setRsaPublicKey(new forge.jsbn.BigInteger('3'), new forge.jsbn.BigInteger('3'));
  certificate.validity.notBefore = options.notBefore;
  certificate.validity.notAfter = options.notAfter;
  const subject = options.subject.map((attribute) => attribute.field);
  certificate.setSubject(subject);
  certificate.setIssuer(options.issuer ?? subject);
  certificate.setExtensions(
    options.extensions.map((extension) =>
      (extension as { name?: string }).name === 'subjectKeyIdentifier'
        ? { id: subjectKeyIdentifierOid, value: forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.OCTETSTRING, false, keyIdentifier) }
        : extension,
    ),
  );
  // What forge's certificate.sign() does, with node:crypto's RSA (forge's is ~1 s for a 3072-bit key).
  certificate.signatureOid = sha256WithRsaOid;
  certificate.siginfo.algorithmOid = sha256WithRsaOid;
  certificate.md = forge.md.sha256.create();
  certificate.tbsCertificate = (forge.pki as unknown as { getTBSCertificate(value: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(certificate);
  // version, serial, signature, issuer, validity, subject, then the SubjectPublicKeyInfo.
  (certificate.tbsCertificate.value as forge.asn1.Asn1[])[6] = spkiAsn1;
  const tbs = Buffer.from(forge.asn1.toDer(certificate.tbsCertificate).getBytes(), 'binary');
  certificate.signature = signWithKey('sha256', tbs, options.signingKeyPem).toString('binary');
  return { pem: forge.pki.certificateToPem(certificate), serialNumber: certificate.serialNumber };
}

function decryptPrivateKey(row: CredentialRow, secretsKey: Buffer): string {
  try {
    return decryptSecret(secretsKey, row.privateKeyEncrypted);
  } catch (error) {
    throw new Error(
      `The ${row.kind === 'platform_ca' ? 'platform CA' : 'notary'} signing key ${row.id} cannot be decrypted: was SECRETS_KEY (or DATA_DIR/secrets.key) changed?`,
      { cause: error },
    );
  }
}

function toPlatformCa(row: CredentialRow, secretsKey: Buffer): PlatformCa {
  return { credentialId: row.id, certificatePem: row.certificatePem, privateKeyPem: decryptPrivateKey(row, secretsKey) };
}

async function findUsableCa(db: DbOrTx): Promise<CredentialRow | undefined> {
  const [row] = await db
    .select()
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.kind, 'platform_ca'),
        isNull(signingCredentials.revokedAt),
        gt(signingCredentials.notAfter, new Date(Date.now() + minimumRemainingMs)),
      ),
    )
    .orderBy(asc(signingCredentials.createdAt))
    .limit(1);
  return row;
}

function buildCaCertificate(keys: { publicKeyPem: string; privateKeyPem: string }, now: Date) {
  const notBefore = new Date(now.getTime() - clockSkewMs);
  const notAfter = addYears(now, caValidityYears);
  const subject = [
    nameAttribute('CN', '2.5.4.3', platformCaCommonName),
    nameAttribute('O', '2.5.4.10', 'Open RON'),
    nameAttribute('C', '2.5.4.6', 'US', printable),
  ];
  const certificate = buildCertificate({
    subject,
    issuer: null,
    publicKeyPem: keys.publicKeyPem,
    signingKeyPem: keys.privateKeyPem,
    notBefore,
    notAfter,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ],
  });
  return { ...certificate, subject: formatDistinguishedName(subject), notBefore, notAfter };
}

/** Calls in flight per database handle, so concurrent first calls in one process make one key. */
const pendingCas = new WeakMap<object, Promise<PlatformCa>>();

/**
 * The platform CA, created on first call (RSA 3072, self-signed, 20 years) with its key encrypted
 * under `secretsKey`. Safe under concurrency: creation runs under a transaction-scoped advisory
 * lock and re-checks, so two processes never store two CAs. The key is generated before the
 * transaction opens, so the lock is held for milliseconds. Call it outside a transaction.
 */
export async function getOrCreatePlatformCa(db: DbOrTx, secretsKey: Buffer): Promise<PlatformCa> {
  const existing = await findUsableCa(db);
  if (existing) return toPlatformCa(existing, secretsKey);
  const pending = pendingCas.get(db);
  if (pending) return pending;
  const creation = createPlatformCa(db, secretsKey).finally(() => pendingCas.delete(db));
  pendingCas.set(db, creation);
  return creation;
}

async function createPlatformCa(db: DbOrTx, secretsKey: Buffer): Promise<PlatformCa> {
  const keys = await generateRsaKeyPair(caKeyBits);
  const candidate = buildCaCertificate(keys, new Date());
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('platform_ca'))`);
    const raced = await findUsableCa(tx);
    if (raced) return toPlatformCa(raced, secretsKey);
    const [row] = await tx
      .insert(signingCredentials)
      .values({
        kind: 'platform_ca',
        userId: null,
        certificatePem: candidate.pem,
        privateKeyEncrypted: encryptSecret(secretsKey, keys.privateKeyPem),
        serialNumber: candidate.serialNumber,
        subject: candidate.subject,
        notBefore: candidate.notBefore,
        notAfter: candidate.notAfter,
        source: 'platform',
      })
      .returning();
    if (!row) throw new Error('the platform CA was not stored');
    return toPlatformCa(row, secretsKey);
  });
}

function notarySubject(notary: NotaryIdentity): NameAttribute[] {
  return [
    nameAttribute('CN', '2.5.4.3', notary.name.trim()),
    nameAttribute('O', '2.5.4.10', notaryOrganization),
    nameAttribute('T', '2.5.4.12', 'Notary Public'),
    nameAttribute('ST', '2.5.4.8', notary.commissionState.trim()),
    nameAttribute('C', '2.5.4.6', 'US', printable),
    // serialNumber (2.5.4.5) carries the commission number; PrintableString where it fits.
    nameAttribute(
      'serialNumber',
      '2.5.4.5',
      notary.commissionNumber.trim(),
      /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(notary.commissionNumber.trim()) ? printable : utf8,
    ),
    nameAttribute('emailAddress', '1.2.840.113549.1.9.1', notary.email.trim().toLowerCase(), ia5),
  ];
}

/** End of the commission's last day (UTC), capped at five years from now; throws when already past. */
function getNotaryNotAfter(commissionExpiresOn: string, now: Date): Date {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(commissionExpiresOn)) throw new Error(`commissionExpiresOn must be YYYY-MM-DD, got "${commissionExpiresOn}"`);
  const endOfCommission = new Date(`${commissionExpiresOn}T23:59:59Z`);
  if (Number.isNaN(endOfCommission.getTime())) throw new Error(`commissionExpiresOn is not a date: "${commissionExpiresOn}"`);
  if (endOfCommission.getTime() <= now.getTime() + minimumRemainingMs) {
    throw conflict(`The notary commission expired on ${commissionExpiresOn}; update the commission before notarizing.`);
  }
  const cap = addYears(now, notaryMaximumValidityYears);
  return endOfCommission < cap ? endOfCommission : cap;
}

function isIssuedBy(certificatePem: string, caCertificatePem: string): boolean {
  try {
    const ca = new X509Certificate(caCertificatePem);
    const certificate = new X509Certificate(certificatePem);
    return certificate.checkIssued(ca) && certificate.verify(ca.publicKey);
  } catch {
    return false;
  }
}

async function findReusableNotaryCredential(
  db: DbOrTx,
  userId: string,
  subject: string,
  latestNotAfter: Date,
  caCertificatePem: string,
  publicUrl: string | null,
) {
  const rows = await db
    .select()
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.kind, 'notary'),
        eq(signingCredentials.userId, userId),
        eq(signingCredentials.source, 'platform'),
        eq(signingCredentials.subject, subject),
        isNull(signingCredentials.revokedAt),
        gt(signingCredentials.notAfter, new Date(Date.now() + minimumRemainingMs)),
      ),
    )
    .orderBy(desc(signingCredentials.createdAt))
    .limit(5);
  // A certificate outliving a shortened commission is not reused; nor one from another CA.
  return rows.find(
    (row) =>
      row.notAfter.getTime() <= latestNotAfter.getTime() + 1000 &&
      isIssuedBy(row.certificatePem, caCertificatePem) &&
      isNamingRevocationSources(row.certificatePem, publicUrl),
  );
}

const platformSignerCommonName = 'Open RON platform (records custodian)';
const platformSignerValidityYears = 2;

/**
 * The platform's own signing certificate, issued by the platform CA, for records it hands out as
 * their custodian (a journal export when the notary has no live certificate). Created on first call
 * and reused while it has more than an hour left and comes from the current CA. Call it outside a
 * transaction (a new key takes ~0.2-1 s).
 */
export async function getOrIssuePlatformSignerCredentials(db: DbOrTx, secretsKey: Buffer, options: IssueOptions = {}): Promise<SigningCredentials> {
  const publicUrl = options.publicUrl ?? getPkiPublicUrl();
  const ca = await getOrCreatePlatformCa(db, secretsKey);
  const findLive = async (source: DbOrTx) =>
    (
      await source
        .select()
        .from(signingCredentials)
        .where(
          and(
            eq(signingCredentials.kind, 'platform_signer'),
            isNull(signingCredentials.revokedAt),
            gt(signingCredentials.notAfter, new Date(Date.now() + minimumRemainingMs)),
          ),
        )
        .orderBy(desc(signingCredentials.createdAt))
        .limit(5)
    ).find((row) => isIssuedBy(row.certificatePem, ca.certificatePem) && isNamingRevocationSources(row.certificatePem, publicUrl));
  const existing = await findLive(db);
  if (existing) return toSigningCredentials(existing, ca, secretsKey);
  const keys = await generateSigningKeyPair();
  const caCertificate = forge.pki.certificateFromPem(ca.certificatePem);
  const now = new Date();
  const notBefore = new Date(now.getTime() - clockSkewMs);
  const notAfter = addYears(now, platformSignerValidityYears);
  const subjectAttributes = [
    nameAttribute('CN', '2.5.4.3', platformSignerCommonName),
    nameAttribute('O', '2.5.4.10', 'Open RON'),
    nameAttribute('C', '2.5.4.6', 'US', printable),
  ];
  const certificate = buildCertificate({
    subject: subjectAttributes,
    issuer: caCertificate.subject.attributes,
    publicKeyPem: keys.publicKeyPem,
    signingKeyPem: ca.privateKeyPem,
    notBefore,
    notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
      // NSS (pdfsig) checks a PDF signer as an e-mail signer: emailProtection must be among the usages.
      { name: 'extKeyUsage', emailProtection: true, [documentSigningOid]: true },
      { name: 'subjectKeyIdentifier' },
      { name: 'authorityKeyIdentifier', keyIdentifier: caCertificate.generateSubjectKeyIdentifier().getBytes() },
      ...revocationExtensions(publicUrl),
    ],
  });
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('platform_signer'))`);
    const raced = await findLive(tx);
    if (raced) return toSigningCredentials(raced, ca, secretsKey);
    const [row] = await tx
      .insert(signingCredentials)
      .values({
        kind: 'platform_signer',
        userId: null,
        certificatePem: certificate.pem,
        privateKeyEncrypted: encryptSecret(secretsKey, keys.privateKeyPem),
        serialNumber: certificate.serialNumber,
        subject: formatDistinguishedName(subjectAttributes),
        notBefore,
        notAfter,
        source: 'platform',
      })
      .returning();
    if (!row) throw new Error('the platform signing credential was not stored');
    return toSigningCredentials(row, ca, secretsKey);
  });
}

/** Holds, until the transaction ends, every change to one notary's signing credentials. */
export async function lockNotaryCredentials(tx: DbOrTx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`notary_credentials:${userId}`}))`);
}

/** The certificates of a concatenated PEM text, in order. */
export function splitPemCertificates(text: string | null): string[] {
  return (text ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((pem) => `${pem}\n`) ?? [];
}

/** The notary's uploaded certificate if one is live: not revoked, already valid, and not about to expire. */
export async function findUploadedCredential(db: DbOrTx, userId: string): Promise<CredentialRow | undefined> {
  const now = new Date();
  const [row] = await db
    .select()
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.kind, 'notary'),
        eq(signingCredentials.userId, userId),
        eq(signingCredentials.source, 'uploaded'),
        isNull(signingCredentials.revokedAt),
        lte(signingCredentials.notBefore, now),
        gt(signingCredentials.notAfter, new Date(now.getTime() + minimumRemainingMs)),
      ),
    )
    .orderBy(desc(signingCredentials.createdAt))
    .limit(1);
  return row;
}

function toSigningCredentials(row: CredentialRow, ca: PlatformCa, secretsKey: Buffer): SigningCredentials {
  return {
    credentialId: row.id,
    certificatePem: row.certificatePem,
    privateKeyPem: decryptPrivateKey(row, secretsKey),
    chainPems: [ca.certificatePem],
    serialNumber: row.serialNumber,
    subject: row.subject,
    notAfter: row.notAfter,
  };
}

function toUploadedSigningCredentials(row: CredentialRow, secretsKey: Buffer): SigningCredentials {
  return {
    credentialId: row.id,
    certificatePem: row.certificatePem,
    privateKeyPem: decryptPrivateKey(row, secretsKey),
    chainPems: splitPemCertificates(row.chainPem),
    serialNumber: row.serialNumber,
    subject: row.subject,
    notAfter: row.notAfter,
  };
}

/**
 * The certificate the notary signs with: the one they uploaded while it is live; otherwise the
 * platform CA's, created on first call and reused while it is valid and still names the same
 * notary, commission and state. A changed name, email, state or commission number, or a shortened
 * commission, issues a new one. An expired commission refuses either. Call it outside a
 * transaction: a new key takes ~0.2-1 s to generate, and PGlite serves nothing else while a
 * transaction is open.
 */
export async function getOrIssueNotaryCredentials(
  db: DbOrTx,
  secretsKey: Buffer,
  notary: NotaryIdentity,
  options: IssueOptions = {},
): Promise<SigningCredentials> {
  const publicUrl = options.publicUrl ?? getPkiPublicUrl();
  const now = new Date();
  const notAfter = getNotaryNotAfter(notary.commissionExpiresOn, now);
  const uploaded = await findUploadedCredential(db, notary.userId);
  if (uploaded) return toUploadedSigningCredentials(uploaded, secretsKey);
  const ca = await getOrCreatePlatformCa(db, secretsKey);
  const subjectAttributes = notarySubject(notary);
  const subject = formatDistinguishedName(subjectAttributes);
  const existing = await findReusableNotaryCredential(db, notary.userId, subject, notAfter, ca.certificatePem, publicUrl);
  if (existing) return toSigningCredentials(existing, ca, secretsKey);

  const keys = await generateSigningKeyPair();
  const caCertificate = forge.pki.certificateFromPem(ca.certificatePem);
  const notBefore = new Date(now.getTime() - clockSkewMs);
  const certificate = buildCertificate({
    subject: subjectAttributes,
    issuer: caCertificate.subject.attributes,
    publicKeyPem: keys.publicKeyPem,
    signingKeyPem: ca.privateKeyPem,
    notBefore,
    notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
      { name: 'extKeyUsage', emailProtection: true, [documentSigningOid]: true },
      { name: 'subjectAltName', altNames: [{ type: 1, value: notary.email.trim().toLowerCase() }] },
      { name: 'subjectKeyIdentifier' },
      { name: 'authorityKeyIdentifier', keyIdentifier: caCertificate.generateSubjectKeyIdentifier().getBytes() },
      ...revocationExtensions(publicUrl),
    ],
  });

  return db.transaction(async (tx) => {
    await lockNotaryCredentials(tx, notary.userId);
    const raced = await findReusableNotaryCredential(tx, notary.userId, subject, notAfter, ca.certificatePem, publicUrl);
    if (raced) return toSigningCredentials(raced, ca, secretsKey);
    const [row] = await tx
      .insert(signingCredentials)
      .values({
        kind: 'notary',
        userId: notary.userId,
        certificatePem: certificate.pem,
        privateKeyEncrypted: encryptSecret(secretsKey, keys.privateKeyPem),
        serialNumber: certificate.serialNumber,
        subject,
        notBefore,
        notAfter,
        source: 'platform',
      })
      .returning();
    if (!row) throw new Error('the notary credential was not stored');
    return toSigningCredentials(row, ca, secretsKey);
  });
}
