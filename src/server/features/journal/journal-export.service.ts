import { createHash } from 'node:crypto';
import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import { csvField, journalExportFormat, journalExportVersion, journalPdfMaxEntries, type JournalEntry, type JournalExportQuery } from '#shared/journal.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { notaryJournalEntries, notaryProfiles, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError } from '#server/lib/errors.ts';
import { getOrIssueNotaryCredentials, getOrIssuePlatformSignerCredentials, type SigningCredentials } from '#server/providers/signing/certificates.ts';
import { signPdf } from '#server/providers/signing/pades.ts';
import { describeIdDocument, formatJournalTime } from '#shared/journal-words.ts';
import { createJournalPdf } from './journal-pdf.ts';
import { journalConditions, journalOwnerOf, toEntries, type EntryRow } from './journal.service.ts';

/**
 * The exports of a notary's journal (decision 026): CSV for spreadsheets, JSON (the whole
 * record, versioned) and a signed PDF that names the JSON's SHA-256. Each reads the journal 500
 * entries at a time by keyset, oldest first, so memory does not grow with the journal.
 */

type ExportQuery = JournalExportQuery & { notaryId?: string };
const batchSize = 500;

/**
 * The matching final entries with their addenda, oldest first, a batch at a time. The cursor keeps
 * the timestamp as PostgreSQL wrote it (microseconds): a JavaScript Date keeps milliseconds only,
 * and a cursor cut to them would read again the rows of the same millisecond.
 */
async function* readJournalBatches(db: DbOrTx, where: SQL | undefined): AsyncGenerator<JournalEntry[]> {
  let cursor: { finalizedAt: string; id: string } | null = null;
  const exactFinalizedAt = sql<string>`to_char(${notaryJournalEntries.finalizedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  for (;;) {
    const rows: Array<{ entry: EntryRow; exactFinalizedAt: string }> = await db
      .select({ entry: notaryJournalEntries, exactFinalizedAt })
      .from(notaryJournalEntries)
      .where(
        cursor
          ? and(where, sql`(${notaryJournalEntries.finalizedAt}, ${notaryJournalEntries.id}) > (${cursor.finalizedAt}::timestamptz, ${cursor.id}::uuid)`)
          : where,
      )
      .orderBy(asc(notaryJournalEntries.finalizedAt), asc(notaryJournalEntries.id))
      .limit(batchSize);
    if (rows.length === 0) return;
    yield await toEntries(
      db,
      rows.map((row) => row.entry),
    );
    const last = rows.at(-1) as { entry: EntryRow; exactFinalizedAt: string };
    cursor = { finalizedAt: last.exactFinalizedAt, id: last.entry.id };
  }
}

/**
 * The CSV's columns. `Finalized at` and `Notarized at` stay ISO 8601 for the programs that read the
 * file; beside each, `Finalized` and `Notarized` write the same instant as people read it, in the
 * notary's zone when their profile names one. The ID document is named in words.
 */
export const journalCsvColumns = [
  'Finalized at',
  'Finalized',
  'Notarized at',
  'Notarized',
  'Act',
  'Document',
  'Document type',
  'Document date',
  'Document SHA-256',
  'Signer',
  'Signer email',
  'Signer address',
  'Identity',
  'Identity proven',
  'ID document',
  'ID issuer',
  'ID expiry',
  'ID number',
  'Credible witnesses',
  'Witnesses',
  'Recording',
  'Fee (cents)',
  'Notes',
  'Addenda',
  'Commission state',
  'Test entry',
];

export function toCsvLine(entry: JournalEntry, timeZone: string | null): string {
  const { content } = entry;
  const line = [
    entry.finalizedAt,
    formatJournalTime(entry.finalizedAt, timeZone),
    content.notarizedAt,
    formatJournalTime(content.notarizedAt, timeZone),
    content.actType,
    content.documentName,
    content.documentType,
    content.documentDate,
    content.documentSha256,
    content.signerName,
    content.signerEmail,
    content.signerAddress,
    content.identityMethod,
    content.isIdentityProven ? 'yes' : 'no',
    describeIdDocument(content.identityEvidence?.documentType),
    content.identityEvidence?.issuer,
    content.identityEvidence?.expiryDate,
    content.identityEvidence?.documentNumber ?? content.identityEvidence?.documentNumberNote,
    content.credibleWitnesses.map((witness) => `${witness.name} (${witness.address ?? 'no address'})`).join(' | '),
    content.witnesses.map((witness) => `${witness.name}: ${witness.identityMethod}`).join(' | '),
    content.recordingReference,
    content.feeCents,
    content.notes,
    entry.addenda.map((addendum) => `${formatJournalTime(addendum.createdAt, timeZone)}: ${addendum.text}`).join(' | '),
    content.commissionState,
    entry.isTest ? 'yes' : 'no',
  ];
  return `${line.map(csvField).join(',')}\r\n`;
}

/**
 * GET /api/notary-log/export.csv: every finalized entry (test entries only when asked), RFC 4180,
 * a field a spreadsheet would run as a formula defused (csvField).
 */
export async function* exportJournalCsv(ctx: Ctx, query: ExportQuery): AsyncGenerator<string> {
  const notaryId = await journalOwnerOf(ctx, query.notaryId);
  const { timeZone } = await findNotaryFacts(ctx.db, notaryId);
  yield `${journalCsvColumns.map(csvField).join(',')}\r\n`;
  for await (const batch of readJournalBatches(ctx.db, journalConditions(notaryId, query))) {
    yield batch.map((entry) => toCsvLine(entry, timeZone)).join('');
  }
}

async function findNotaryFacts(db: DbOrTx, notaryId: string) {
  const [row] = await db
    .select({
      id: users.id,
      name: users.name,
      email: users.email,
      commissionState: notaryProfiles.commissionState,
      commissionNumber: notaryProfiles.commissionNumber,
      commissionExpiresOn: notaryProfiles.commissionExpiresOn,
      county: notaryProfiles.county,
      timeZone: notaryProfiles.timeZone,
    })
    .from(users)
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, users.id))
    .where(eq(users.id, notaryId))
    .limit(1);
  if (!row) throw new AppError(404, 'not_found', 'No notary with that id.');
  return row;
}

function describeSelection(query: ExportQuery) {
  return { from: query.from ?? null, to: query.to ?? null, act: query.act ?? null, signer: query.signer ?? null, includeTest: query.includeTest === 'true' };
}

/**
 * The JSON export as text pieces: a header (format, version, the notary, the selection), then one
 * entry per line. The same journal and selection give the same bytes (no export time inside), so
 * the signed PDF can name its SHA-256.
 */
async function* writeJournalJson(db: DbOrTx, notaryId: string, query: ExportQuery): AsyncGenerator<string> {
  const notary = await findNotaryFacts(db, notaryId);
  const header = {
    format: journalExportFormat,
    version: journalExportVersion,
    notary: {
      id: notary.id,
      name: notary.name,
      email: notary.email,
      commissionState: notary.commissionState,
      commissionNumber: notary.commissionNumber,
      county: notary.county,
    },
    selection: describeSelection(query),
  };
  yield `${JSON.stringify(header).slice(0, -1)},"entries":[`;
  let separator = '\n';
  for await (const batch of readJournalBatches(db, journalConditions(notaryId, query))) {
    let text = '';
    for (const entry of batch) {
      text += `${separator}${JSON.stringify(entry)}`;
      separator = ',\n';
    }
    yield text;
  }
  yield '\n]}\n';
}

/** GET /api/notary-log/export.json: the whole journal (or the selection) with addenda, versioned. */
export async function* exportJournalJson(ctx: Ctx, query: ExportQuery): AsyncGenerator<string> {
  const notaryId = await journalOwnerOf(ctx, query.notaryId);
  yield* writeJournalJson(ctx.db, notaryId, query);
}

/**
 * Who signs the PDF: the notary's own certificate (the one that seals their acts), so the file is
 * theirs to show; when none can be had (no commission on file, or it expired: a notary leaving the
 * platform), the platform's own certificate (issued by the platform CA) signs as the journal's custodian.
 */
async function findExportSigner(
  ctx: Ctx,
  notary: Awaited<ReturnType<typeof findNotaryFacts>>,
): Promise<{ credentials: SigningCredentials; description: string }> {
  if (notary.commissionState && notary.commissionNumber && notary.commissionExpiresOn) {
    try {
      const credentials = await getOrIssueNotaryCredentials(ctx.db, ctx.secretsKey, {
        userId: notary.id,
        name: notary.name,
        email: notary.email,
        commissionState: notary.commissionState,
        commissionNumber: notary.commissionNumber,
        commissionExpiresOn: notary.commissionExpiresOn,
      });
      return { credentials, description: `${notary.name}’s notary certificate (serial ${credentials.serialNumber})` };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
  }
  const credentials = await getOrIssuePlatformSignerCredentials(ctx.db, ctx.secretsKey);
  return {
    credentials,
    description: `the Open RON platform’s certificate as the journal’s custodian (serial ${credentials.serialNumber}; the notary has no live certificate)`,
  };
}

/**
 * GET /api/notary-log/export.pdf: the selection as a PDF, digitally signed, with the SHA-256 of
 * the JSON export of the same selection printed in it. At most journalPdfMaxEntries entries: a
 * larger journal is exported by date range (the JSON export has no limit).
 */
export async function exportJournalPdf(ctx: Ctx, query: ExportQuery): Promise<Buffer> {
  const notaryId = await journalOwnerOf(ctx, query.notaryId);
  const where = journalConditions(notaryId, query);
  const [{ total = 0 } = {}] = await ctx.db.select({ total: count() }).from(notaryJournalEntries).where(where);
  if (total > journalPdfMaxEntries) {
    throw new AppError(
      409,
      'journal_too_large_for_pdf',
      `This selection holds ${total} entries and a signed PDF holds at most ${journalPdfMaxEntries}: export it by date range (From and To) in several PDFs, or download the JSON export, which has no limit.`,
      { total, maxEntries: journalPdfMaxEntries },
    );
  }
  const hash = createHash('sha256');
  for await (const piece of writeJournalJson(ctx.db, notaryId, query)) hash.update(piece);
  const notary = await findNotaryFacts(ctx.db, notaryId);
  const signer = await findExportSigner(ctx, notary);
  const selection = describeSelection(query);
  const pdf = await createJournalPdf({
    notaryName: notary.name,
    notaryEmail: notary.email,
    commission: notary.commissionNumber
      ? `${notary.commissionNumber}, ${notary.commissionState}${notary.county ? ` (${notary.county})` : ''}, expires ${notary.commissionExpiresOn}`
      : 'no commission on file',
    exportedAt: new Date(),
    selection: [
      selection.from || selection.to
        ? `finalized ${selection.from ? `from ${selection.from}` : ''}${selection.from && selection.to ? ' ' : ''}${selection.to ? `to ${selection.to}` : ''}`
        : 'every finalized entry',
      selection.act ? `act "${selection.act}"` : null,
      selection.signer ? `signer matching "${selection.signer}"` : null,
      selection.includeTest ? 'test entries included' : 'test entries left out',
    ]
      .filter(Boolean)
      .join(', '),
    entryCount: total,
    jsonSha256: hash.digest('hex'),
    signedBy: signer.description,
    timeZone: notary.timeZone,
  });
  let position = 0;
  for await (const batch of readJournalBatches(ctx.db, where)) {
    for (const entry of batch) pdf.writeEntry(entry, ++position);
  }
  return signPdf(await pdf.finish(), signer.credentials, {
    reason: `Export of the electronic notary journal of ${notary.name} (${total} entries)`,
    location: notary.commissionState ? `${notary.county ? `${notary.county}, ` : ''}${notary.commissionState}` : 'Open RON',
    name: notary.name,
    contactInfo: notary.email,
    timestampUrl: ctx.config.tsaUrl,
  });
}
