import { and, asc, count, desc, eq, gte, ilike, inArray, lt, sql } from 'drizzle-orm';
import { journalFieldNames, journalPolicyFor, type JournalFinalizeField } from '#shared/journal-policies.ts';
import { normalizeJournalContent, type FinalizeJournalInput, type JournalEntry, type JournalEntryContent, type JournalQuery } from '#shared/journal.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { containsPattern } from '#server/db/like.ts';
import { notarizedDocuments, notaryJournalAddenda, notaryJournalEntries, notaryProfiles } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, conflict, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getJobAccess } from '#server/features/jobs/job-access.ts';
import { describeUnprintableText, prepareNotaryLog } from '#server/features/notarization/notarization.service.ts';

export type EntryRow = typeof notaryJournalEntries.$inferSelect;

export async function toEntries(db: DbOrTx, rows: EntryRow[]): Promise<JournalEntry[]> {
  const addenda = rows.length
    ? await db
        .select()
        .from(notaryJournalAddenda)
        .where(
          inArray(
            notaryJournalAddenda.entryId,
            rows.map((row) => row.id),
          ),
        )
        .orderBy(asc(notaryJournalAddenda.createdAt))
    : [];
  return rows.map((row) => ({
    id: row.id,
    jobId: row.jobId,
    status: row.status,
    isTest: row.isTest,
    content: normalizeJournalContent(row.content),
    createdAt: row.createdAt.toISOString(),
    finalizedAt: row.finalizedAt?.toISOString() ?? null,
    keptUntil: row.keptUntil?.toISOString() ?? null,
    addenda: addenda
      .filter((addendum) => addendum.entryId === row.id)
      .map((addendum) => ({ id: addendum.id, text: addendum.text, createdAt: addendum.createdAt.toISOString() })),
  }));
}

/**
 * The job's notary (or an admin) working on the job's journal entries; the notary whose journal they
 * are is always the job's current notary. With forUpdate the job row is locked, so its notary cannot
 * change until the caller's transaction ends.
 */
async function requireJournalOwner(ctx: Ctx, jobId: string, options: { forUpdate?: boolean } = {}): Promise<{ notaryId: string; isAdmin: boolean }> {
  const access = await getJobAccess(ctx, jobId, options);
  const isAdmin = access.actors.includes('admin');
  if (!access.actors.includes('notary') && !isAdmin) throw forbidden('Only the job’s notary keeps its journal entries.');
  if (!access.job.notaryId) throw conflict('The job has no notary, so no journal to write in.');
  if (isAdmin && access.job.notaryId !== ctx.user?.id)
    await appendAuditEvent(ctx, { jobId, action: 'journal.read_by_admin', data: { notaryId: access.job.notaryId } });
  return { notaryId: access.job.notaryId, isAdmin };
}

/**
 * Stores the drafts prepared from what the platform recorded (prepare-notary-log): one per signer per
 * signing document. A draft is brought up to date; a finalized entry is never touched.
 */
export async function storeJournalDrafts(ctx: Ctx, jobId: string): Promise<JournalEntry[]> {
  // prepareNotaryLog lets in only the job's notary or an admin; the owner is read below with the job locked.
  const { entries } = await prepareNotaryLog(ctx, jobId);
  return ctx.db.transaction(async (tx) => {
    // The entries are the current notary's, read with the job locked so a change of notary waits.
    const { notaryId } = await requireJournalOwner({ ...ctx, db: tx }, jobId, { forUpdate: true });
    for (const entry of entries) {
      const content: JournalEntryContent = {
        notarizedAt: entry.notarizedAt,
        actType: entry.actType,
        documentName: entry.documentName,
        documentType: null,
        documentDate: null,
        documentSha256: entry.notarizedSha256,
        signerName: entry.signerName,
        signerEmail: entry.signerEmail,
        signerAddress: entry.signerAddress,
        identityMethod: entry.identityMethod,
        isIdentityProven: entry.isIdentityProven,
        identityEvidence: entry.identityEvidence,
        isIdentifiedByCredibleWitness: entry.isIdentifiedByCredibleWitness,
        credibleWitnesses: entry.credibleWitnesses,
        witnesses: entry.witnesses,
        recordingReference: entry.recordingReference,
        feeCents: entry.feeCents,
        notes: null,
        commissionState: null,
      };
      await tx
        .insert(notaryJournalEntries)
        .values({ notaryId, jobId, documentId: entry.documentId, participantId: entry.participantId, content })
        .onConflictDoUpdate({
          target: [notaryJournalEntries.jobId, notaryJournalEntries.documentId, notaryJournalEntries.participantId],
          set: { content, notaryId },
          setWhere: sql`${notaryJournalEntries.status} = 'draft'`,
        });
    }
    const rows = await tx.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.jobId, jobId)).orderBy(asc(notaryJournalEntries.createdAt));
    return toEntries(tx, rows);
  });
}

/**
 * POST /api/jobs/{id}/prepare-notary-log: stores the drafts (as POST /api/notary-log/drafts/{jobId})
 * and answers with each of the job's entries in the prepare-notary-log shape: what the platform
 * recorded, the entry's id and whether it is still a draft.
 */
export async function prepareJournalDrafts(ctx: Ctx, jobId: string) {
  const stored = await storeJournalDrafts(ctx, jobId);
  const rows = await ctx.db
    .select({ id: notaryJournalEntries.id, documentId: notaryJournalEntries.documentId, participantId: notaryJournalEntries.participantId })
    .from(notaryJournalEntries)
    .where(eq(notaryJournalEntries.jobId, jobId));
  return {
    entries: stored.map((entry) => {
      const links = rows.find((row) => row.id === entry.id);
      const { content } = entry;
      return {
        entryId: entry.id,
        status: entry.status,
        jobId,
        documentId: links?.documentId ?? null,
        participantId: links?.participantId ?? null,
        documentName: content.documentName,
        documentType: content.documentType,
        actType: content.actType,
        signerName: content.signerName,
        signerEmail: content.signerEmail,
        signerAddress: content.signerAddress,
        identityMethod: content.identityMethod,
        isIdentityProven: content.isIdentityProven,
        identityEvidence: content.identityEvidence,
        isIdentifiedByCredibleWitness: content.isIdentifiedByCredibleWitness,
        credibleWitnesses: content.credibleWitnesses,
        witnesses: content.witnesses,
        notarizedAt: content.notarizedAt,
        notarizedSha256: content.documentSha256,
        recordingReference: content.recordingReference,
        feeCents: content.feeCents,
        notes: content.notes,
      };
    }),
  };
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

/** The fields an entry still lacks under the state's journal row. */
function findMissingFields(content: JournalEntryContent, required: JournalFinalizeField[]): JournalFinalizeField[] {
  return required.filter((field) => {
    if (field === 'credibleWitnesses') return content.credibleWitnesses.length === 0 || content.credibleWitnesses.some((witness) => !witness.address);
    const value = content[field];
    return value === null || value === undefined || value === '';
  });
}

/**
 * POST /api/notary-log/finalize/{jobId}: the notary completes each draft (the signer's address, the
 * fee, the document's type and date, credible witnesses, notes), the fields their commissioning
 * state's journal row requires are checked, and the entries become final for good. Only a sealed
 * act is journaled.
 */
export async function finalizeJournal(ctx: Ctx, jobId: string, input: FinalizeJournalInput): Promise<JournalEntry[]> {
  const { notaryId } = await requireJournalOwner(ctx, jobId);
  if (ctx.user?.id !== notaryId) throw forbidden('Only the job’s notary, who performed the act, finalizes its journal entries.');
  // The journal PDF prints what is finalized: a character no font of it can print is refused now, not printed as '?'.
  const unprintable = describeUnprintableText(
    input.entries.flatMap((entry) => [
      { label: 'signer’s address', text: entry.signerAddress },
      { label: 'document type', text: entry.documentType },
      { label: 'note', text: entry.notes },
      ...(entry.credibleWitnesses ?? []).flatMap((witness) => [
        { label: 'credible witness’s name', text: witness.name },
        { label: 'credible witness’s address', text: witness.address },
      ]),
    ]),
    'the journal PDF',
  );
  if (unprintable) throw new AppError(400, 'unprintable_text', `${unprintable} Correct it, then finalize again.`);
  return ctx.db.transaction(async (tx) => {
    // Checked again with the job locked: the entries go into the journal of the job's notary as it is now.
    const current = await requireJournalOwner({ ...ctx, db: tx }, jobId, { forUpdate: true });
    if (current.notaryId !== notaryId) throw forbidden('Only the job’s notary, who performed the act, finalizes its journal entries.');
    const [profile] = await tx.select({ state: notaryProfiles.commissionState }).from(notaryProfiles).where(eq(notaryProfiles.userId, notaryId)).limit(1);
    const policy = journalPolicyFor(profile?.state ?? null);
    const ids = input.entries.map((entry) => entry.id);
    const rows = await tx
      .select()
      .from(notaryJournalEntries)
      .where(and(eq(notaryJournalEntries.jobId, jobId), inArray(notaryJournalEntries.id, ids)))
      .for('update');
    const missing = ids.filter((id) => !rows.some((row) => row.id === id));
    if (missing.length > 0) throw new AppError(404, 'not_found', 'Some entries are not drafts of this job.', { ids: missing });
    const final = rows.filter((row) => row.status === 'final');
    if (final.length > 0)
      throw new AppError(409, 'journal_entry_final', 'A finalized journal entry never changes; add an addendum to it instead.', {
        ids: final.map((row) => row.id),
      });
    const unsealed = rows.filter((row) => !row.content.notarizedAt);
    if (unsealed.length > 0)
      throw new AppError(409, 'not_notarized', 'Only a sealed act is journaled: seal the job first.', { ids: unsealed.map((row) => row.id) });
    const completed = input.entries.map((entry) => {
      const row = rows.find((candidate) => candidate.id === entry.id) as EntryRow;
      const before = normalizeJournalContent(row.content);
      const content: JournalEntryContent = {
        ...before,
        signerAddress: entry.signerAddress,
        feeCents: entry.feeCents === undefined ? before.feeCents : entry.feeCents,
        notes: entry.notes ?? null,
        documentType: entry.documentType === undefined ? before.documentType : entry.documentType || null,
        documentDate: entry.documentDate === undefined ? before.documentDate : entry.documentDate,
        credibleWitnesses: entry.credibleWitnesses ?? before.credibleWitnesses,
        commissionState: policy.code,
      };
      const required = [...policy.requiredFields, ...(content.isIdentifiedByCredibleWitness ? policy.requiredWithCredibleWitness : [])];
      return { id: entry.id, content, missing: findMissingFields(content, required) };
    });
    const incomplete = completed.filter((entry) => entry.missing.length > 0);
    if (incomplete.length > 0) {
      const lacking = [...new Set(incomplete.flatMap((entry) => entry.missing))].map((field) => journalFieldNames[field]);
      throw new AppError(
        400,
        'journal_fields_missing',
        `${policy.name}’s journal needs ${lacking.join(', ')} (${policy.citation}). Complete ${incomplete.length === 1 ? 'the entry' : `the ${incomplete.length} entries`} and finalize again.`,
        {
          entries: incomplete.map((entry) => ({ id: entry.id, missing: entry.missing })),
        },
      );
    }
    const now = new Date();
    const keptUntil = new Date(now);
    keptUntil.setUTCFullYear(keptUntil.getUTCFullYear() + policy.retentionYears);
    for (const entry of completed) {
      await tx
        .update(notaryJournalEntries)
        .set({ notaryId, content: entry.content, status: 'final', finalizedAt: now, keptUntil })
        .where(eq(notaryJournalEntries.id, entry.id));
    }
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'journal.finalized', data: { entries: ids.length } });
    const saved = await tx.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.jobId, jobId)).orderBy(asc(notaryJournalEntries.createdAt));
    return toEntries(tx, saved);
  });
}

/**
 * DELETE /api/notary-log/entries/{id}: an entry (and its addenda) goes only once its retention has
 * ended (`kept_until`); before that it is refused with the date and the rule. The notary deletes
 * their own; an administrator may delete any, and both are in the audit trail. A draft is not a
 * journal entry yet: it is finalized or left, never deleted here.
 */
export async function deleteJournalEntry(ctx: Ctx, entryId: string): Promise<{ deleted: true; addenda: number }> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.select().from(notaryJournalEntries).where(eq(notaryJournalEntries.id, entryId)).for('update');
    const isAdmin = user.roles.includes('admin');
    if (!row || (row.notaryId !== user.id && !isAdmin)) throw notFound('No journal entry with that id in your journal.');
    if (row.status !== 'final' || !row.keptUntil) throw conflict('A draft is not in the journal yet: finalize it, or mark the job’s entries as test entries.');
    const now = new Date();
    if (now.getTime() < row.keptUntil.getTime()) {
      const state = journalPolicyFor(row.content.commissionState ?? null);
      throw new AppError(
        409,
        'journal_retention',
        `This entry must be kept until ${row.keptUntil.toISOString().slice(0, 10)} (${state.retentionYears} years: ${state.retentionCitation}); it can be deleted after that.`,
        {
          keptUntil: row.keptUntil.toISOString(),
        },
      );
    }
    const addenda = await tx.delete(notaryJournalAddenda).where(eq(notaryJournalAddenda.entryId, entryId)).returning({ id: notaryJournalAddenda.id });
    await tx.delete(notaryJournalEntries).where(eq(notaryJournalEntries.id, entryId));
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        jobId: row.jobId,
        action: 'journal.entry_deleted',
        data: { entryId, notaryId: row.notaryId, keptUntil: row.keptUntil.toISOString(), addenda: addenda.length, byAdmin: row.notaryId !== user.id },
      },
    );
    return { deleted: true as const, addenda: addenda.length };
  });
}

/** POST /api/notary-log/mark-test/{jobId}: the job's entries are test entries, left out of exports by default. */
export async function markJournalTest(ctx: Ctx, jobId: string): Promise<{ marked: number }> {
  await requireJournalOwner(ctx, jobId);
  return ctx.db.transaction(async (tx) => {
    // A test entry is one of a practice run. A job sealed as a notarial act (recorded, identity
    // proven) is a real act: its entries stay in the journal and in every export.
    const [act] = await tx
      .select({ id: notarizedDocuments.id })
      .from(notarizedDocuments)
      .where(and(eq(notarizedDocuments.jobId, jobId), eq(notarizedDocuments.isNotarialAct, true)))
      .limit(1);
    if (act) {
      throw new AppError(
        409,
        'journal_notarial_act',
        'This job was sealed as a notarial act (a recorded session and proven identity), so its entries stay in your journal. Add an addendum to a finalized entry to explain anything about it.',
      );
    }
    const [final] = await tx
      .select({ id: notaryJournalEntries.id })
      .from(notaryJournalEntries)
      .where(and(eq(notaryJournalEntries.jobId, jobId), eq(notaryJournalEntries.status, 'final')))
      .limit(1);
    if (final) {
      throw new AppError(
        409,
        'journal_entry_final',
        'Entries of this job are already final in your journal, and a final entry does not change. Mark a practice job as a test before you finalize its entries; add an addendum to explain anything else.',
      );
    }
    const marked = await tx
      .update(notaryJournalEntries)
      .set({ isTest: true })
      .where(eq(notaryJournalEntries.jobId, jobId))
      .returning({ id: notaryJournalEntries.id });
    await appendAuditEvent({ ...ctx, db: tx }, { jobId, action: 'journal.marked_test', data: { entries: marked.length } });
    return { marked: marked.length };
  });
}

/** POST /api/notary-log/entries/{id}/addenda: a correction to a finalized entry, by its notary. */
export async function addJournalAddendum(ctx: Ctx, entryId: string, text: string): Promise<JournalEntry> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const unprintable = describeUnprintableText([{ label: 'addendum', text }], 'the journal PDF');
  if (unprintable) throw new AppError(400, 'unprintable_text', `${unprintable} Correct it, then add it again.`);
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

export function journalConditions(notaryId: string, query: Pick<JournalQuery, 'from' | 'to' | 'act' | 'signer' | 'includeTest'>) {
  return and(
    eq(notaryJournalEntries.notaryId, notaryId),
    eq(notaryJournalEntries.status, 'final'),
    query.includeTest === 'true' ? undefined : eq(notaryJournalEntries.isTest, false),
    query.from ? gte(notaryJournalEntries.finalizedAt, new Date(`${query.from}T00:00:00Z`)) : undefined,
    query.to ? lt(notaryJournalEntries.finalizedAt, new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000)) : undefined,
    query.act ? sql`${notaryJournalEntries.content}->>'actType' = ${query.act}` : undefined,
    query.signer ? ilike(sql`${notaryJournalEntries.content}->>'signerName'`, containsPattern(query.signer)) : undefined,
  );
}

/** The notary's own journal; an admin reads a notary's journal by `notaryId`, and that reading is audited. */
export async function journalOwnerOf(ctx: Ctx, notaryId: string | undefined): Promise<string> {
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
