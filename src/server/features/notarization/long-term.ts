import { createHash, X509Certificate } from 'node:crypto';
import type { DbOrTx } from '#server/db/client.ts';
import { appendDocumentTimestamp, appendDss, type ValidationData } from '#server/providers/signing/pades.ts';
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
  /** Sentences naming the certificates whose validation data could not be had (then the level stays B-B or B-T). */
  missing: string[];
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

/** Validation data for several chains (each leaf first), gathered into one DSS. */
export async function collectChainsValidationData(deps: LongTermDeps, chains: string[][]): Promise<ValidationData & { missing: string[] }> {
  const gathered: ValidationData & { missing: string[] } = { certificates: [], ocspResponses: [], crls: [], missing: [] };
  for (const chain of chains) {
    if (chain.length === 0) continue;
    const data = await collectValidationData(deps.db, deps.secretsKey, chain, deps.fetch ? { fetch: deps.fetch } : undefined);
    addUnique(gathered.certificates, data.certificates);
    addUnique(gathered.ocspResponses, data.ocspResponses);
    addUnique(gathered.crls, data.crls);
    for (const sentence of data.missing) if (!gathered.missing.includes(sentence)) gathered.missing.push(sentence);
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
  if (!deps.tsaUrl) return { pdf, level: isLongTerm ? 'B-LT' : baseLevel, missing: data.missing, archiveTimestampExpiresAt: null };
  // The archive timestamp is added even when some validation data is missing: it still fixes when
  // the rest existed. The level then stays what the signature reached on its own.
  const archived = await appendDocumentTimestamp(pdf, deps.tsaUrl);
  pdf = archived.pdf;
  return {
    pdf,
    level: isLongTerm ? 'B-LTA' : baseLevel,
    missing: data.missing,
    archiveTimestampExpiresAt: readTimestampAuthority(archived.token).notAfter,
  };
}

export interface RenewedArchive {
  pdf: Buffer;
  archiveTimestampExpiresAt: Date;
  missing: string[];
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
  return { pdf: archived.pdf, archiveTimestampExpiresAt: readTimestampAuthority(archived.token).notAfter, missing: data.missing };
}
