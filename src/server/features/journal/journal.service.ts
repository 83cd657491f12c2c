import { and, asc, count, desc, eq, gte, ilike, inArray, lt, sql } from 'drizzle-orm';
import { policyFor } from '#shared/identity-policies.ts';
import { csvField, type FinalizeJournalInput, type JournalEntry, type JournalEntryContent, type JournalQuery } from '#shared/journal.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { notaryJournalAddenda, notaryJournalEntries, notaryProfiles } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { prepareNotaryLog } from '#server/features/notarization/notarization.service.ts';

type EntryRow = typeof notaryJournalEntries.$inferSelect;

async function toEntries(db: DbOrTx, rows: EntryRow[]): Promise<JournalEntry[]> {
  const addenda = rows.length
    ? await db.select().from(notaryJournalAddenda).where(inArray(notaryJournalAddenda.entryId, rows.map((row) => row.id))).orderBy(asc(notaryJournalAddenda.createdAt))
    : [];
  return rows.map((row) => ({
    id: row.id,
    jobId: row.jobId,
    status: row.status,
    isTest: row.isTest,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
    finalizedAt: row.finalizedAt?.toISOString() ?? null,
    keptUntil: row.keptUntil?.toISOString() ?? null,
    addenda: addenda.filter((addendum) => addendum.entryId === row.id).map((addendum) => ({ id: addendum.id, text: addendum.text, createdAt: addendum.createdAt.toISOString() })),
  }));
}

/** The job's notary (or an admin) working on the job's journal entries; the notary whose journal they are. */
async function requireJournalOwner(ctx: Ctx, jobId: string): Promise<{ notaryId: string; isAdmin: boolean }> {
  const access = await getJobAccess(ctx, jobId);
  const isAdmin = access.actors.includes('admin');
  if (!access.actors.includes('notary') && !isAdmin) throw forbidden('Only the job’s notary keeps its journal entries.');
  if (!access.job.notaryId) throw conflict('The job has no notary, so no journal to write in.');
  return { notaryId: access.job.notaryId, isAdmin };
}

/**
 * Stores the drafts prepared from what the platform recorded (prepare-notary-log): one per signer per
 * signing document. A draft is brought up to date; a finalized entry is never touched.
 */
export async function storeJournalDrafts(ctx: Ctx, jobId: string): Promise<JournalEntry[]> {
  const { notaryId } = await requireJournalOwner(ctx, jobId);
  const { entries } = await prepareNotaryLog(ctx, jobId);
  return ctx.db.transaction(async (tx) => {
    for (const entry of entries) {
      const content: JournalEntryContent = {
        notarizedAt: entry.notarizedAt,
        actType: entry.actType,
        documentName: entry.documentName,
        documentSha256: entry.notarizedSha256,
        signerName: entry.signerName,
        signerEmail: entry.signerEmail,
        signerAddress: null,
        identityMethod: entry.identityMethod,
        identityEvidence: entry.identityEvidence,
        recordingReference: entry.recordingReference,
        feeCents: entry.feeCents,
        notes: null,
      };
      await tx
        .insert(notaryJournalEntries)
        .values({ notaryId, jobId, documentId: entry.documentId, participantId: entry.participantId, content })
        .onConflictDoUpdate({
          target: [notaryJournalEntries.jobId, notaryJournalEntries.documentId, notaryJournalEntries.participantId],
          set: { content },
          setWhere: sql`${notaryJournalEntries.status} = 'draft'`,
        });
    }
    const rows = await tx.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.jobId, jobId)).orderBy(asc(notaryJournalEntries.createdAt));
    return toEntries(tx, rows);
  });
}

/** GET /api/notary-log/drafts/{jobId}: the job's entries still open. */
export async function findJournalDrafts(ctx: Ctx, jobId: string): Promise<JournalEntry[]> {
  await requireJournalOwner(ctx, jobId);
  const rows = await ctx.db
    .select()
    .from(notaryJournalEntries)
    .where(and(eq(notaryJournalEntries.jobId, jobId), eq(notaryJournalEntries.status, 'draft')))
    .orderBy(asc(notaryJournalEntries.createdAt));
  return toEntries(ctx.db, rows);
}

/**
 * POST /api/notary-log/finalize/{jobId}: the notary completes each draft (the signer's address, the
 * fee, notes) and the entries become final for good. Only a sealed act is journaled.
 */
export async function finalizeJournal(ctx: Ctx, jobId: string, input: FinalizeJournalInput): Promise<JournalEntry[]> {
  const { notaryId } = await requireJournalOwner(ctx, jobId);
  if (ctx.user?.id !== notaryId) throw forbidden('Only the notary whose journal it is finalizes its entries.');
  return ctx.db.transaction(async (tx) => {
    const ids = input.entries.map((entry) => entry.id);
    const rows = await tx.select().from(notaryJournalEntries).where(and(eq(notaryJournalEntries.jobId, jobId), inArray(notaryJournalEntries.id, ids))).for('update');
    const missing = ids.filter((id) => !rows.some((row) => row.id === id));
    if (missing.length > 0) throw new AppError(404, 'not_found', 'Some entries are not drafts of this job.', { ids: missing });
    const final = rows.filter((row) => row.status === 'final');
    if (final.length > 0) throw new AppError(409, 'journal_entry_final', 'A finalized journal entry never changes; add an addendum to it instead.', { ids: final.map((row) => row.id) });
    const unsealed = rows.filter((row) => !row.content.notarizedAt);
    if (unsealed.length > 0) throw new AppError(409, 'not_notarized', 'Only a sealed act is journaled: seal the job first.', { ids: unsealed.map((row) => row.id) });
    const [profile] = await tx.select({ state: notaryProfiles.commissionState }).from(notaryProfiles).where(eq(notaryProfiles.userId, notaryId)).limit(1);
    const now = new Date();
    const keptUntil = new Date(now);
    keptUntil.setUTCFullYear(keptUntil.getUTCFullYear() + policyFor(profile?.state ?? null).retentionYears);
    for (const entry of input.entries) {
      const row = rows.find((candidate) => candidate.id === entry.id) as EntryRow;
      const content: JournalEntryContent = { ...row.content, signerAddress: entry.signerAddress, feeCents: entry.feeCents ?? row.content.feeCents, notes: entry.notes ?? null };
      await tx.update(notaryJournalEntries).set({ content, status: 'final', finalizedAt: now, keptUntil }).where(eq(notaryJournalEntries.id, entry.id));
    }
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'journal.finalized', data: { entries: ids.length } });
    const saved = await tx.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.jobId, jobId)).orderBy(asc(notaryJournalEntries.createdAt));
    return toEntries(tx, saved);
  });
}

/** POST /api/notary-log/mark-test/{jobId}: the job's entries are test entries, left out of exports by default. */
export async function markJournalTest(ctx: Ctx, jobId: string): Promise<{ marked: number }> {
  await requireJournalOwner(ctx, jobId);
  return ctx.db.transaction(async (tx) => {
    const marked = await tx.update(notaryJournalEntries).set({ isTest: true }).where(eq(notaryJournalEntries.jobId, jobId)).returning({ id: notaryJournalEntries.id });
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'journal.marked_test', data: { entries: marked.length } });
    return { marked: marked.length };
  });
}

/** POST /api/notary-log/entries/{id}/addenda: a correction to a finalized entry, by its notary. */
export async function addJournalAddendum(ctx: Ctx, entryId: string, text: string): Promise<JournalEntry> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.id, entryId)).limit(1);
    if (!row || row.notaryId !== user.id) throw notFound('No journal entry with that id in your journal.');
    if (row.status !== 'final') throw conflict('A draft is completed and finalized, not amended.');
    await tx.insert(notaryJournalAddenda).values({ entryId, text, createdBy: user.id });
    await appendAuditEvent({ ...ctx, db: tx }, { jobId: row.jobId, action: 'journal.addendum_added', data: { entryId } });
    const [entry] = await toEntries(tx, [row]);
    if (!entry) throw notFound('No journal entry with that id in your journal.');
    return entry;
  });
}

function journalConditions(notaryId: string, query: Pick<JournalQuery, 'from' | 'to' | 'act' | 'signer' | 'includeTest'>) {
  return and(
    eq(notaryJournalEntries.notaryId, notaryId),
    eq(notaryJournalEntries.status, 'final'),
    query.includeTest === 'true' ? undefined : eq(notaryJournalEntries.isTest, false),
    query.from ? gte(notaryJournalEntries.finalizedAt, new Date(`${query.from}T00:00:00Z`)) : undefined,
    query.to ? lt(notaryJournalEntries.finalizedAt, new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000)) : undefined,
    query.act ? sql`${notaryJournalEntries.content}->>'actType' = ${query.act}` : undefined,
    query.signer ? ilike(sql`${notaryJournalEntries.content}->>'signerName'`, `%${query.signer.replace(/[\\%_]/g, (character) => `\\${character}`)}%`) : undefined,
  );
}

/** The notary's own journal; an admin reads a notary's journal by `notaryId`, and that reading is audited. */
async function journalOwnerOf(ctx: Ctx, notaryId: string | undefined): Promise<string> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  if (!notaryId || notaryId === user.id) {
    if (!user.roles.includes('notary')) throw forbidden('Only notaries keep a journal.');
    return user.id;
  }
  if (!user.roles.includes('admin')) throw forbidden('Only the notary reads their journal.');
  await appendAuditEvent(ctx, { jobId: null, action: 'journal.read_by_admin', data: { notaryId } });
  return notaryId;
}

/** GET /api/notary-log: finalized entries, newest first, with filters and pages. */
export async function listJournal(ctx: Ctx, query: JournalQuery & { notaryId?: string }) {
  const notaryId = await journalOwnerOf(ctx, query.notaryId);
  const where = journalConditions(notaryId, query);
  const [{ total = 0 } = {}] = await ctx.db.select({ total: count() }).from(notaryJournalEntries).where(where);
  const rows = await ctx.db
    .select()
    .from(notaryJournalEntries)
    .where(where)
    .orderBy(desc(notaryJournalEntries.finalizedAt), desc(notaryJournalEntries.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize);
  return { items: await toEntries(ctx.db, rows), total, page: query.page, pageSize: query.pageSize };
}

export const journalCsvColumns = [
  'Finalized at',
  'Notarized at',
  'Act',
  'Document',
  'Document SHA-256',
  'Signer',
  'Signer email',
  'Signer address',
  'Identity',
  'ID document',
  'ID issuer',
  'ID expiry',
  'ID number',
  'Recording',
  'Fee (cents)',
  'Notes',
  'Addenda',
  'Test entry',
];

/**
 * GET /api/notary-log/export.csv: every finalized entry (test entries only when asked), written a
 * page at a time so memory does not grow with the journal.
 */
export async function* exportJournalCsv(ctx: Ctx, query: Pick<JournalQuery, 'from' | 'to' | 'act' | 'signer' | 'includeTest'> & { notaryId?: string }): AsyncGenerator<string> {
  const notaryId = await journalOwnerOf(ctx, query.notaryId);
  const where = journalConditions(notaryId, query);
  yield `${journalCsvColumns.map(csvField).join(',')}\r\n`;
  const pageSize = 500;
  let cursor: { finalizedAt: Date; id: string } | null = null;
  for (;;) {
    const rows: EntryRow[] = await ctx.db
      .select()
      .from(notaryJournalEntries)
      .where(cursor ? and(where, sql`(${notaryJournalEntries.finalizedAt}, ${notaryJournalEntries.id}) > (${cursor.finalizedAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`) : where)
      .orderBy(asc(notaryJournalEntries.finalizedAt), asc(notaryJournalEntries.id))
      .limit(pageSize);
    if (rows.length === 0) return;
    for (const entry of await toEntries(ctx.db, rows)) {
      const { content } = entry;
      const line = [
        entry.finalizedAt,
        content.notarizedAt,
        content.actType,
        content.documentName,
        content.documentSha256,
        content.signerName,
        content.signerEmail,
        content.signerAddress,
        content.identityMethod,
        content.identityEvidence?.documentType,
        content.identityEvidence?.issuer,
        content.identityEvidence?.expiryDate,
        content.identityEvidence?.documentNumber ?? content.identityEvidence?.documentNumberNote,
        content.recordingReference,
        content.feeCents,
        content.notes,
        entry.addenda.map((addendum) => `${addendum.createdAt}: ${addendum.text}`).join(' | '),
        entry.isTest ? 'yes' : 'no',
      ];
      yield `${line.map(csvField).join(',')}\r\n`;
    }
    const last = rows.at(-1) as EntryRow;
    cursor = { finalizedAt: last.finalizedAt as Date, id: last.id };
  }
}

