import fs from 'node:fs';
import path from 'node:path';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { NotaryArchive, NotaryCommission, RequestNotaryArchiveInput } from '#shared/journal-archives.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { notaryArchives, notaryJournalEntries, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { parseByteRange, type SegmentRange } from '#server/features/video/recording/recording-playback.service.ts';

/**
 * The notary's own archive of one commission (decision 059): asked for here, built by the
 * archive builder (tasks/archive-builder.ts, archive-build.ts), downloaded with byte ranges. The
 * notary asks for their own; an administrator asks on a notary's behalf (a storage contract ending,
 * 1 TAC 87.51(b)); nobody else, not another notary, sees one.
 */

export type ArchiveRow = typeof notaryArchives.$inferSelect;

/** The data directory's area for finished archives (and the one being written, as `.part`). */
export const archiveDirectoryName = 'archives';

export function archiveFilePath(dataDir: string, archiveId: string): string {
  return path.join(dataDir, archiveDirectoryName, `${archiveId}.zip`);
}

/** A ready archive past its time is expired from that moment, whether or not the builder's clean-up has run yet. */
function isPastItsTime(row: ArchiveRow, now = new Date()): boolean {
  return row.status === 'expired' || (row.status === 'ready' && row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime());
}

export function toNotaryArchive(row: ArchiveRow): NotaryArchive {
  const isExpired = isPastItsTime(row);
  return {
    id: row.id,
    notaryId: row.notaryId,
    commissionState: row.commissionState,
    commissionNumber: row.commissionNumber,
    status: isExpired ? 'expired' : row.status,
    filesTotal: row.filesTotal,
    filesDone: row.filesDone,
    bytesTotal: row.bytesTotal,
    bytesDone: row.bytesDone,
    sizeBytes: row.sizeBytes,
    sha256: row.sha256,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    // While building, expiresAt is the builder's lease, not something a person needs to see.
    expiresAt: row.status === 'ready' ? (row.expiresAt?.toISOString() ?? null) : null,
    downloadUrl: row.status === 'ready' && !isExpired ? `/api/notary-log/archives/${row.id}/download` : null,
  };
}

/** Whose archives: the caller's own (a notary), or, for an administrator, the notary named. */
async function archiveOwnerOf(ctx: Ctx, notaryId: string | undefined): Promise<{ notaryId: string; isOnBehalf: boolean }> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!notaryId || notaryId === user.id) {
    if (!user.roles.includes('notary')) throw forbidden('Only notaries keep a journal to export; an administrator names the notary.');
    return { notaryId: user.id, isOnBehalf: false };
  }
  if (!user.roles.includes('admin')) throw forbidden('Only the notary, or an administrator on their behalf, exports a notary’s records.');
  const [notary] = await ctx.db.select({ roles: users.roles }).from(users).where(eq(users.id, notaryId)).limit(1);
  if (!notary?.roles.includes('notary')) throw notFound('No notary with that id.');
  return { notaryId, isOnBehalf: true };
}

/** The archive if the caller may see it (its notary, or an administrator); another person gets 404 as if it did not exist. */
async function getOwnArchive(ctx: Ctx, archiveId: string): Promise<ArchiveRow> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const [row] = await ctx.db.select().from(notaryArchives).where(eq(notaryArchives.id, archiveId)).limit(1);
  if (!row || (row.notaryId !== user.id && !user.roles.includes('admin'))) throw notFound('No archive with that id among your records.');
  return row;
}

/**
 * The commissions the notary's finalized journal entries were made under: each act's commission is
 * the one its sealed document names (publicFacts); the profile's commission is always offered. An
 * entry whose sealed document is gone counts with the current commission.
 */
export async function findNotaryCommissions(db: DbOrTx, notaryId: string): Promise<NotaryCommission[]> {
  const [profile] = await db
    .select({ state: notaryProfiles.commissionState, number: notaryProfiles.commissionNumber })
    .from(notaryProfiles)
    .where(eq(notaryProfiles.userId, notaryId))
    .limit(1);
  const rows = (await db.execute(sql`
    select f.public_facts->>'commissionState' as state, f.public_facts->>'commissionNumber' as number, count(*) as entries
    from ${notaryJournalEntries} e
    left join lateral (
      select nd.public_facts from notarized_documents nd where nd.job_id = e.job_id and nd.document_id = e.document_id limit 1
    ) f on true
    where e.notary_id = ${notaryId} and e.status = 'final' and e.is_test = false
    group by 1, 2`)) as unknown as { rows: Array<{ state: string | null; number: string | null; entries: string | number }> };
  const commissions = new Map<string, NotaryCommission>();
  const add = (state: string, number: string, count: number, isCurrent: boolean) => {
    const key = JSON.stringify([state, number]);
    const known = commissions.get(key);
    commissions.set(key, { state, number, isCurrent: isCurrent || (known?.isCurrent ?? false), entryCount: (known?.entryCount ?? 0) + count });
  };
  if (profile) add(profile.state, profile.number, 0, true);
  for (const row of rows.rows) {
    const count = Number(row.entries);
    if (row.state && row.number) add(row.state, row.number, count, false);
    else if (profile) add(profile.state, profile.number, count, true);
  }
  return [...commissions.values()].sort((a, b) => Number(b.isCurrent) - Number(a.isCurrent) || a.number.localeCompare(b.number));
}

/** GET /api/notary-log/archives: the commissions to choose from and the archives asked for, newest first. */
export async function listNotaryArchives(ctx: Ctx, query: { notaryId?: string }) {
  const { notaryId } = await archiveOwnerOf(ctx, query.notaryId);
  const rows = await ctx.db.select().from(notaryArchives).where(eq(notaryArchives.notaryId, notaryId)).orderBy(desc(notaryArchives.createdAt)).limit(50);
  return { commissions: await findNotaryCommissions(ctx.db, notaryId), items: rows.map(toNotaryArchive) };
}

/** GET /api/notary-log/archives/{id}: one archive and how far its building is. */
export async function getNotaryArchive(ctx: Ctx, archiveId: string): Promise<NotaryArchive> {
  return toNotaryArchive(await getOwnArchive(ctx, archiveId));
}

/**
 * POST /api/notary-log/archives: queues the archive of one commission (the current one unless
 * another is named). One archive per notary is queued or building at a time: a second request is
 * refused with 409 until it is done. The request is in the account trail: who asked, for whom.
 */
export async function requestNotaryArchive(ctx: Ctx, input: RequestNotaryArchiveInput): Promise<NotaryArchive> {
  const { notaryId, isOnBehalf } = await archiveOwnerOf(ctx, input.notaryId);
  const commissions = await findNotaryCommissions(ctx.db, notaryId);
  const isNamed = Boolean(input.commissionNumber || input.commissionState);
  const commission = isNamed
    ? commissions.find((candidate) => candidate.number === input.commissionNumber && candidate.state === input.commissionState)
    : commissions.find((candidate) => candidate.isCurrent);
  if (!commission) {
    throw isNamed
      ? notFound('No journal entry was made under that commission: choose one of the commissions listed.')
      : conflict('There is no commission on the notary’s profile: choose one of the commissions listed.');
  }
  return ctx.db.transaction(async (tx) => {
    // Two requests at once: the second waits here, then sees the first.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`notary_archive:${notaryId}`}))`);
    const [active] = await tx
      .select({ id: notaryArchives.id })
      .from(notaryArchives)
      .where(and(eq(notaryArchives.notaryId, notaryId), inArray(notaryArchives.status, ['queued', 'building'])))
      .limit(1);
    if (active) {
      throw new AppError(409, 'conflict', 'An archive of these records is being built already: wait until it is ready, then ask for another.', {
        archiveId: active.id,
      });
    }
    const [row] = await tx
      .insert(notaryArchives)
      .values({ notaryId, requestedBy: ctx.user?.id ?? null, commissionState: commission.state, commissionNumber: commission.number })
      .returning();
    if (!row) throw new Error('the archive request was not stored');
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: 'journal.archive_requested',
        data: { userId: notaryId, notaryId, archiveId: row.id, commissionState: commission.state, commissionNumber: commission.number, isOnBehalf },
      },
    );
    return toNotaryArchive(row);
  });
}

/** What GET …/download serves: the finished file, its size and hash, the name it is saved under, and the bytes asked for. */
export interface ArchiveDownload {
  /** The file, open: a deletion while it is served unlinks the name, and the bytes still come whole. The caller closes it. */
  file: fs.promises.FileHandle;
  sizeBytes: number;
  sha256: string;
  fileName: string;
  /** null: the whole file; 'unsatisfiable': a range outside it. */
  range: SegmentRange;
}

export const archiveEtag = (sha256: string) => `"${sha256}"`;

/**
 * GET /api/notary-log/archives/{id}/download: the finished file, or the byte range asked for (a
 * validator in If-Range that is not this file's, another ETag or a date, means the whole file).
 * Whatever was asked, a download that serves the file's first byte is recorded in the account
 * trail; the resumed pieces of it are not (decided from the bytes served, not from how the Range
 * header is spelled, so no spelling fetches the whole file unrecorded).
 */
export async function openNotaryArchive(
  ctx: Ctx,
  archiveId: string,
  request: { method: string; range: string | undefined; ifRange: string | undefined },
): Promise<ArchiveDownload> {
  const row = await getOwnArchive(ctx, archiveId);
  if (isPastItsTime(row)) throw new AppError(410, 'link_expired', 'This archive expired and its file was deleted: ask for a new one.');
  if (row.status !== 'ready' || !row.sha256 || row.sizeBytes === null) {
    throw conflict(
      row.status === 'failed' ? 'This archive could not be built: ask for a new one.' : 'This archive is still being built: download it once it is ready.',
    );
  }
  const file = await fs.promises.open(archiveFilePath(ctx.config.dataDir, row.id), 'r').catch(() => null);
  const stats = await file?.stat().catch(() => null);
  if (!file || !stats || stats.size !== row.sizeBytes) {
    await file?.close();
    throw notFound('The archive’s file is not on this server (it was built on another instance, or removed): ask for a new one.');
  }
  const range = request.ifRange !== undefined && request.ifRange !== archiveEtag(row.sha256) ? null : parseByteRange(request.range, row.sizeBytes);
  const isStart = range === null || (range !== 'unsatisfiable' && range.start === 0);
  if (request.method === 'GET' && isStart) {
    try {
      await appendAuditEvent(ctx, {
        action: 'journal.archive_downloaded',
        data: { userId: row.notaryId, notaryId: row.notaryId, archiveId: row.id, commissionState: row.commissionState, commissionNumber: row.commissionNumber },
      });
    } catch (error) {
      await file.close();
      throw error;
    }
  }
  const safe = (text: string) => text.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'commission';
  // Day and UTC time to the minute: two archives of one day get two names in a downloads folder.
  const made = (row.finishedAt ?? row.createdAt).toISOString();
  const day = `${made.slice(0, 10)}-${made.slice(11, 13)}${made.slice(14, 16)}`;
  return {
    file,
    sizeBytes: row.sizeBytes,
    sha256: row.sha256,
    fileName: `open-ron-archive-${safe(row.commissionState)}-${safe(row.commissionNumber)}-${day}.zip`,
    range,
  };
}

/** DELETE /api/notary-log/archives/{id}: the file and its row go; one being built is left to finish first. */
export async function deleteNotaryArchive(ctx: Ctx, archiveId: string): Promise<{ deleted: true }> {
  const row = await getOwnArchive(ctx, archiveId);
  if (row.status === 'building') throw conflict('This archive is being built: delete it once it is ready.');
  await fs.promises.rm(archiveFilePath(ctx.config.dataDir, row.id), { force: true });
  await ctx.db.transaction(async (tx) => {
    await tx.delete(notaryArchives).where(eq(notaryArchives.id, row.id));
    await appendAuditEvent(
      { ...ctx, db: tx },
      { action: 'journal.archive_deleted', data: { userId: row.notaryId, notaryId: row.notaryId, archiveId: row.id } },
    );
  });
  return { deleted: true };
}
