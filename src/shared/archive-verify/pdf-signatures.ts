import { isSelfIssued, parseCertificate, possessiveHolder, uniqueCertificates, type Certificate } from './certificates.ts';
import { parseSignedData, verifySignedData, verifyTimestampToken, type TimestampVerification } from './cms.ts';
import { findSignatureFields, getName, readDocumentSecurityStore, readPdf, type DocumentSecurityStore, type PdfSignatureField } from './pdf.ts';
import { checkRevocation, readRevocationData, type RevocationEvidence } from './revocation.ts';
import type { Finding } from './report.ts';
import { formatUtcTime, plural } from './words.ts';

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
const levels: PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

const messageOf = (error: unknown) => (error instanceof Error ? error.message : 'it is malformed');

function joinProblems(problems: string[]): string {
  const unique = [...new Set(problems)];
  return unique.length <= 1 ? (unique[0] ?? 'it does not verify') : `${unique.slice(0, -1).join('; ')} and ${unique[unique.length - 1]}`;
}

/** Whether the ByteRange covers the whole file but exactly the /Contents string. */
function checkByteRange(field: PdfSignatureField, size: number): string | null {
  const [start, firstLength, secondStart, secondLength] = field.byteRange;
  if (
    field.byteRange.length !== 4 ||
    [start, firstLength, secondStart, secondLength].some((value) => value === undefined || !Number.isInteger(value) || (value as number) < 0)
  ) {
    return 'its /ByteRange is not four whole numbers';
  }
  if (start !== 0) return 'its signed range does not start at the beginning of the file';
  if ((firstLength as number) !== field.contentsStart || (secondStart as number) !== field.contentsEnd)
    return 'its signed range leaves out more than the signature itself';
  if ((secondStart as number) + (secondLength as number) > size) return 'its signed range runs past the end of the file';
  return null;
}

function signedParts(bytes: Uint8Array, field: PdfSignatureField): Uint8Array[] {
  const [start, firstLength, secondStart, secondLength] = field.byteRange as [number, number, number, number];
  return [bytes.subarray(start, start + firstLength), bytes.subarray(secondStart, secondStart + secondLength)];
}

const rangeEnd = (field: PdfSignatureField) => (field.byteRange[2] ?? 0) + (field.byteRange[3] ?? 0);

interface CheckedTimestamp {
  field: PdfSignatureField;
  result: TimestampVerification;
}

/**
 * Checks every signature and document timestamp of one PDF and says which PAdES level it reaches.
 * `archiveCertificates` are the certificates/ files of the archive (trust anchors the person can
 * compare); the DSS adds the chains and revocation data stored in the PDF itself.
 */
export async function verifyPdfSignatures(file: string, bytes: Uint8Array, archiveCertificates: Certificate[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  const fail = (sentence: string) => findings.push({ ok: false, file, sentence });
  const pass = (sentence: string) => findings.push({ ok: true, file, sentence });
  let pdf;
  try {
    pdf = readPdf(bytes);
  } catch (error) {
    fail(`${file} cannot be read as a PDF: ${messageOf(error)}.`);
    return findings;
  }
  const fields = findSignatureFields(pdf);
  if (fields.length === 0) {
    fail(`${file} carries no signature.`);
    return findings;
  }
  let dss: DocumentSecurityStore | null = null;
  try {
    dss = await readDocumentSecurityStore(pdf);
  } catch (error) {
    fail(`The validation data (/DSS) of ${file} cannot be read: ${messageOf(error)}.`);
  }
  const dssCertificates: Certificate[] = [];
  for (const [index, der] of (dss?.certificates ?? []).entries()) {
    try {
      dssCertificates.push(parseCertificate(der));
    } catch (error) {
      fail(`Certificate ${index + 1} in the validation data of ${file} cannot be read: ${messageOf(error)}.`);
    }
  }
  const pool = uniqueCertificates([...archiveCertificates, ...dssCertificates]);
  const evidence: RevocationEvidence = await readRevocationData({ ocsps: dss?.ocsps ?? [], crls: dss?.crls ?? [] }, pool);
  for (const problem of evidence.problems) fail(`In the validation data of ${file}, ${problem}.`);

  // Document timestamps first: a signature without its own timestamp may be proven in time by one that covers it.
  const documentTimestamps: CheckedTimestamp[] = [];
  for (const field of fields.filter((candidate) => candidate.subFilter === 'ETSI.RFC3161')) {
    const rangeProblem = checkByteRange(field, bytes.length);
    const result = rangeProblem
      ? { problems: [rangeProblem], time: null, authority: null, chain: null, certificates: [] }
      : await verifyTimestampToken(field.contents, signedParts(bytes, field), pool, true);
    documentTimestamps.push({ field, result });
    if (result.problems.length === 0 && result.time && result.authority) {
      pass(
        `The document timestamp on ${file} by ${result.authority.holderName} (root ${result.chain?.root?.holderName ?? 'unknown'}) proves the file's first ${plural(rangeEnd(field), 'byte')} existed on ${formatUtcTime(result.time)}.`,
      );
    } else {
      fail(`The document timestamp on ${file} does not hold: ${joinProblems(result.problems)}.`);
    }
  }

  let reached: PadesLevel | null = 'B-LTA';
  let signatureCount = 0;
  for (const field of fields.filter((candidate) => candidate.subFilter !== 'ETSI.RFC3161')) {
    signatureCount++;
    const label = `The signature on ${file}${fields.length > 1 ? ` (the ${ordinal(signatureCount)})` : ''}`;
    const rangeProblem = checkByteRange(field, bytes.length);
    if (rangeProblem) {
      fail(`${label} does not hold: ${rangeProblem}.`);
      reached = null;
      continue;
    }
    let parsed;
    try {
      parsed = parseSignedData(field.contents, true);
    } catch (error) {
      fail(`${label} cannot be read: ${messageOf(error)}.`);
      reached = null;
      continue;
    }
    // The time a signature is judged at: its timestamp when it has a valid one, else the time the signer wrote.
    const cms = await verifySignedData(parsed, signedParts(bytes, field), pool, (claimed) => claimed ?? field.claimedTime ?? new Date());
    const problems = [...cms.problems];
    let provenTime: Date | null = null;
    let timestampWords = '';
    if (cms.timestampToken) {
      const timestamp = await verifyTimestampToken(cms.timestampToken, [cms.signatureValue], pool);
      if (timestamp.problems.length > 0) problems.push(`its signature timestamp does not hold: ${joinProblems(timestamp.problems)}`);
      else if (timestamp.time && timestamp.authority) {
        provenTime = timestamp.time;
        timestampWords = ` (timestamp of ${timestamp.authority.holderName})`;
        for (const certificate of timestamp.certificates) pool.push(certificate);
      }
    }
    const coveringTimestamp = documentTimestamps.find((timestamp) => timestamp.result.problems.length === 0 && rangeEnd(timestamp.field) > rangeEnd(field));
    const at = provenTime ?? field.claimedTime ?? cms.claimedSigningTime;
    if (!at) problems.push('it states no signing time');
    const signer = cms.signer;
    if (problems.length > 0 || !signer || !at) {
      fail(`${label} does not hold: ${joinProblems(problems)}.`);
      reached = null;
      continue;
    }
    const chain = cms.chain?.chain ?? [signer];
    const root = cms.chain?.root ?? null;
    const anchor =
      root && archiveCertificates.some((certificate) => certificate.fingerprint === root.fingerprint)
        ? ' (a certificate in this archive)'
        : root
          ? ' (included in the signature)'
          : '';
    // Revocation evidence for every certificate below the root.
    const revocationWords: string[] = [];
    let isRevocationComplete = true;
    for (let index = 0; index < chain.length - 1; index++) {
      const certificate = chain[index] as Certificate;
      const issuer = chain[index + 1] as Certificate;
      if (isSelfIssued(certificate)) continue;
      const answer = await checkRevocation(certificate, issuer, at, evidence);
      if (!answer) {
        isRevocationComplete = false;
        if (dss) revocationWords.push(`no OCSP answer or CRL about ${possessiveHolder(certificate)} certificate is stored`);
      } else if (!answer.isOk) {
        problems.push(`${possessiveHolder(certificate)} certificate: ${answer.words}`);
      } else
        revocationWords.push(index === 0 ? answer.words : `${possessiveHolder(certificate)} certificate: ${answer.words.replace(/^the certificate /, 'it ')}`);
    }
    if (problems.length > 0) {
      fail(`${label} was made by ${possessiveHolder(signer)} certificate, but ${joinProblems(problems)}.`);
      reached = null;
      continue;
    }
    const isPades = field.subFilter === 'ETSI.CAdES.detached' && cms.hasSigningCertificateV2;
    let level: PadesLevel = 'B-B';
    if (provenTime || coveringTimestamp) level = 'B-T';
    if (level === 'B-T' && dss && isRevocationComplete) level = 'B-LT';
    if (level === 'B-LT' && dss && documentTimestamps.some((timestamp) => timestamp.result.problems.length === 0 && rangeEnd(timestamp.field) > dss.offset))
      level = 'B-LTA';
    if (!isPades) reached = null;
    else if (reached && levels.indexOf(level) < levels.indexOf(reached)) reached = level;
    const timeWords = provenTime
      ? `${formatUtcTime(at)}${timestampWords}`
      : `${formatUtcTime(at)} (the time the signer's software wrote; no timestamp proves it)`;
    const chainWords = root ? ` under ${root.holderName}${anchor}` : '';
    const revocation = revocationWords.length > 0 ? `; ${revocationWords.join('; ')}` : '; no revocation data is stored for it';
    pass(`${label} was made by ${possessiveHolder(signer)} certificate${chainWords} on ${timeWords}${revocation}.`);
  }

  if (signatureCount === 0) fail(`${file} carries document timestamps but no signature.`);
  else if (reached) pass(`${file} reaches PAdES ${reached}${levelMeaning[reached]}.`);
  else if (findings.every((finding) => finding.ok))
    pass(`${file} is signed, but not in the PAdES form (ETSI.CAdES.detached with a signing-certificate reference).`);

  // What the last signature or timestamp covers, and what was appended after it.
  const last = fields[fields.length - 1] as PdfSignatureField;
  const coveredEnd = rangeEnd(last);
  if (coveredEnd === bytes.length) pass(`The last signed revision of ${file} covers the whole file.`);
  else if (coveredEnd < bytes.length) {
    const appendedKinds = new Set<string>();
    for (const object of pdf.objects.values()) {
      if (object.offset < coveredEnd) continue;
      const type = object.value.type === 'dict' ? getName(pdf, object.value, 'Type') : null;
      // What a validation-data revision adds: the DSS with its streams and VRI dictionaries, a new catalog naming it, an xref stream.
      // Anything else that is new and typed (a page, an annotation), or any signed object replaced, changes what was signed.
      const isAllowedType = type === null || ['Catalog', 'XRef', 'DSS', 'VRI'].includes(type);
      const isReplaced = object.firstOffset < coveredEnd && type !== 'Catalog' && type !== 'DSS';
      if (!isAllowedType) appendedKinds.add(`new /${type} objects`);
      if (isReplaced) appendedKinds.add(`a new version of signed object ${object.number}`);
    }
    const addsDss = dss !== null && dss.offset >= coveredEnd;
    const extra = bytes.length - coveredEnd;
    if (addsDss && appendedKinds.size === 0)
      pass(`${file} ends with a revision of ${plural(extra, 'byte')} that no signature covers; it adds validation data (/DSS) only.`);
    else {
      const what = appendedKinds.size > 0 ? ` (they add ${[...appendedKinds].join(', ')})` : '';
      fail(`${file} was changed after its last signature: ${plural(extra, 'byte')} at its end are covered by no signature${what}.`);
    }
  }
  return findings;
}

const levelMeaning: Record<PadesLevel, string> = {
  'B-B': ' (signed; no timestamp proves when)',
  'B-T': ' (signed and timestamped)',
  'B-LT': ' (signed, timestamped, with the certificates and revocation data needed to check it for the long term)',
  'B-LTA': ' (signed, timestamped, with long-term validation data, itself protected by a document timestamp)',
};

function ordinal(index: number): string {
  return ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'][index - 1] ?? `number ${index}`;
}
