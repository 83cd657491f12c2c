import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { notarizationTypes } from '#shared/jobs.ts';
import { normalizeJournalContent } from '#shared/journal.ts';
import { notaryParticipantId } from '#shared/video.ts';
import type { DbOrTx } from '#server/db/client.ts';
import {
  auditEvents,
  jobParticipants,
  jobs,
  documents,
  notarizedDocuments,
  notaryArchives,
  notaryJournalAddenda,
  notaryJournalEntries,
  notaryProfiles,
  recordingSegments,
  recordings,
  signingCredentials,
  users,
} from '#server/db/schema/index.ts';
import type { Config } from '#server/config.ts';
import { privateDirectoryMode, privateFileMode } from '#server/lib/data-dir.ts';
import { createDetachedCmsSignature } from '#server/providers/signing/cms.ts';
import { getOrCreatePlatformCa, getOrIssuePlatformSignerCredentials, splitPemCertificates } from '#server/providers/signing/certificates.ts';
import { fetchTimestampToken } from '#server/providers/signing/pades.ts';
import type { StorageProvider } from '#server/providers/storage/storage.ts';
import { accountScope } from '#server/features/audit/audit.service.ts';
import { journalCsvColumns, toCsvLine } from './journal-export.service.ts';
import { archiveDirectoryName, archiveFilePath, type ArchiveRow } from './archive.service.ts';
import { ZipWriter } from './zip-writer.ts';
import { csvField } from '#shared/journal.ts';

/**
 * Builds one notary archive into a file of the data directory (docs/ARCHIVE-FORMAT.md, decision
 * 059). The rows are read first, each in its own short query (no transaction is open while files
 * are read or written); then every file streams from storage into the ZIP, and the manifest (every
 * entry's SHA-256, size and time) is written last with its detached CMS signature by the platform's
 * signer. The file is written as `<id>.zip.part` and renamed only once complete: a failure leaves none.
 */

export const archiveFormat = 'open-ron-archive/1';
const generatorVersion = (() => {
  try {
    const packageJson = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../../../package.json'), 'utf8')) as { version?: string };
    return packageJson.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();

export type ArchiveFileKind =
  'readme' | 'certificate' | 'journal' | 'job' | 'audit_trail' | 'notarized_document' | 'recording_segment' | 'recording_index' | 'account_audit';

export interface ManifestFile {
  path: string;
  kind: ArchiveFileKind;
  sha256: string;
  sizeBytes: number;
  recordedAt: string;
  jobId: string | null;
  title: string;
}

/** A failure a person can read: it becomes the archive's failureReason as it is. */
export class ArchiveBuildError extends Error {}

/** The builder lost its archive (deleted, or its lease taken as lapsed): it stops and cleans up. */
export class ArchiveAbandoned extends Error {}

/** The server is shutting down: the build stops between two files, and the archive goes back to the queue. */
export class ArchiveInterrupted extends Error {}

export interface ArchiveBuildDeps {
  db: DbOrTx;
  storage: StorageProvider;
  secretsKey: Buffer;
  config: Pick<Config, 'dataDir' | 'tsaUrl'>;
}

/** How long a building archive's lease lasts without a progress update before it counts as abandoned. */
export const archiveLeaseMs = 10 * 60_000;
/** Progress is written at most this often (never per chunk). */
const progressEveryMs = 500;

type AuditRow = typeof auditEvents.$inferSelect;

/** Every column the chain's hash covers, as hashed (audit.service.ts computeHash), plus the sequence. */
function toAuditJson(scope: string, rows: AuditRow[], extra: Record<string, unknown> = {}): Buffer {
  const events = rows.map((row) => ({
    sequence: row.sequence,
    id: row.id,
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
  return jsonBytes({ scope, ...extra, events });
}

function jsonBytes(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

/** The newest of some times, or `fallback` when there is none. */
function latest(dates: Array<Date | null>, fallback: Date): Date {
  let newest: number | null = null;
  for (const date of dates) if (date && (newest === null || date.getTime() > newest)) newest = date.getTime();
  return newest === null ? fallback : new Date(newest);
}

/** The issuer chain of a notary's certificate: an uploaded one's own, or the platform CA that issued it. */
function findChain(row: typeof signingCredentials.$inferSelect, platformCas: string[]): string[] {
  if (row.source === 'uploaded') return splitPemCertificates(row.chainPem);
  const leaf = new X509Certificate(row.certificatePem);
  const issuer = platformCas.find((pem) => {
    const ca = new X509Certificate(pem);
    return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
  });
  return issuer ? [issuer] : [];
}

/** The rows of one commission's records, read before any file is touched. */
async function gatherRecords(db: DbOrTx, archive: ArchiveRow) {
  const [notary] = await db
    .select({ id: users.id, name: users.name, profile: notaryProfiles })
    .from(users)
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, archive.notaryId))
    .limit(1);
  if (!notary) throw new ArchiveBuildError('The notary’s account no longer exists.');
  const isCurrent = notary.profile?.commissionState === archive.commissionState && notary.profile?.commissionNumber === archive.commissionNumber;
  // An entry's commission is the one its sealed document names; one whose document is gone goes with the current commission.
  const entryIds = (
    (await db.execute(sql`
      select e.id from notary_journal_entries e
      left join lateral (
        select nd.public_facts from notarized_documents nd where nd.job_id = e.job_id and nd.document_id = e.document_id limit 1
      ) f on true
      where e.notary_id = ${archive.notaryId} and e.status = 'final' and e.is_test = false
        and ((f.public_facts->>'commissionState' = ${archive.commissionState} and f.public_facts->>'commissionNumber' = ${archive.commissionNumber})
          or (f.public_facts is null and ${isCurrent}))`)) as unknown as { rows: Array<{ id: string }> }
  ).rows.map((row) => row.id);
  const entries: Array<typeof notaryJournalEntries.$inferSelect> = [];
  const addenda = [];
  for (let index = 0; index < entryIds.length; index += 1000) {
    const slice = entryIds.slice(index, index + 1000);
    entries.push(...(await db.select().from(notaryJournalEntries).where(inArray(notaryJournalEntries.id, slice))));
    addenda.push(...(await db.select().from(notaryJournalAddenda).where(inArray(notaryJournalAddenda.entryId, slice))));
  }
  entries.sort((a, b) => (a.finalizedAt?.getTime() ?? 0) - (b.finalizedAt?.getTime() ?? 0) || a.id.localeCompare(b.id));
  addenda.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  const jobIds = [...new Set(entries.map((entry) => entry.jobId).filter((id): id is string => id !== null))].sort();
  const byJobs = async <T>(read: (ids: string[]) => Promise<T[]>): Promise<T[]> => {
    const found: T[] = [];
    for (let index = 0; index < jobIds.length; index += 1000) found.push(...(await read(jobIds.slice(index, index + 1000))));
    return found;
  };
  const jobRows = await byJobs((ids) => db.select().from(jobs).where(inArray(jobs.id, ids)));
  const participants = await byJobs((ids) =>
    db.select().from(jobParticipants).where(inArray(jobParticipants.jobId, ids)).orderBy(asc(jobParticipants.position)),
  );
  // Only the sealed documents of acts in this journal: one whose entry is still a draft (or of another commission) stays out.
  const isJournaled = (output: { jobId: string; documentId: string }) =>
    entries.some((entry) => entry.jobId === output.jobId && entry.documentId === output.documentId);
  const sealedOfJobs = await byJobs((ids) =>
    db
      .select({ output: notarizedDocuments, documentName: documents.name })
      .from(notarizedDocuments)
      .innerJoin(documents, eq(documents.id, notarizedDocuments.documentId))
      .where(and(inArray(notarizedDocuments.jobId, ids), eq(notarizedDocuments.notaryId, archive.notaryId)))
      .orderBy(asc(notarizedDocuments.createdAt)),
  );
  const sealed = sealedOfJobs.filter((row) => isJournaled(row.output));
  const segments = await byJobs((ids) =>
    db
      .select({ segment: recordingSegments, jobId: recordings.jobId })
      .from(recordingSegments)
      .innerJoin(recordings, eq(recordings.id, recordingSegments.recordingId))
      .where(inArray(recordings.jobId, ids))
      .orderBy(asc(recordingSegments.startedAt), asc(recordingSegments.participantId), asc(recordingSegments.sequence)),
  );
  const credentials = await db
    .select()
    .from(signingCredentials)
    .where(and(eq(signingCredentials.kind, 'notary'), eq(signingCredentials.userId, archive.notaryId)))
    .orderBy(asc(signingCredentials.createdAt));
  const platformCas = (
    await db.select({ pem: signingCredentials.certificatePem }).from(signingCredentials).where(eq(signingCredentials.kind, 'platform_ca'))
  ).map((row) => row.pem);
  return { notary, entries, addenda, jobIds, jobRows, participants, sealed, segments, credentials, platformCas };
}

const readme = (notaryName: string, commission: string) =>
  [
    'Open RON: a notary’s archive of one commission',
    '',
    `The records of ${notaryName}, commission ${commission}: every finalized journal entry, each notarized`,
    'document, each session recording segment, the audit trails and the certificates, as the platform kept them.',
    '',
    'manifest.json lists every file of this archive with its SHA-256, size and the time the platform recorded it;',
    'manifest.json.p7s is a detached CMS signature over manifest.json by the platform (certificates/platform-ca.pem is its CA).',
    '',
    'To verify it: npx open-ron-verify <this file>, or the /verify-archive page of the platform.',
    'By hand: openssl cms -verify -binary -inform DER -in manifest.json.p7s -content manifest.json \\',
    '  -CAfile certificates/platform-ca.pem -purpose any',
    'then sha256sum each file and compare with manifest.json. The format: docs/ARCHIVE-FORMAT.md of Open RON.',
    '',
  ].join('\n');

export interface ArchiveBuildOutcome {
  sizeBytes: number;
  sha256: string;
}

/**
 * Builds the archive `archive` (already claimed: status building) into the data directory and
 * returns its size and SHA-256. Progress and the lease go to the row now and then; when the row is
 * gone or no longer this builder's, the build stops (ArchiveAbandoned); when the server stops, it
 * stops between two files (ArchiveInterrupted). The partial file is removed on any failure.
 */
export async function buildNotaryArchive(
  deps: ArchiveBuildDeps,
  archive: ArchiveRow,
  options: { now?: Date; isStopping?: () => boolean } = {},
): Promise<ArchiveBuildOutcome> {
  const now = options.now ?? new Date();
  const { db, storage } = deps;
  const records = await gatherRecords(db, archive);
  const { notary } = records;
  const signer = await getOrIssuePlatformSignerCredentials(db, deps.secretsKey);
  const platformCa = await getOrCreatePlatformCa(db, deps.secretsKey);

  const blobBytes =
    records.sealed.reduce((total, row) => total + row.output.sizeBytes, 0) + records.segments.reduce((total, row) => total + row.segment.bytes, 0);
  // README, the CA, the certificates, the journal's two files, per job its facts and trail (and the segment index when recorded), the account trail, manifest and signature.
  const jobsWithSegments = new Set(records.segments.map((row) => row.jobId));
  const filesTotal =
    2 + records.credentials.length + 2 + records.jobIds.length * 2 + jobsWithSegments.size + records.sealed.length + records.segments.length + 1 + 2;
  let filesDone = 0;
  let bytesDone = 0;
  let lastProgressAt = 0;
  const reportProgress = async (isForced = false) => {
    if (options.isStopping?.()) throw new ArchiveInterrupted('the server is stopping');
    if (!isForced && Date.now() - lastProgressAt < progressEveryMs) return;
    lastProgressAt = Date.now();
    const held = await db
      .update(notaryArchives)
      .set({ filesDone, bytesDone, filesTotal, bytesTotal: blobBytes, expiresAt: new Date(Date.now() + archiveLeaseMs) })
      .where(and(eq(notaryArchives.id, archive.id), eq(notaryArchives.status, 'building')))
      .returning({ id: notaryArchives.id });
    if (held.length === 0) throw new ArchiveAbandoned('the archive was deleted or taken over while it was built');
  };
  await reportProgress(true);

  const directory = path.join(deps.config.dataDir, archiveDirectoryName);
  await fs.promises.mkdir(directory, { recursive: true, mode: privateDirectoryMode });
  const finalPath = archiveFilePath(deps.config.dataDir, archive.id);
  const partPath = `${finalPath}.part`;
  const handle = await fs.promises.open(partPath, 'w', privateFileMode);
  let isClosed = false;
  try {
    const zip = new ZipWriter(handle, now);
    const files: ManifestFile[] = [];
    const add = async (
      file: Omit<ManifestFile, 'sha256' | 'sizeBytes' | 'recordedAt'> & { recordedAt: Date },
      source: Buffer | { storageKey: string; sizeBytes: number; what: string },
    ) => {
      let written;
      if (Buffer.isBuffer(source)) {
        written = await zip.addEntry(file.path, source);
      } else {
        try {
          written = await zip.addEntry(file.path, await storage.openStream(source.storageKey), {
            expectedSize: source.sizeBytes,
            onBytes: (bytes) => (bytesDone += bytes),
          });
        } catch (error) {
          // A write that failed (a full disk) is the server's; a read that failed is the stored file's.
          if ((error as NodeJS.ErrnoException).syscall === 'write' || (error as NodeJS.ErrnoException).code === 'ENOSPC') throw error;
          throw new ArchiveBuildError(`${source.what} could not be read from storage.`);
        }
      }
      files.push({ ...file, recordedAt: file.recordedAt.toISOString(), sha256: written.sha256, sizeBytes: written.sizeBytes });
      filesDone += 1;
      await reportProgress();
    };

    const commission = `${archive.commissionNumber} (${archive.commissionState})`;
    await add(
      { path: 'README.txt', kind: 'readme', jobId: null, title: 'What this archive is and how to verify it', recordedAt: now },
      Buffer.from(readme(notary.name, commission)),
    );
    await add(
      { path: 'certificates/platform-ca.pem', kind: 'certificate', jobId: null, title: 'The platform CA certificate', recordedAt: now },
      Buffer.from(platformCa.certificatePem),
    );
    for (const credential of records.credentials) {
      const pems = [credential.certificatePem, ...findChain(credential, records.platformCas)].map((pem) => (pem.endsWith('\n') ? pem : `${pem}\n`));
      await add(
        {
          path: `certificates/${credential.id}.pem`,
          kind: 'certificate',
          jobId: null,
          title: `${credential.source === 'uploaded' ? 'Uploaded' : 'Platform-issued'} signing certificate, serial ${credential.serialNumber}`,
          recordedAt: credential.createdAt,
        },
        Buffer.from(pems.join('')),
      );
    }

    // The journal: as stored, with ids and addenda; and the CSV the journal page exports.
    const addendaOf = new Map<string, typeof records.addenda>();
    for (const addendum of records.addenda) addendaOf.set(addendum.entryId, [...(addendaOf.get(addendum.entryId) ?? []), addendum]);
    const lastFinalized = latest(
      records.entries.map((entry) => entry.finalizedAt),
      now,
    );
    await add(
      { path: 'journal/entries.json', kind: 'journal', jobId: null, title: 'Finalized journal entries with their addenda', recordedAt: lastFinalized },
      jsonBytes({
        notary: { id: notary.id, name: notary.name },
        commissionState: archive.commissionState,
        commissionNumber: archive.commissionNumber,
        entries: records.entries.map((entry) => ({
          id: entry.id,
          notaryId: entry.notaryId,
          jobId: entry.jobId,
          documentId: entry.documentId,
          participantId: entry.participantId,
          status: entry.status,
          isTest: entry.isTest,
          content: entry.content,
          createdAt: entry.createdAt.toISOString(),
          finalizedAt: entry.finalizedAt?.toISOString() ?? null,
          keptUntil: entry.keptUntil?.toISOString() ?? null,
          addenda: (addendaOf.get(entry.id) ?? []).map((addendum) => ({
            id: addendum.id,
            text: addendum.text,
            createdBy: addendum.createdBy,
            createdAt: addendum.createdAt.toISOString(),
          })),
        })),
      }),
    );
    const timeZone = notary.profile?.timeZone ?? null;
    const csv =
      `${journalCsvColumns.map(csvField).join(',')}\r\n` +
      records.entries
        .map((entry) =>
          toCsvLine(
            {
              id: entry.id,
              jobId: entry.jobId,
              status: entry.status,
              isTest: entry.isTest,
              content: normalizeJournalContent(entry.content),
              createdAt: entry.createdAt.toISOString(),
              finalizedAt: entry.finalizedAt?.toISOString() ?? null,
              keptUntil: entry.keptUntil?.toISOString() ?? null,
              addenda: (addendaOf.get(entry.id) ?? []).map((addendum) => ({
                id: addendum.id,
                text: addendum.text,
                createdAt: addendum.createdAt.toISOString(),
              })),
            },
            timeZone,
          ),
        )
        .join('');
    await add({ path: 'journal/journal.csv', kind: 'journal', jobId: null, title: 'The journal as CSV', recordedAt: lastFinalized }, Buffer.from(csv, 'utf8'));

    let documentCount = 0;
    for (const jobId of records.jobIds) {
      const job = records.jobRows.find((row) => row.id === jobId);
      if (!job) continue;
      const people = records.participants.filter((row) => row.jobId === jobId);
      const outputs = records.sealed.filter((row) => row.output.jobId === jobId);
      const segments = records.segments.filter((row) => row.jobId === jobId).map((row) => row.segment);
      const act = notarizationTypes.find((type) => type.key === job.notarizationType);
      const sealedAt = outputs[0]?.output.createdAt ?? null;
      await add(
        { path: `jobs/${jobId}/job.json`, kind: 'job', jobId, title: job.title, recordedAt: sealedAt ?? job.updatedAt },
        jsonBytes({
          id: job.id,
          title: job.title,
          act: { key: job.notarizationType, label: act?.label ?? job.notarizationType },
          status: job.status,
          createdAt: job.createdAt.toISOString(),
          scheduledAt: job.scheduledAt?.toISOString() ?? null,
          notarizedAt: sealedAt?.toISOString() ?? null,
          updatedAt: job.updatedAt.toISOString(),
          notary: { id: notary.id, name: notary.name },
          commission: outputs[0]?.output.publicFacts ?? null,
          participants: people.map((person) => ({ id: person.id, name: person.name, role: person.role })),
          notarizedDocuments: outputs.map(({ output, documentName }) => ({
            id: output.id,
            documentId: output.documentId,
            documentName,
            sha256: output.sha256,
            sizeBytes: output.sizeBytes,
            pageCount: output.pageCount,
            padesLevel: output.padesLevel,
            isNotarialAct: output.isNotarialAct,
            sealedAt: output.createdAt.toISOString(),
            path: `jobs/${jobId}/documents/${output.id}.pdf`,
          })),
        }),
      );
      const scope = `job:${jobId}`;
      const trail = await db.select().from(auditEvents).where(eq(auditEvents.scope, scope)).orderBy(asc(auditEvents.sequence));
      await add(
        {
          path: `jobs/${jobId}/audit.json`,
          kind: 'audit_trail',
          jobId,
          title: `Audit trail of ${job.title}`,
          recordedAt: trail.at(-1)?.createdAt ?? job.updatedAt,
        },
        toAuditJson(scope, trail),
      );
      for (const { output, documentName } of outputs) {
        await add(
          { path: `jobs/${jobId}/documents/${output.id}.pdf`, kind: 'notarized_document', jobId, title: documentName, recordedAt: output.createdAt },
          { storageKey: output.storageKey, sizeBytes: output.sizeBytes, what: `The sealed document “${documentName}” of “${job.title}”` },
        );
        documentCount += 1;
      }
      if (segments.length === 0) continue;
      const index = [];
      for (const segment of segments) {
        const person = people.find((row) => row.id === segment.participantId);
        const who =
          segment.participantId === notaryParticipantId
            ? { name: notary.name, role: 'notary' }
            : { name: person?.name ?? 'A person no longer on the job', role: person?.role ?? 'unknown' };
        const segmentPath = `jobs/${jobId}/recordings/${segment.id}.webm`;
        await add(
          {
            path: segmentPath,
            kind: 'recording_segment',
            jobId,
            title: `Recording of ${who.name} (${who.role}), part ${segment.sequence + 1}`,
            recordedAt: segment.endedAt,
          },
          { storageKey: segment.storageKey, sizeBytes: segment.bytes, what: `A recording segment of “${job.title}”` },
        );
        index.push({
          id: segment.id,
          recordingId: segment.recordingId,
          participantId: segment.participantId,
          participantName: who.name,
          participantRole: who.role,
          trackKind: 'audio_video',
          sequence: segment.sequence,
          startedAt: segment.startedAt.toISOString(),
          endedAt: segment.endedAt.toISOString(),
          sizeBytes: segment.bytes,
          sha256: segment.sha256,
          path: segmentPath,
        });
      }
      await add(
        {
          path: `jobs/${jobId}/recordings/segments.json`,
          kind: 'recording_index',
          jobId,
          title: `Recording segments of ${job.title}`,
          recordedAt: latest(
            segments.map((segment) => segment.endedAt),
            now,
          ),
        },
        jsonBytes(index),
      );
    }

    // The account chain is everyone's: only the events about this notary are here, so links between them are not consecutive.
    const accountRows = await db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.scope, accountScope),
          sql`(${auditEvents.actorId} = ${archive.notaryId} or ${auditEvents.data}->>'userId' = ${archive.notaryId} or ${auditEvents.data}->>'notaryId' = ${archive.notaryId})`,
        ),
      )
      .orderBy(asc(auditEvents.sequence));
    await add(
      {
        path: 'account/audit.json',
        kind: 'account_audit',
        jobId: null,
        title: 'Account events about the notary',
        recordedAt: accountRows.at(-1)?.createdAt ?? now,
      },
      toAuditJson(accountScope, accountRows, { isExcerpt: true }),
    );

    const manifest = jsonBytes({
      format: archiveFormat,
      createdAt: now.toISOString(),
      generator: `Open RON ${generatorVersion}`,
      notary: { id: notary.id, name: notary.name, commissionState: archive.commissionState, commissionNumber: archive.commissionNumber },
      counts: { journalEntries: records.entries.length, jobs: records.jobIds.length, documents: documentCount, recordingSegments: records.segments.length },
      files,
    });
    await zip.addEntry('manifest.json', manifest);
    filesDone += 1;
    const tsaUrl = deps.config.tsaUrl;
    const signature = await createDetachedCmsSignature(manifest, {
      certificatePem: signer.certificatePem,
      privateKeyPem: signer.privateKeyPem,
      chainPems: signer.chainPems,
      ...(tsaUrl ? { timestamp: (digest: Buffer) => fetchTimestampToken(tsaUrl, digest) } : {}),
    });
    await zip.addEntry('manifest.json.p7s', signature);
    filesDone += 1;
    await zip.finish();
    await handle.sync();
    await handle.close();
    isClosed = true;
    await reportProgress(true);
    const hash = createHash('sha256');
    let sizeBytes = 0;
    for await (const chunk of fs.createReadStream(partPath, { highWaterMark: 1024 * 1024 })) {
      hash.update(chunk as Buffer);
      sizeBytes += (chunk as Buffer).length;
    }
    await fs.promises.rename(partPath, finalPath);
    return { sizeBytes, sha256: hash.digest('hex') };
  } catch (error) {
    if (!isClosed) await handle.close().catch(() => undefined);
    await fs.promises.rm(partPath, { force: true });
    throw error;
  }
}
