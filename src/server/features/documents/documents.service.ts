import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { documentMessages, pickDefaultDocumentTag, type DocumentTag, type JobDocument, type updateDocumentInputSchema } from '#shared/documents.ts';
import { isJobEditable } from '#shared/jobs.ts';
import { documents, jobAuditAssets } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getJobAccess, requirePermission, type JobAccess } from '#server/features/jobs/job-access.ts';
import { assertPrintable, describeUnprintableInput } from '#server/features/notarization/pdf-fonts.ts';
import { assertRequiredFieldsFilled, hasFilledFields, publishJobChange } from '#server/features/fields/fields.service.ts';
import { findJobTypeDocumentTags } from '#server/features/title-companies/job-types.service.ts';
import { receiveToMemory, writeTempFile } from '#server/providers/storage/storage.ts';
import { checkPdfBytes } from './pdf-check-pool.ts';

type DocumentRow = typeof documents.$inferSelect;

/**
 * One uploaded file, read and checked: either a private temporary file with its page count, or the
 * reason it is refused (thrown by addDocuments, so a batch is answered in the order it was sent).
 */
export type ReceivedFile = { fileName: string; name: string; sha256: string; sizeBytes: number } & (
  { filePath: string; pageCount: number; problem: null } | { filePath: null; pageCount: null; problem: AppError }
);

export function toDocument(row: DocumentRow): JobDocument {
  return {
    id: row.id,
    jobId: row.jobId,
    name: row.name,
    tag: row.tag,
    position: row.position,
    pageCount: row.pageCount,
    sizeBytes: row.sizeBytes,
    sha256: row.sha256,
    version: row.version,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function assertDocumentsEditable(access: JobAccess): void {
  requirePermission(access, 'canEdit');
  if (!isJobEditable(access.job.status)) {
    throw new AppError(409, 'job_locked', `Documents cannot change while the job is ${access.job.status.replace('_', ' ')}.`);
  }
}

export async function findDocuments(ctx: Ctx, jobId: string): Promise<JobDocument[]> {
  await getJobAccess(ctx, jobId);
  const rows = await ctx.db.select().from(documents).where(eq(documents.jobId, jobId)).orderBy(asc(documents.position), asc(documents.createdAt));
  return rows.map(toDocument);
}

/** Checked before any upload bytes are read: the caller may add documents to this job now. */
export async function assertCanUpload(ctx: Ctx, jobId: string): Promise<void> {
  assertDocumentsEditable(await getJobAccess(ctx, jobId));
}

function cleanDocumentName(fileName: string): string {
  const base = [...fileName.replace(/^.*[\\/]/, '')]
    .filter((character) => character.charCodeAt(0) >= 0x20)
    .join('')
    .trim();
  // At most 200 characters, cut between characters: never half of a pair outside the BMP.
  return [...(base || 'document.pdf')].slice(0, 200).join('');
}

/** A byte count for people: "50 MB", "1.5 MB", "20 KB" (a limit under 1 MB used to read "0 MB"). */
function describeSize(bytes: number): string {
  const megabytes = bytes / 1024 / 1024;
  if (megabytes >= 1) return `${Number.isInteger(megabytes) ? megabytes : megabytes.toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/**
 * Reads one uploaded file in one pass (hashed as it streams in, held in memory up to the size limit),
 * checks it (size, magic bytes, one full parse, no encryption) and only then writes it, with one
 * write, to a private temporary file that addDocuments moves into storage. A refused file is never
 * written.
 */
export async function receiveDocument(ctx: Ctx, source: Readable, fileName: string, sizeHint?: number): Promise<ReceivedFile> {
  const name = cleanDocumentName(fileName);
  const maxBytes = ctx.config.documentMaxBytes;
  const received = await receiveToMemory(source, maxBytes, sizeHint);
  const refuse = (problem: AppError): ReceivedFile => ({
    fileName,
    name,
    sha256: received.sha256,
    sizeBytes: received.sizeBytes,
    filePath: null,
    pageCount: null,
    problem,
  });
  if (received.isTooLarge)
    return refuse(new AppError(413, 'file_too_large', `${name}: this file is larger than the ${describeSize(maxBytes)} limit.`, { maxBytes }));
  if (received.sizeBytes === 0) return refuse(new AppError(422, 'broken_pdf', `${name}: the file is empty.`));
  let pageCount: number;
  try {
    pageCount = await checkPdfBytes(received.bytes, name, { account: ctx.user?.id, network: ctx.ipAddress });
  } catch (error) {
    if (error instanceof AppError) return refuse(error);
    throw error;
  }
  const unprintable = describeUnprintableInput([{ label: 'file name', text: name }]);
  if (unprintable) return refuse(new AppError(400, 'unprintable_text', unprintable));
  const filePath = await writeTempFile(path.join(ctx.config.dataDir, 'tmp'), received.bytes);
  return { fileName, name, sha256: received.sha256, sizeBytes: received.sizeBytes, filePath, pageCount, problem: null };
}

/**
 * Stores uploaded PDFs (from receiveDocument): if any file of the batch was refused, the first
 * refusal is thrown and the job is unchanged; otherwise each file is moved into storage (a rename
 * for local storage) and the rows and audit events are written in one transaction. Without a tag,
 * every file takes the job's default: the first document tag of its job type now, else signing
 * (decision 043).
 */
export async function addDocuments(ctx: Ctx, jobId: string, files: ReceivedFile[], requestedTag: DocumentTag | undefined): Promise<JobDocument[]> {
  if (files.length === 0) throw new AppError(400, 'no_file', documentMessages.noFiles);
  const checked: Array<ReceivedFile & { problem: null }> = [];
  for (const file of files) {
    if (file.problem) throw file.problem;
    checked.push(file);
  }
  for (const file of checked) await ctx.storage.moveFile(file.filePath, file.sha256, 'application/pdf');
  const rows = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    assertDocumentsEditable(access);
    const tag = requestedTag ?? pickDefaultDocumentTag(await findJobTypeDocumentTags(tx, access.job.jobTypeId));
    const [{ next = 0 } = {}] = await tx
      .select({ next: sql<number>`coalesce(max(${documents.position}) + 1, 0)::int` })
      .from(documents)
      .where(eq(documents.jobId, jobId));
    const inserted: DocumentRow[] = [];
    for (const [index, file] of checked.entries()) {
      const [row] = await tx
        .insert(documents)
        .values({
          jobId,
          name: file.name,
          tag,
          position: next + index,
          pageCount: file.pageCount,
          sizeBytes: file.sizeBytes,
          sha256: file.sha256,
          storageKey: file.sha256,
          createdBy: ctx.user?.id ?? null,
        })
        .returning();
      if (!row) throw new Error('document insert returned no row');
      inserted.push(row);
      await appendAuditEvent(txCtx, {
        jobId,
        action: 'document.uploaded',
        data: { documentId: row.id, name: row.name, sha256: row.sha256, pageCount: row.pageCount, sizeBytes: row.sizeBytes, tag },
      });
    }
    return inserted;
  });
  return rows.map(toDocument);
}

async function getDocumentRow(ctx: Ctx, jobId: string, documentId: string, forUpdate = false): Promise<DocumentRow> {
  if (!/^[0-9a-f-]{36}$/i.test(documentId)) throw notFound('No document with that id on this job.');
  const query = ctx.db
    .select()
    .from(documents)
    .where(and(eq(documents.jobId, jobId), eq(documents.id, documentId)))
    .limit(1);
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw notFound('No document with that id on this job.');
  return row;
}

/** Reads an If-Match header ("3", W/"3" or 3) as a version number. */
export function parseIfMatch(header: string | undefined): number | null {
  if (!header) return null;
  const match = header.trim().match(/^(?:W\/)?"?(\d+)"?$/);
  return match?.[1] ? Number(match[1]) : NaN;
}

function assertVersion(row: DocumentRow, versions: Array<number | null>): void {
  if (versions.some((version) => version === null)) {
    throw new AppError(428, 'precondition_required', 'Send the If-Match header with the document version you edited.');
  }
  if (versions.some((version) => version !== row.version)) {
    throw new AppError(412, 'stale_version', documentMessages.stale, { currentVersion: row.version });
  }
}

export async function updateDocument(
  ctx: Ctx,
  jobId: string,
  documentId: string,
  ifMatch: number | null,
  input: z.output<typeof updateDocumentInputSchema>,
): Promise<JobDocument> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    assertDocumentsEditable(access);
    const row = await getDocumentRow(txCtx, jobId, documentId, true);
    assertVersion(row, [ifMatch, input.clientSnapshotVersion]);
    // A signing document that was signed must be sealed as what it was signed as, under the name it had.
    if (await hasFilledFields(tx, { jobId, documentId })) {
      throw new AppError(409, 'field_filled', 'This document holds filled fields, so its name and tag can no longer change.');
    }
    if (input.name !== undefined) assertPrintable([{ label: 'document name', text: cleanDocumentName(input.name) }]);
    const changes = { ...(input.name !== undefined ? { name: cleanDocumentName(input.name) } : {}), ...(input.tag !== undefined ? { tag: input.tag } : {}) };
    const [updated] = await tx
      .update(documents)
      .set({ ...changes, version: row.version + 1, updatedAt: new Date() })
      .where(eq(documents.id, documentId))
      .returning();
    if (!updated) throw notFound('No document with that id on this job.');
    await appendAuditEvent(txCtx, { jobId, action: 'document.updated', data: { documentId, name: row.name, changes, version: updated.version } });
    return toDocument(updated);
  });
}

/** The page-unload beacon: applies the edit only if nobody changed the document meanwhile. */
export async function flushDocument(
  ctx: Ctx,
  jobId: string,
  documentId: string,
  input: z.output<typeof updateDocumentInputSchema>,
): Promise<{ isApplied: boolean; currentVersion: number }> {
  try {
    const updated = await updateDocument(ctx, jobId, documentId, input.clientSnapshotVersion, input);
    return { isApplied: true, currentVersion: updated.version };
  } catch (error) {
    if (error instanceof AppError && error.code === 'stale_version') {
      return { isApplied: false, currentVersion: (error.detail as { currentVersion: number }).currentVersion };
    }
    throw error;
  }
}

export async function deleteDocument(ctx: Ctx, jobId: string, documentId: string, ifMatch: number | null): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    assertDocumentsEditable(access);
    const row = await getDocumentRow(txCtx, jobId, documentId, true);
    assertVersion(row, [ifMatch]);
    if (await hasFilledFields(tx, { jobId, documentId })) throw new AppError(409, 'field_filled', 'This document holds filled fields and cannot be removed.');
    await tx.delete(documents).where(eq(documents.id, documentId));
    await appendAuditEvent(txCtx, { jobId, action: 'document.deleted', data: { documentId, name: row.name, sha256: row.sha256 } });
  });
}

export async function reorderDocuments(ctx: Ctx, jobId: string, order: string[]): Promise<JobDocument[]> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    assertDocumentsEditable(access);
    const rows = await tx.select().from(documents).where(eq(documents.jobId, jobId));
    const known = new Set(rows.map((row) => row.id));
    if (order.length !== rows.length || new Set(order).size !== order.length || order.some((id) => !known.has(id))) {
      throw badRequest('The order must list every document of the job exactly once.', { expected: rows.length });
    }
    const updated: DocumentRow[] = [];
    for (const [position, id] of order.entries()) {
      const [row] = await tx.update(documents).set({ position, updatedAt: new Date() }).where(eq(documents.id, id)).returning();
      if (row) updated.push(row);
    }
    await appendAuditEvent(txCtx, { jobId, action: 'documents.reordered', data: { order } });
    return updated.map(toDocument);
  });
}

export async function completeDocument(ctx: Ctx, jobId: string, documentId: string): Promise<JobDocument> {
  const completed = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canCompleteDocuments', 'Only the job’s notary or an administrator may complete a document.');
    if (access.job.status === 'completed' || access.job.status === 'cancelled' || access.job.status === 'draft') {
      throw new AppError(409, 'job_locked', `Documents cannot be completed while the job is ${access.job.status}.`);
    }
    const row = await getDocumentRow(txCtx, jobId, documentId, true);
    if (row.status === 'completed') throw conflict('This document is already complete.');
    await assertRequiredFieldsFilled(tx, documentId);
    const [updated] = await tx
      .update(documents)
      .set({ status: 'completed', version: row.version + 1, updatedAt: new Date() })
      .where(eq(documents.id, documentId))
      .returning();
    if (!updated) throw notFound('No document with that id on this job.');
    await appendAuditEvent(txCtx, { jobId, action: 'document.completed', data: { documentId, documentName: row.name, sha256: row.sha256 } });
    return toDocument(updated);
  });
  await publishJobChange(ctx, jobId, { type: 'document.changed', documentId });
  return completed;
}

export async function openDocumentFile(ctx: Ctx, jobId: string, documentId: string): Promise<{ stream: Readable; name: string; sizeBytes: number }> {
  await getJobAccess(ctx, jobId);
  const row = await getDocumentRow(ctx, jobId, documentId);
  return { stream: await ctx.storage.openStream(row.storageKey), name: row.name, sizeBytes: row.sizeBytes };
}

/** Tags a job document as an audit asset (an ID image, a recording export…). */
export async function addAuditAsset(ctx: Ctx, jobId: string, documentId: string, tag: string): Promise<{ ok: true }> {
  await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit');
    const document = await getDocumentRow(txCtx, jobId, documentId);
    const added = await tx
      .insert(jobAuditAssets)
      .values({ jobId, documentId, tag, createdBy: ctx.user?.id ?? null })
      .onConflictDoNothing()
      .returning({ tag: jobAuditAssets.tag });
    // Tagging twice changes nothing, so the trail records it once.
    if (added.length > 0) await appendAuditEvent(txCtx, { jobId, action: 'audit_asset.added', data: { documentId, documentName: document.name, tag } });
  });
  return { ok: true };
}

export async function removeAuditAsset(ctx: Ctx, jobId: string, documentId: string, tag: string): Promise<{ ok: true }> {
  await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit');
    const removed = await tx
      .delete(jobAuditAssets)
      .where(and(eq(jobAuditAssets.jobId, jobId), eq(jobAuditAssets.documentId, documentId), eq(jobAuditAssets.tag, tag)))
      .returning({ tag: jobAuditAssets.tag });
    if (removed.length === 0) throw notFound('That document does not carry that audit tag.');
    const document = await getDocumentRow(txCtx, jobId, documentId);
    await appendAuditEvent(txCtx, { jobId, action: 'audit_asset.removed', data: { documentId, documentName: document.name, tag } });
  });
  return { ok: true };
}

/** Removes what receiveDocument wrote and addDocuments did not move (a refused batch, a failed request). */
export async function removeTempFiles(files: Array<{ filePath: string | null }>): Promise<void> {
  await Promise.all(files.map((file) => (file.filePath ? fs.promises.rm(file.filePath, { force: true }) : undefined)));
}
