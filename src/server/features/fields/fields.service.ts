import { and, asc, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import type { z } from 'zod';
import {
  isCalendarDay,
  isNotaryField,
  notaryFieldTypes,
  type DocumentField,
  type createFieldInputSchema,
  type fillFieldInputSchema,
  type updateFieldInputSchema,
} from '#shared/fields.ts';
import { getCalendarDay } from '#shared/dates.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { documentFields, documents, jobParticipants, userSignatures } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getJobAccess, requirePermission, type JobAccess } from '#server/features/jobs/job-access.ts';
import { getCurrentSignature } from '#server/features/signatures/signatures.service.ts';
import { assertPrintable } from '#server/features/notarization/pdf-fonts.ts';
import { assertSessionRecording } from '#server/features/video/recording/recording-rules.ts';

type FieldRow = typeof documentFields.$inferSelect;
type DocumentRow = typeof documents.$inferSelect;

export function toField(row: FieldRow): DocumentField {
  return {
    id: row.id,
    documentId: row.documentId,
    type: row.type,
    page: row.page,
    x: row.x,
    y: row.y,
    width: row.width,
    height: row.height,
    participantId: row.participantId,
    isRequired: row.isRequired,
    isOnEveryPage: row.isOnEveryPage,
    value: row.value,
    imageUrl: row.signatureId ? `/api/jobs/${row.jobId}/documents/${row.documentId}/fields/${row.id}/image` : null,
    filledAt: row.filledAt?.toISOString() ?? null,
    version: row.version,
  };
}

/** Tells every browser in the job's live channel (on every instance) that something changed. */
export async function publishJobChange(ctx: Pick<Ctx, 'realtime' | 'log'>, jobId: string, message: Record<string, unknown>): Promise<void> {
  try {
    await ctx.realtime.publish(`job:${jobId}`, JSON.stringify(message));
  } catch (error) {
    ctx.log.warn({ err: error, jobId }, 'live update not published');
  }
}

async function getDocument(db: DbOrTx, jobId: string, documentId: string): Promise<DocumentRow> {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.jobId, jobId), eq(documents.id, documentId)))
    .limit(1);
  if (!row) throw notFound('No document with that id on this job.');
  return row;
}

function assertDocumentOpen(access: JobAccess, document: DocumentRow): void {
  if (access.job.status === 'completed' || access.job.status === 'cancelled') {
    throw new AppError(409, 'job_locked', `Fields cannot change: the job is ${access.job.status}.`);
  }
  if (document.status === 'completed') throw new AppError(409, 'document_completed', 'Fields cannot change after the document is complete.');
}

async function getFieldRow(db: DbOrTx, documentId: string, fieldId: string): Promise<FieldRow> {
  const [row] = await db
    .select()
    .from(documentFields)
    .where(and(eq(documentFields.documentId, documentId), eq(documentFields.id, fieldId)))
    .limit(1);
  if (!row) throw notFound('No field with that id on this document.');
  return row;
}

function assertVersion(row: FieldRow, version: number): void {
  if (row.version !== version) {
    throw new AppError(412, 'stale_version', 'Someone changed this field after you loaded it. The latest version is shown now.', {
      currentVersion: row.version,
    });
  }
}

export async function findFields(ctx: Ctx, jobId: string, documentId: string): Promise<DocumentField[]> {
  await getJobAccess(ctx, jobId);
  await getDocument(ctx.db, jobId, documentId);
  const rows = await ctx.db
    .select()
    .from(documentFields)
    .where(eq(documentFields.documentId, documentId))
    .orderBy(asc(documentFields.page), asc(documentFields.createdAt));
  return rows.map(toField);
}

/** Checks who a field may belong to; returns the participant's name (null for the notary's fields). */
async function assertParticipant(db: DbOrTx, jobId: string, participantId: string | null | undefined, isNotaryType: boolean): Promise<string | null> {
  if (isNotaryType) {
    if (participantId) throw badRequest('Notary fields belong to the notary; do not assign them to a participant.');
    return null;
  }
  if (!participantId) throw badRequest('Assign this field to a signer.');
  const [row] = await db
    .select({ role: jobParticipants.role, name: jobParticipants.name })
    .from(jobParticipants)
    .where(and(eq(jobParticipants.jobId, jobId), eq(jobParticipants.id, participantId)))
    .limit(1);
  if (!row) throw badRequest('That participant is not on this job.');
  if (row.role === 'observer') throw badRequest('Observers do not fill fields; assign it to a signer or witness.');
  return row.name;
}

async function findParticipantName(db: DbOrTx, participantId: string | null): Promise<string | null> {
  if (!participantId) return null;
  const [row] = await db.select({ name: jobParticipants.name }).from(jobParticipants).where(eq(jobParticipants.id, participantId)).limit(1);
  return row?.name ?? null;
}

/** What the trail records of a field, so its sentence can say where it is: "page 3 of deed.pdf". */
function describeFieldForAudit(field: FieldRow, document: DocumentRow) {
  return { documentId: document.id, documentName: document.name, fieldId: field.id, type: field.type, page: field.page, isOnEveryPage: field.isOnEveryPage };
}

/** The notary (or whoever prepares the job) places a field. */
export async function createField(ctx: Ctx, jobId: string, documentId: string, input: z.output<typeof createFieldInputSchema>): Promise<DocumentField> {
  const row = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit', 'Only the notary or the job’s preparer places fields.');
    const document = await getDocument(tx, jobId, documentId);
    assertDocumentOpen(access, document);
    if (input.page > document.pageCount) throw badRequest(`This document has ${document.pageCount} page(s).`);
    const participantName = await assertParticipant(tx, jobId, input.participantId, isNotaryField(input.type));
    const [created] = await tx
      .insert(documentFields)
      .values({ ...input, participantId: input.participantId ?? null, jobId, documentId, createdBy: ctx.user?.id ?? null })
      .returning();
    if (!created) throw new Error('field insert returned no row');
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'field.placed',
      data: { ...describeFieldForAudit(created, document), participantId: created.participantId, participantName },
    });
    return created;
  });
  await publishJobChange(ctx, jobId, { type: 'fields.changed', documentId });
  return toField(row);
}

export async function updateField(
  ctx: Ctx,
  jobId: string,
  documentId: string,
  fieldId: string,
  input: z.output<typeof updateFieldInputSchema>,
): Promise<DocumentField> {
  const row = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit', 'Only the notary or the job’s preparer moves fields.');
    const document = await getDocument(tx, jobId, documentId);
    assertDocumentOpen(access, document);
    const current = await getFieldRow(tx, documentId, fieldId);
    if (current.filledAt) throw new AppError(409, 'field_filled', 'A filled field cannot be moved, resized or reassigned: it holds what was signed.');
    assertVersion(current, input.version);
    const { version: _version, ...changes } = input;
    const next = { ...current, ...changes };
    if (next.page > document.pageCount) throw badRequest(`This document has ${document.pageCount} page(s).`);
    if (next.x + next.width > 1.0001 || next.y + next.height > 1.0001) throw badRequest('The field must stay inside the page.');
    if (changes.participantId !== undefined) await assertParticipant(tx, jobId, changes.participantId, isNotaryField(current.type));
    const [updated] = await tx
      .update(documentFields)
      .set({ ...changes, version: current.version + 1, updatedAt: new Date() })
      .where(and(eq(documentFields.id, fieldId), eq(documentFields.version, current.version)))
      .returning();
    if (!updated) throw new AppError(412, 'stale_version', 'Someone changed this field after you loaded it.', { currentVersion: current.version + 1 });
    return updated;
  });
  await publishJobChange(ctx, jobId, { type: 'fields.changed', documentId });
  return toField(row);
}

export async function deleteField(ctx: Ctx, jobId: string, documentId: string, fieldId: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    requirePermission(access, 'canEdit', 'Only the notary or the job’s preparer removes fields.');
    const document = await getDocument(tx, jobId, documentId);
    assertDocumentOpen(access, document);
    const current = await getFieldRow(tx, documentId, fieldId);
    if (current.filledAt) throw new AppError(409, 'field_filled', 'A filled field cannot be removed: it holds what was signed.');
    const participantName = await findParticipantName(tx, current.participantId);
    await tx.delete(documentFields).where(eq(documentFields.id, fieldId));
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'field.removed',
      data: { ...describeFieldForAudit(current, document), participantId: current.participantId, participantName },
    });
  });
  await publishJobChange(ctx, jobId, { type: 'fields.changed', documentId });
}

/**
 * Fills a field during the session: a signer only their own fields, the notary only the notary's.
 * Signature and initials fields take the person's saved image; name and date are set by the server.
 */
export async function fillField(
  ctx: Ctx,
  jobId: string,
  documentId: string,
  fieldId: string,
  input: z.output<typeof fillFieldInputSchema>,
): Promise<DocumentField> {
  const row = await ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const access = await getJobAccess(txCtx, jobId, { forUpdate: true });
    const document = await getDocument(tx, jobId, documentId);
    assertDocumentOpen(access, document);
    if (access.job.status !== 'in_session') throw new AppError(409, 'session_not_live', 'Fields are filled during the live session.');
    // The fields of a notarial act are filled only while its session is recorded (decision 022).
    await assertSessionRecording(tx, jobId);
    const current = await getFieldRow(tx, documentId, fieldId);
    assertVersion(current, input.version);
    if (current.filledAt) throw new AppError(409, 'field_filled', 'This field is already filled.');
    // A filled value cannot be changed: text no font of the record prints is refused before it is kept.
    assertPrintable([{ label: 'text', text: input.value }]);
    const userId = access.userId;
    if (isNotaryField(current.type)) {
      if (access.job.notaryId !== userId) throw forbidden('Only the notary fills the notary’s fields.');
    } else if (!access.participant || access.participant.id !== current.participantId) {
      throw forbidden('You can only fill your own fields.');
    } else if (access.participant.role === 'observer') {
      // A field placed for someone who was since made an observer stays theirs, but observers never sign.
      throw forbidden('Observers watch the session and never fill fields; the job’s preparer must make you a signer or witness first.');
    }
    let value: string | null = null;
    let signatureId: string | null = null;
    switch (current.type) {
      case 'signature':
      case 'notary_signature':
      case 'initials': {
        signatureId = (await getCurrentSignature(tx, userId, current.type === 'initials' ? 'initials' : 'signature'))?.id ?? null;
        if (!signatureId) {
          throw new AppError(409, 'signature_missing', `Save your ${current.type === 'initials' ? 'initials' : 'signature'} first.`, {
            needs: current.type === 'initials' ? 'initials' : 'signature',
          });
        }
        break;
      }
      case 'date_signed':
        // The day where the signer is, as they would write it by hand.
        value = getCalendarDay(new Date(), input.timeZone);
        break;
      case 'name':
        value = access.participant?.name ?? ctx.user?.name ?? null;
        break;
      case 'date':
        if (!input.value || !isCalendarDay(input.value)) throw badRequest('Choose a date.');
        value = input.value;
        break;
      case 'text':
        if (!input.value?.trim()) throw badRequest('Type the text for this field.');
        value = input.value.trim();
        break;
      case 'checkbox':
        value = input.value === 'false' ? 'false' : 'true';
        break;
      case 'notary_seal':
      case 'notarial_certificate':
        value = 'applied';
        break;
    }
    const [updated] = await tx
      .update(documentFields)
      .set({ value, signatureId, filledAt: new Date(), filledBy: userId, version: current.version + 1, updatedAt: new Date() })
      .where(and(eq(documentFields.id, fieldId), eq(documentFields.version, current.version), isNull(documentFields.filledAt)))
      .returning();
    if (!updated) throw new AppError(412, 'stale_version', 'Someone changed this field after you loaded it.', { currentVersion: current.version + 1 });
    await appendAuditEvent(txCtx, {
      jobId,
      action: 'field.filled',
      data: { ...describeFieldForAudit(current, document), participantId: current.participantId },
    });
    return updated;
  });
  await publishJobChange(ctx, jobId, { type: 'fields.changed', documentId });
  return toField(row);
}

/**
 * Whether any field is filled on the job (or for one participant, on one document, or among the
 * notary's fields). What someone signed must not change under them: callers refuse edits then.
 */
export async function hasFilledFields(
  db: DbOrTx,
  filter: { jobId: string; participantId?: string; documentId?: string; isNotaryOnly?: boolean },
): Promise<boolean> {
  const rows = await db
    .select({ id: documentFields.id })
    .from(documentFields)
    .where(
      and(
        eq(documentFields.jobId, filter.jobId),
        isNotNull(documentFields.filledAt),
        filter.participantId ? eq(documentFields.participantId, filter.participantId) : undefined,
        filter.documentId ? eq(documentFields.documentId, filter.documentId) : undefined,
        filter.isNotaryOnly ? inArray(documentFields.type, [...notaryFieldTypes]) : undefined,
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** A document may be completed once every required field is filled. */
export async function assertRequiredFieldsFilled(db: DbOrTx, documentId: string): Promise<void> {
  const open = await db
    .select({ id: documentFields.id, type: documentFields.type })
    .from(documentFields)
    .where(and(eq(documentFields.documentId, documentId), eq(documentFields.isRequired, true), isNull(documentFields.filledAt)));
  if (open.length > 0) throw conflict(`${open.length} required field(s) are not filled yet.`, { openFieldIds: open.map((field) => field.id) });
}

/** The signature image of a filled field, for anyone who may see the job. */
export async function openFieldImage(ctx: Ctx, jobId: string, documentId: string, fieldId: string): Promise<Buffer> {
  await getJobAccess(ctx, jobId);
  const field = await getFieldRow(ctx.db, documentId, fieldId);
  if (field.jobId !== jobId || !field.signatureId) throw notFound('This field has no image.');
  const [signature] = await ctx.db
    .select({ storageKey: userSignatures.storageKey })
    .from(userSignatures)
    .where(eq(userSignatures.id, field.signatureId))
    .limit(1);
  if (!signature) throw notFound('This field has no image.');
  return ctx.storage.read(signature.storageKey);
}
