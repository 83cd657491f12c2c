import { z } from 'zod';
import { computeAuditHash } from '../audit-hash.ts';
import { formatFingerprint, parseCertificate, possessiveHolder, type Certificate } from './certificates.ts';
import { parseSignedData, verifySignedData, verifyTimestampToken } from './cms.ts';
import { createDigest } from './crypto.ts';
import { readPemBlocks, toHex } from './der.ts';
import { verifyPdfSignatures } from './pdf-signatures.ts';
import type { ArchiveReport, Finding } from './report.ts';
import { formatBytes, formatUtcTime, plural } from './words.ts';
import { readEntryChunks, readZipDirectory, ZipError, type RandomAccessSource, type ZipEntry } from './zip.ts';

/**
 * Verifies a notary's archive (the format agreed in docs/decisions/060-offline-archive-verifier.md):
 * the ZIP, the signed manifest, every file's hash, every PDF's signatures, every audit chain and
 * every recording segment. Runs the same in Node and in the browser.
 */

export const manifestPath = 'manifest.json';
export const manifestSignaturePath = 'manifest.json.p7s';
const platformCaPath = 'certificates/platform-ca.pem';
/** PDFs are held whole while their signatures are checked; beyond this they are hashed only. */
const maximumPdfBytes = 512 * 1024 * 1024;
const maximumJsonBytes = 256 * 1024 * 1024;

const fileKinds = [
  'readme',
  'certificate',
  'journal',
  'job',
  'audit_trail',
  'notarized_document',
  'recording_segment',
  'recording_index',
  'account_audit',
] as const;

const manifestSchema = z.object({
  format: z.literal('open-ron-archive/1'),
  createdAt: z.string(),
  generator: z.string().optional(),
  notary: z.object({ id: z.string(), name: z.string(), commissionState: z.string().nullish(), commissionNumber: z.string().nullish() }).loose(),
  counts: z.record(z.string(), z.number()).optional(),
  files: z.array(
    z
      .object({
        path: z.string(),
        kind: z.enum(fileKinds),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        sizeBytes: z.number().int().nonnegative(),
        recordedAt: z.string().nullish(),
        jobId: z.string().nullish(),
        title: z.string().nullish(),
      })
      .loose(),
  ),
});
type Manifest = z.infer<typeof manifestSchema>;
type ManifestFile = Manifest['files'][number];

const auditTrailSchema = z.object({
  scope: z.string(),
  /** The account scope is one chain shared by every account: the archive holds only this notary's events, so links between them are not expected. */
  isExcerpt: z.boolean().optional(),
  events: z.array(
    z
      .object({
        id: z.string(),
        scope: z.string(),
        jobId: z.string().nullable(),
        actorId: z.string().nullable(),
        action: z.string(),
        ipAddress: z.string().nullable(),
        userAgent: z.string().nullable(),
        data: z.unknown(),
        createdAt: z.string(),
        previousHash: z.string().nullable(),
        hash: z.string(),
      })
      .loose(),
  ),
});

const segmentIndexSchema = z.array(z.object({ id: z.string(), path: z.string(), sha256: z.string(), sizeBytes: z.number() }).loose());

export interface VerifyProgress {
  bytesRead: number;
  totalBytes: number;
  file: string | null;
}

export interface VerifyOptions {
  onProgress?: (progress: VerifyProgress) => void;
}

const isSafePath = (path: string) => /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(path) && !path.split('/').some((part) => part === '..' || part === '.');
const messageOf = (error: unknown) => (error instanceof Error ? error.message : 'it is malformed');
const decodeJson = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));

async function readWhole(source: RandomAccessSource, entry: ZipEntry): Promise<Uint8Array> {
  const bytes = new Uint8Array(entry.compressedSize);
  let offset = 0;
  await readEntryChunks(source, entry, (chunk) => {
    bytes.set(chunk, offset);
    offset += chunk.length;
  });
  return bytes;
}

export async function verifyArchive(source: RandomAccessSource, archiveName: string, options: VerifyOptions = {}): Promise<ArchiveReport> {
  const findings: Finding[] = [];
  const fail = (file: string, sentence: string) => findings.push({ ok: false, file, sentence });
  const pass = (file: string, sentence: string) => findings.push({ ok: true, file, sentence });
  const finish = (manifest: Manifest | null, platformCaFingerprint: string | null, fileCount: number, totalBytes: number, details = ''): ArchiveReport => {
    const problems = findings.filter((finding) => !finding.ok).length;
    const subject = manifest ? `the archive of ${manifest.notary.name}, made on ${formatUtcTime(new Date(manifest.createdAt))}` : archiveName;
    const listedCount = manifest?.files.length ?? 0;
    return {
      isValid: problems === 0,
      summary:
        problems === 0
          ? `Every check passed for ${subject}: the ${plural(listedCount, 'file')} its signed manifest lists (${formatBytes(totalBytes)} in all) are there unchanged${details}, and every signature, audit trail and recording checks out.`
          : `${plural(problems, 'problem')} found in ${subject}, shown first below with the file concerned. Do not rely on this copy: ask the notary or the platform for a fresh one, and check that one.`,
      findings,
      platformCaFingerprint,
      fileCount,
      totalBytes,
    };
  };

  let entries: ZipEntry[];
  try {
    entries = await readZipDirectory(source);
  } catch (error) {
    fail(archiveName, `${archiveName} cannot be read as a ZIP archive: ${messageOf(error)}.`);
    return finish(null, null, 0, 0);
  }
  const byName = new Map<string, ZipEntry>();
  for (const entry of entries) {
    if (entry.isDirectory) continue;
    if (byName.has(entry.name)) fail(entry.name, `${entry.name} appears twice in the archive, so which copy is meant is unclear.`);
    if (!isSafePath(entry.name))
      fail(entry.name, `${JSON.stringify(entry.name)} is not a path the archive format allows (it could write outside the folder it is unpacked into).`);
    byName.set(entry.name, entry);
  }
  const totalBytes = [...byName.values()].reduce((sum, entry) => sum + entry.compressedSize, 0);
  let bytesRead = 0;
  const report = (file: string | null) => options.onProgress?.({ bytesRead, totalBytes, file });
  report(null);

  // 1. The manifest and its signature.
  const manifestEntry = byName.get(manifestPath);
  const signatureEntry = byName.get(manifestSignaturePath);
  let manifest: Manifest | null = null;
  let manifestBytes: Uint8Array | null = null;
  if (!manifestEntry) fail(manifestPath, `${manifestPath} is missing, so nothing says which files belong to the archive.`);
  else {
    try {
      manifestBytes = await readWhole(source, manifestEntry);
      bytesRead += manifestEntry.compressedSize;
      const parsed = manifestSchema.safeParse(decodeJson(manifestBytes));
      if (parsed.success) manifest = parsed.data;
      else fail(manifestPath, `${manifestPath} is not a manifest of this archive format (${parsed.error.issues[0]?.path.join('.') || 'its shape'} is wrong).`);
    } catch (error) {
      fail(
        manifestPath,
        `${manifestPath} cannot be read: ${error instanceof SyntaxError || error instanceof TypeError ? 'it is not valid JSON' : messageOf(error)}.`,
      );
    }
  }
  const listed = new Map<string, ManifestFile>();
  for (const file of manifest?.files ?? []) {
    if (listed.has(file.path)) fail(manifestPath, `${manifestPath} lists ${file.path} twice.`);
    listed.set(file.path, file);
  }

  // 2. The certificates first: the manifest's and the PDFs' signatures are checked against them.
  const certificateFiles = new Map<string, Certificate[]>();
  const hashes = new Map<string, string>();
  const hashEntry = async (entry: ZipEntry, keep: boolean): Promise<Uint8Array | null> => {
    const hash = createDigest('SHA-256');
    const chunks: Uint8Array[] = [];
    await readEntryChunks(source, entry, (chunk) => {
      hash.update(chunk);
      if (keep) chunks.push(chunk.slice());
      bytesRead += chunk.length;
      report(entry.name);
    });
    hashes.set(entry.name, toHex(hash.digest()));
    if (!keep) return null;
    if (chunks.length === 1) return chunks[0] as Uint8Array;
    const whole = new Uint8Array(entry.compressedSize);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.length;
    }
    return whole;
  };
  const contents = new Map<string, Uint8Array>();
  const readError = (name: string, error: unknown) => fail(name, `${name} cannot be read from the archive: ${messageOf(error)}.`);
  for (const entry of byName.values()) {
    if (!entry.name.startsWith('certificates/')) continue;
    try {
      const bytes = (await hashEntry(entry, true)) as Uint8Array;
      contents.set(entry.name, bytes);
      const blocks = readPemBlocks(new TextDecoder('latin1').decode(bytes));
      if (blocks.length === 0) throw new Error('it holds no PEM certificate');
      certificateFiles.set(entry.name, blocks.map(parseCertificate));
    } catch (error) {
      if (error instanceof ZipError) readError(entry.name, error);
      else fail(entry.name, `${entry.name} cannot be read as certificates: ${messageOf(error)}.`);
    }
  }
  const archiveCertificates = [...certificateFiles.values()].flat();
  const platformCa = certificateFiles.get(platformCaPath)?.[0] ?? null;
  const platformCaFingerprint = platformCa ? formatFingerprint(platformCa.fingerprint) : null;
  if (!byName.has(platformCaPath)) fail(platformCaPath, `${platformCaPath} is missing, so the manifest's signature has nothing to be checked against.`);
  else if (platformCa)
    pass(
      platformCaPath,
      `${platformCaPath} holds the certificate of ${platformCa.holderName}, SHA-256 fingerprint ${platformCaFingerprint}: compare it with the fingerprint the platform shows.`,
    );

  if (manifestBytes && platformCa) {
    if (!signatureEntry) fail(manifestSignaturePath, `${manifestSignaturePath} is missing, so nothing shows the platform made this manifest.`);
    else {
      try {
        const signature = await readWhole(source, signatureEntry);
        bytesRead += signatureEntry.compressedSize;
        const parsed = parseSignedData(signature);
        const cms = await verifySignedData(
          parsed,
          [manifestBytes],
          [platformCa],
          (claimed) => claimed ?? (manifest ? new Date(manifest.createdAt) : new Date()),
        );
        const problems = [...cms.problems];
        let timeWords = manifest ? ` (the manifest says it was made on ${formatUtcTime(new Date(manifest.createdAt))})` : '';
        if (cms.timestampToken) {
          const timestamp = await verifyTimestampToken(cms.timestampToken, [cms.signatureValue], archiveCertificates);
          if (timestamp.problems.length > 0) problems.push(`its timestamp does not hold: ${timestamp.problems.join('; ')}`);
          else if (timestamp.time && timestamp.authority) timeWords = `, timestamped by ${timestamp.authority.holderName} on ${formatUtcTime(timestamp.time)}`;
        }
        const root = cms.chain?.root;
        if (cms.signer && root && root.fingerprint !== platformCa.fingerprint)
          problems.push(`its certificate chains to ${root.holderName}, not to the platform CA in ${platformCaPath}`);
        if (problems.length === 0 && cms.signer) {
          pass(
            manifestSignaturePath,
            `${manifestSignaturePath} is a valid signature over ${manifestPath} by ${possessiveHolder(cms.signer)} certificate, issued by the platform CA${timeWords}.`,
          );
        } else {
          // A changed manifest and a changed signature look alike from here: name both.
          const isDigestProblem = problems.some((problem) => problem.startsWith('the signed bytes were changed'));
          fail(
            isDigestProblem ? manifestPath : manifestSignaturePath,
            `The signature over ${manifestPath} does not hold: ${problems.join('; ').replace('the signed bytes were changed after signing', `${manifestPath} was changed after it was signed`)}.`,
          );
        }
      } catch (error) {
        fail(manifestSignaturePath, `${manifestSignaturePath} cannot be read as a signature: ${messageOf(error)}.`);
      }
    }
  }

  // 3. Every other file: hashed as it is read; PDFs and JSON files checked while in hand.
  const auditTrails: { name: string; bytes: Uint8Array }[] = [];
  const segmentIndexes: { name: string; bytes: Uint8Array }[] = [];
  let pdfCount = 0;
  for (const entry of byName.values()) {
    if (entry.name === manifestPath || entry.name === manifestSignaturePath || entry.name.startsWith('certificates/')) continue;
    const kind = listed.get(entry.name)?.kind;
    const isPdf = kind === 'notarized_document' || (!kind && entry.name.endsWith('.pdf'));
    const isJson = kind === 'audit_trail' || kind === 'account_audit' || kind === 'recording_index';
    const keep = (isPdf && entry.compressedSize <= maximumPdfBytes) || (isJson && entry.compressedSize <= maximumJsonBytes);
    let bytes: Uint8Array | null;
    try {
      bytes = await hashEntry(entry, keep);
    } catch (error) {
      readError(entry.name, error);
      continue;
    }
    if (isPdf && bytes) {
      pdfCount++;
      findings.push(...(await verifyPdfSignatures(entry.name, bytes, archiveCertificates)));
    } else if (isPdf) fail(entry.name, `${entry.name} is larger than ${formatBytes(maximumPdfBytes)}, so its signatures were not checked.`);
    if (bytes && (kind === 'audit_trail' || kind === 'account_audit')) auditTrails.push({ name: entry.name, bytes });
    if (bytes && kind === 'recording_index') segmentIndexes.push({ name: entry.name, bytes });
  }
  report(null);

  // 4. The manifest against the files: each listed file present with its hash and size, nothing unlisted.
  if (manifest) {
    for (const file of manifest.files) {
      const entry = byName.get(file.path);
      if (!entry) {
        fail(file.path, `${file.path} is listed in the manifest${file.title ? ` (${file.title})` : ''} but missing from the archive.`);
        continue;
      }
      const actual = hashes.get(file.path);
      if (actual === undefined) continue;
      if (actual !== file.sha256 || entry.compressedSize !== file.sizeBytes) {
        fail(
          file.path,
          entry.compressedSize !== file.sizeBytes
            ? `${file.path} was changed: it holds ${plural(entry.compressedSize, 'byte')}, and the signed manifest records ${plural(file.sizeBytes, 'byte')}.`
            : `${file.path} was changed: its SHA-256 is ${actual}, and the signed manifest records ${file.sha256}.`,
        );
      } else
        pass(
          file.path,
          `${file.path} matches the signed manifest (${formatBytes(file.sizeBytes)}${file.recordedAt ? `, recorded on ${formatUtcTime(new Date(file.recordedAt))}` : ''}).`,
        );
    }
    for (const name of byName.keys()) {
      if (name !== manifestPath && name !== manifestSignaturePath && !listed.has(name))
        fail(name, `${name} is in the archive but not in the signed manifest: it was added afterwards.`);
    }
    const counts = manifest.counts ?? {};
    const countOf = (kind: string) => manifest?.files.filter((file) => file.kind === kind).length ?? 0;
    for (const [key, kind] of [
      ['documents', 'notarized_document'],
      ['recordingSegments', 'recording_segment'],
    ] as const) {
      if (counts[key] !== undefined && counts[key] !== countOf(kind))
        fail(manifestPath, `${manifestPath} counts ${counts[key]} ${key === 'documents' ? 'documents' : 'recording segments'} but lists ${countOf(kind)}.`);
    }
  }

  // 5. Audit trails: every hash recomputed, every link to the previous event unbroken.
  for (const { name, bytes } of auditTrails) findings.push(checkAuditTrail(name, bytes));

  // 6. Recording segments: each file's hash as the platform recorded it at the time, and as the manifest lists it.
  let segmentCount = 0;
  const indexedPaths = new Set<string>();
  for (const { name, bytes } of segmentIndexes) {
    let segments: z.infer<typeof segmentIndexSchema>;
    try {
      const parsed = segmentIndexSchema.safeParse(decodeJson(bytes));
      if (!parsed.success) throw new Error('it is not a list of segments');
      segments = parsed.data;
    } catch (error) {
      fail(name, `${name} cannot be read: ${error instanceof SyntaxError || error instanceof TypeError ? 'it is not valid JSON' : messageOf(error)}.`);
      continue;
    }
    const folder = name.slice(0, name.lastIndexOf('/') + 1);
    for (const segment of segments) {
      segmentCount++;
      const path = segment.path.includes('/') ? segment.path : `${folder}${segment.path}`;
      indexedPaths.add(path);
      const actual = hashes.get(path);
      const listedHash = listed.get(path)?.sha256;
      if (actual === undefined) fail(path, `The recording segment ${path} named in ${name} is missing from the archive.`);
      else if (actual !== segment.sha256.toLowerCase())
        fail(path, `The recording segment ${path} does not match the hash the platform recorded when it was made (${name}): it was changed.`);
      else if (listedHash !== undefined && listedHash !== actual) fail(path, `The recording segment ${path} matches ${name} but not the manifest.`);
      else if (byName.get(path)?.compressedSize !== segment.sizeBytes) fail(path, `The recording segment ${path} has another size than ${name} records.`);
      else pass(path, `The recording segment ${path} matches the hash the platform recorded when it was made.`);
    }
  }
  if (manifest) {
    for (const file of manifest.files.filter((candidate) => candidate.kind === 'recording_segment')) {
      if (!indexedPaths.has(file.path)) fail(file.path, `The recording segment ${file.path} is in no segments.json.`);
    }
  }

  return finish(
    manifest,
    platformCaFingerprint,
    byName.size,
    totalBytes,
    ` (${plural(pdfCount, 'signed PDF')}, ${plural(auditTrails.length, 'audit trail')}, ${plural(segmentCount, 'recording segment')})`,
  );
}

function checkAuditTrail(name: string, bytes: Uint8Array): Finding {
  let trail: z.infer<typeof auditTrailSchema>;
  try {
    const parsed = auditTrailSchema.safeParse(decodeJson(bytes));
    if (!parsed.success)
      return {
        ok: false,
        file: name,
        sentence: `${name} is not an audit trail of this archive format (${parsed.error.issues[0]?.path.join('.') || 'its shape'} is wrong).`,
      };
    trail = parsed.data;
  } catch {
    return { ok: false, file: name, sentence: `${name} cannot be read: it is not valid JSON.` };
  }
  let previousHash: string | null = null;
  for (const [index, event] of trail.events.entries()) {
    if (event.scope !== trail.scope) return { ok: false, file: name, sentence: `Event ${index + 1} of ${name} belongs to another trail.` };
    if (!trail.isExcerpt && event.previousHash !== previousHash) {
      return {
        ok: false,
        file: name,
        sentence: `The audit trail in ${name} is broken at event ${index + 1} (${event.action}): it does not link to the event before it, so an event was removed, added or reordered.`,
      };
    }
    if (computeAuditHash(event) !== event.hash) {
      return {
        ok: false,
        file: name,
        sentence: `The audit trail in ${name} is broken at event ${index + 1} (${event.action}, ${formatUtcTime(new Date(event.createdAt))}): its content no longer matches its hash, so it was changed.`,
      };
    }
    previousHash = event.hash;
  }
  const last = trail.events[trail.events.length - 1];
  const lastWords = last ? `, the last on ${formatUtcTime(new Date(last.createdAt))}` : '';
  return {
    ok: true,
    file: name,
    sentence: trail.isExcerpt
      ? `The audit events in ${name} hold: ${plural(trail.events.length, 'event')}${lastWords}, every hash recomputed (an excerpt of the platform's shared account trail, so the events between them are not included).`
      : `The audit trail in ${name} holds: ${plural(trail.events.length, 'event')}${lastWords}, every hash recomputed and every link unbroken.`,
  };
}
