import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, asc, desc, eq, isNotNull, lte } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';
import { documents, notarizedDocumentRevisions, notarizedDocuments } from '#server/db/schema/index.ts';
import type { StorageProvider } from '#server/providers/storage/storage.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { renewArchiveTimestamp } from '#server/features/notarization/long-term.ts';

/**
 * PAdES B-LTA renewal (decision 058). A document timestamp proves the long-term evidence under it
 * only while its TSA's certificate can be checked; before it expires, a new document timestamp over
 * the whole file (with the old TSA's validation data added to the DSS first) carries the proof on.
 *
 * Each renewal makes a new copy (an incremental revision appended to the file): the TSA call and
 * the file work run outside any transaction; one short transaction then records the new copy only
 * if the row still holds the copy that was read (compare-and-set on its SHA-256), keeps the old copy
 * as a revision /verify still knows, and writes the audit event. Two instances racing on a document
 * renew it once; the loser's copy is discarded. Without a TSA the task does nothing.
 */

const batchSize = 20;

export interface ArchiveRenewalDeps {
  db: Db;
  storage: StorageProvider;
  secretsKey: Buffer;
  tsaUrl: string | null;
  log: { info(object: unknown, message?: string): void; error(object: unknown, message: string): void };
  /** How OCSP responders and CRL distribution points are reached (tests). */
  fetch?: typeof fetch;
}

export interface RenewalPass {
  renewed: number;
  /** Documents another instance renewed first (their copy kept). */
  skipped: number;
  failed: number;
}

type Row = typeof notarizedDocuments.$inferSelect;

async function renewOne(deps: ArchiveRenewalDeps & { tsaUrl: string }, row: Row): Promise<'renewed' | 'skipped'> {
  const current = await deps.storage.read(row.storageKey);
  if (createHash('sha256').update(current).digest('hex') !== row.sha256) {
    throw new Error(`the stored copy of notarized document ${row.id} does not match its recorded SHA-256`);
  }
  const renewed = await renewArchiveTimestamp({ db: deps.db, secretsKey: deps.secretsKey, tsaUrl: deps.tsaUrl, fetch: deps.fetch }, current);
  if (row.archiveTimestampExpiresAt && renewed.archiveTimestampExpiresAt.getTime() <= row.archiveTimestampExpiresAt.getTime()) {
    // A copy whose proof ends no later than the current one's would only grow the file.
    throw new Error(
      `the time-stamping authority's certificate expires no later than the current archive timestamp's (${renewed.archiveTimestampExpiresAt.toISOString()}): the TSA must renew its certificate`,
    );
  }
  const sha256 = createHash('sha256').update(renewed.pdf).digest('hex');
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-archive-'));
  try {
    const filePath = path.join(directory, `${sha256}.pdf`);
    await fs.promises.writeFile(filePath, renewed.pdf);
    await deps.storage.putFile(filePath, sha256, 'application/pdf');
  } finally {
    await fs.promises.rm(directory, { recursive: true, force: true });
  }
  const isRecorded = await deps.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(notarizedDocuments).where(eq(notarizedDocuments.id, row.id)).for('update').limit(1);
    if (!locked || locked.sha256 !== row.sha256) return false;
    // The copy being replaced was made when the last renewal replaced its predecessor, or at the seal.
    const [latest] = await tx
      .select({ replacedAt: notarizedDocumentRevisions.replacedAt })
      .from(notarizedDocumentRevisions)
      .where(eq(notarizedDocumentRevisions.notarizedDocumentId, row.id))
      .orderBy(desc(notarizedDocumentRevisions.replacedAt))
      .limit(1);
    const now = new Date();
    await tx.insert(notarizedDocumentRevisions).values({
      notarizedDocumentId: row.id,
      storageKey: locked.storageKey,
      sha256: locked.sha256,
      sizeBytes: locked.sizeBytes,
      padesLevel: locked.padesLevel,
      replacedBecause: 'archive_timestamp_renewed',
      createdAt: latest?.replacedAt ?? locked.createdAt,
      replacedAt: now,
    });
    await tx
      .update(notarizedDocuments)
      .set({ storageKey: sha256, sha256, sizeBytes: renewed.pdf.length, archiveTimestampExpiresAt: renewed.archiveTimestampExpiresAt })
      .where(eq(notarizedDocuments.id, row.id));
    const [document] = await tx.select({ name: documents.name }).from(documents).where(eq(documents.id, row.documentId)).limit(1);
    await appendAuditEvent(
      { db: tx, user: null, ipAddress: 'archive-timestamp-renewal', userAgent: null },
      {
        jobId: row.jobId,
        action: 'document.archive_timestamp_renewed',
        data: {
          notarizedDocumentId: row.id,
          documentId: row.documentId,
          documentName: document?.name ?? null,
          previousSha256: locked.sha256,
          sha256,
          archiveTimestampExpiresAt: renewed.archiveTimestampExpiresAt.toISOString(),
          ...(renewed.missing.length > 0 ? { validationDataMissing: renewed.missing } : {}),
          ...(renewed.unpublished.length > 0 ? { revocationNotPublished: renewed.unpublished } : {}),
        },
      },
    );
    return true;
  });
  if (!isRecorded) {
    // Another pass recorded its own copy first; this one is referenced by nothing.
    await deps.storage.remove(sha256);
    return 'skipped';
  }
  return 'renewed';
}

/** One pass at `now`: every document whose archive timestamp expires within `windowMs` gets a new one. */
export async function renewDueArchiveTimestamps(deps: ArchiveRenewalDeps, windowMs: number, now = new Date()): Promise<RenewalPass> {
  const pass: RenewalPass = { renewed: 0, skipped: 0, failed: 0 };
  const { tsaUrl } = deps;
  if (!tsaUrl) return pass;
  const due = await deps.db
    .select()
    .from(notarizedDocuments)
    .where(and(isNotNull(notarizedDocuments.archiveTimestampExpiresAt), lte(notarizedDocuments.archiveTimestampExpiresAt, new Date(now.getTime() + windowMs))))
    .orderBy(asc(notarizedDocuments.archiveTimestampExpiresAt))
    .limit(batchSize);
  for (const row of due) {
    try {
      pass[await renewOne({ ...deps, tsaUrl }, row)] += 1;
    } catch (error) {
      pass.failed += 1;
      deps.log.error({ err: error, notarizedDocumentId: row.id }, 'Renewing the archive timestamp of a notarized document failed; the next pass tries again.');
    }
  }
  return pass;
}

/**
 * Runs a pass now and every `everyMs`; a pass still running is not started twice in this process.
 * Without a TSA it says so once and does nothing. The returned function stops it.
 */
export function startArchiveTimestampRenewal(deps: ArchiveRenewalDeps, options: { everyMs: number; windowMs: number }): () => void {
  if (!deps.tsaUrl) {
    deps.log.info('No TSA_URL: notarized documents get no archive timestamp, and none is renewed.');
    return () => {};
  }
  if (options.everyMs <= 0) return () => {};
  let isRunning = false;
  const run = () => {
    if (isRunning) return;
    isRunning = true;
    void renewDueArchiveTimestamps(deps, options.windowMs)
      .then((pass) => {
        if (pass.renewed + pass.failed > 0) deps.log.info({ ...pass }, 'Archive timestamps renewed.');
      })
      .catch((error: unknown) => deps.log.error({ err: error }, 'The archive-timestamp renewal pass failed.'))
      .finally(() => {
        isRunning = false;
      });
  };
  const timer = setInterval(run, options.everyMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}
