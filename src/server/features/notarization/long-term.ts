import { createHash, X509Certificate } from 'node:crypto';
import type { DbOrTx } from '#server/db/client.ts';
import { appendDocumentTimestamp, appendDss, type ValidationData } from '#server/providers/signing/pades.ts';
import { readRevocationSources } from '#server/providers/signing/pki-sources.ts';
import { collectValidationData } from '#server/providers/signing/revocation.ts';
import { findEmbeddedSignatures, readSignatureTimestampToken, readSignerChain, toPem } from '#server/providers/signing/signed-pdf.ts';

/**
 * Long-term validation of a sealed PDF (decision 058). A PAdES signature checks out years later
 * only if the document itself carries what a verifier then needs: every certificate of the chain and
 * an OCSP response or CRL for each, fetched while the certificates were good (the DSS, PAdES B-LT).
 * With a time-stamping authority, a document timestamp over all of it (B-LTA) proves when that
 * evidence existed; it is renewed before its TSA certificate expires (tasks/archive-timestamp-renewal.ts).
 * Everything here is appended as incremental revisions: the signature's bytes never change.
 */

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface LongTermDeps {
  db: DbOrTx;
  secretsKey: Buffer;
  tsaUrl: string | null;
  /** How OCSP responders and CRL distribution points are reached (tests hand in the app's own routes). */
  fetch?: typeof fetch;
}

export interface LongTermResult {
  pdf: Buffer;
  /** The level the file reaches: B-LT only when every certificate has its validation data. */
  level: PadesLevel;
  /** Sentences naming the certificates whose published validation data could not be had (then the level stays B-B or B-T). */
  missing: string[];
  /** Sentences naming the certificates whose issuer publishes no revocation status (nothing to embed; the level is kept). */
  unpublished: string[];
  /** The archive timestamp's TSA certificate's notAfter; null without an archive timestamp. */
  archiveTimestampExpiresAt: Date | null;
}

function addUnique(into: Buffer[], items: Buffer[]): void {
  const seen = new Set(into.map((item) => createHash('sha256').update(item).digest('hex')));
  for (const item of items) {
    const key = createHash('sha256').update(item).digest('hex');
    if (!seen.has(key)) {
      seen.add(key);
      into.push(item);
    }
  }
}

export interface GatheredValidationData extends ValidationData {
  /** Sentences: a certificate whose published revocation status could not be had. These lower the level. */
  missing: string[];
  /** Sentences: a certificate whose issuer publishes no OCSP responder nor CRL: there is nothing to embed. */
  unpublished: string[];
}

/**
 * Validation data for several chains (each leaf first), gathered into one DSS. Each certificate is
 * asked for on its own (with its issuer), so what could not be had is known per certificate: a
 * certificate whose issuer publishes no revocation status at all (a TSA of a closed network, a
 * notary's PKCS#12 from such an issuer) has nothing that could be embedded, which is said but is not
 * a gap; a published status that could not be fetched is a gap.
 */
export async function collectChainsValidationData(deps: LongTermDeps, chains: string[][]): Promise<GatheredValidationData> {
  const gathered: GatheredValidationData = { certificates: [], ocspResponses: [], crls: [], missing: [], unpublished: [] };
  const options = deps.fetch ? { fetch: deps.fetch } : undefined;
  for (const chain of chains) {
    for (let index = 0; index < chain.length; index += 1) {
      const data = await collectValidationData(deps.db, deps.secretsKey, chain.slice(index, index + 2), options);
      addUnique(gathered.certificates, data.certificates);
      addUnique(gathered.ocspResponses, data.ocspResponses);
      addUnique(gathered.crls, data.crls);
      if (data.missing.length === 0) continue;
      const certificate = new X509Certificate(chain[index] as string);
      const issuerPem = chain[index + 1];
      const sources = readRevocationSources(certificate.raw);
      const isPublished = [...sources.ocspUrls, ...sources.crlUrls].some((url) => /^https?:\/\//i.test(url));
      const hasIssuer = issuerPem !== undefined && certificate.checkIssued(new X509Certificate(issuerPem));
      const bucket = isPublished || !hasIssuer ? gathered.missing : gathered.unpublished;
      for (const sentence of data.missing) if (!bucket.includes(sentence)) bucket.push(sentence);
    }
  }
  return gathered;
}

/** The chain (leaf first, PEM) of a timestamp token's TSA, and when its certificate expires. */
export function readTimestampAuthority(token: Buffer): { chainPems: string[]; notAfter: Date } {
  const chain = readSignerChain(token);
  const leaf = chain[0] as X509Certificate;
  return { chainPems: chain.map(toPem), notAfter: new Date(leaf.validTo) };
}

/**
 * Makes a freshly signed PDF long-term: the DSS with validation data for the signer's chain (and
 * for the signature timestamp's TSA when the signature is B-T), then, with a TSA, an archive
 * document timestamp. `signerChainPems` is the signer's certificate then its issuers.
 */
export async function extendToLongTerm(deps: LongTermDeps, signed: Buffer, signerChainPems: string[]): Promise<LongTermResult> {
  const signature = findEmbeddedSignatures(signed)
    .filter((item) => item.kind === 'signature')
    .at(-1);
  if (!signature) throw new Error('the PDF carries no signature to make long-term');
  const signatureTimestamp = readSignatureTimestampToken(signature.cms);
  const baseLevel: PadesLevel = signatureTimestamp ? 'B-T' : 'B-B';
  const chains = [signerChainPems];
  if (signatureTimestamp) chains.push(readTimestampAuthority(signatureTimestamp).chainPems);
  const data = await collectChainsValidationData(deps, chains);
  let pdf = await appendDss(signed, { certificates: data.certificates, ocspResponses: data.ocspResponses, crls: data.crls });
  const isLongTerm = data.missing.length === 0;
  if (!deps.tsaUrl)
    return { pdf, level: isLongTerm ? 'B-LT' : baseLevel, missing: data.missing, unpublished: data.unpublished, archiveTimestampExpiresAt: null };
  // The archive timestamp is added even when some validation data is missing: it still fixes when
  // the rest existed. The level then stays what the signature reached on its own.
  const archived = await appendDocumentTimestamp(pdf, deps.tsaUrl);
  pdf = archived.pdf;
  return {
    pdf,
    level: isLongTerm ? 'B-LTA' : baseLevel,
    missing: data.missing,
    unpublished: data.unpublished,
    archiveTimestampExpiresAt: readTimestampAuthority(archived.token).notAfter,
  };
}

export interface RenewedArchive {
  pdf: Buffer;
  archiveTimestampExpiresAt: Date;
  missing: string[];
  unpublished: string[];
}

/**
 * Renews the archive timestamp of a long-term PDF (PAdES B-LTA renewal): validation data for the
 * TSA of its last document timestamp goes into the DSS, then a new document timestamp covers it all.
 */
export async function renewArchiveTimestamp(deps: LongTermDeps & { tsaUrl: string }, pdf: Buffer): Promise<RenewedArchive> {
  const previous = findEmbeddedSignatures(pdf)
    .filter((item) => item.kind === 'document_timestamp')
    .at(-1);
  if (!previous) throw new Error('the PDF carries no document timestamp to renew');
  const data = await collectChainsValidationData(deps, [readTimestampAuthority(previous.cms).chainPems]);
  const withDss = await appendDss(pdf, { certificates: data.certificates, ocspResponses: data.ocspResponses, crls: data.crls });
  const archived = await appendDocumentTimestamp(withDss, deps.tsaUrl);
  return {
    pdf: archived.pdf,
    archiveTimestampExpiresAt: readTimestampAuthority(archived.token).notAfter,
    missing: data.missing,
    unpublished: data.unpublished,
  };
}
