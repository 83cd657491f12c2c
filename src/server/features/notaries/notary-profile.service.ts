import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, count, desc, eq, ilike, isNotNull, isNull, max, or, type SQL } from 'drizzle-orm';
import { getSignatureImageUrl, type SignatureKind } from '#shared/signatures.ts';
import {
  describeMissingCommissionFields,
  notaryProfileMissingMessage,
  type NotaryFileKind,
  type NotaryProfile,
  type NotaryProfileFile,
  type NotarySearchResult,
  type NotaryTitleCompany,
  type notarySearchQuerySchema,
  type updateNotaryProfileInputSchema,
} from '#shared/notary-profile.ts';
import { toSingleLine } from '#shared/text.ts';
import type { z } from 'zod';
import type { DbOrTx } from '#server/db/client.ts';
import { jobs, notaryProfileFiles, notaryProfiles, titleCompanies, userSignatures, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, badRequest, conflict, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { getCurrentSignature } from '#server/features/signatures/signatures.service.ts';
import { containsPattern, escapeLike } from '#server/db/like.ts';
import { toNotarySummary } from './notaries.service.ts';
import { getNotaryCertificate } from './notary-certificate.service.ts';
import { findWorkBlocker, findOwnWorkBlocker } from './notary-eligibility.ts';
import { findExpiryWarnings, findMissingProfileItems, findMissingSealItems } from './notary-profile-checks.ts';

type ProfileRow = typeof notaryProfiles.$inferSelect;
type FileRow = typeof notaryProfileFiles.$inferSelect;

function requireUser(ctx: Ctx) {
  if (!ctx.user) throw new Error('notary profile calls need a signed-in caller');
  return ctx.user;
}

const isAdmin = (ctx: Ctx) => Boolean(ctx.user && ctx.user.status === 'active' && ctx.user.roles.includes('admin'));

async function findProfileRow(db: DbOrTx, notaryId: string, options: { lock?: boolean } = {}) {
  const query = db
    .select({ profile: notaryProfiles, name: users.name, email: users.email, status: users.status })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(eq(notaryProfiles.userId, notaryId));
  const [row] = options.lock ? await query.for('update', { of: notaryProfiles }) : await query;
  if (!row) throw notFound('No notary with that id.');
  return row;
}

/** The account behind a notary id when it holds the notary role, or null. */
async function findNotaryAccount(db: DbOrTx, notaryId: string) {
  const [account] = await db.select({ name: users.name, roles: users.roles }).from(users).where(eq(users.id, notaryId)).limit(1);
  return account && account.roles.includes('notary') ? account : null;
}

/**
 * The profile row, or a 404 the web can tell apart: a notary whose role an administrator gave has
 * no commission on file until they enter one, which is not the same as no such notary.
 */
async function findProfileRowOrExplain(ctx: Ctx, notaryId: string) {
  try {
    return await findProfileRow(ctx.db, notaryId);
  } catch (error) {
    const account = error instanceof AppError && error.statusCode === 404 ? await findNotaryAccount(ctx.db, notaryId) : null;
    if (!account) throw error;
    const message = ctx.user?.id === notaryId ? notaryProfileMissingMessage : `${toSingleLine(account.name)} has not entered commission details yet.`;
    throw new AppError(404, 'notary_profile_missing', message);
  }
}

function toProfileFile(file: FileRow): NotaryProfileFile {
  return {
    id: file.id,
    kind: file.kind,
    fileName: file.fileName,
    contentType: file.contentType,
    sizeBytes: file.sizeBytes,
    createdAt: file.createdAt.toISOString(),
    url: `/api/notary/profile/${file.notaryId}/file/${file.id}`,
  };
}

async function findSavedImage(db: DbOrTx, userId: string, kind: SignatureKind) {
  const row = await getCurrentSignature(db, userId, kind);
  return row ? { id: row.id, imageUrl: getSignatureImageUrl(row.id), createdAt: row.createdAt.toISOString() } : null;
}

/**
 * A notary's whole profile: the commission, bond and E&O, the signing certificate in use, the
 * saved signature and initials, the filed documents, what is missing before approval, and the
 * expiry banners. `now` is the clock the expiry rules read.
 */
export async function getNotaryProfile(ctx: Ctx, notaryId: string, now = new Date()): Promise<NotaryProfile> {
  const viewer = requireUser(ctx);
  const row = await findProfileRowOrExplain(ctx, notaryId);
  const { profile } = row;
  const certificate = await getNotaryCertificate(ctx, notaryId);
  const files = await ctx.db.select().from(notaryProfileFiles).where(eq(notaryProfileFiles.notaryId, notaryId)).orderBy(desc(notaryProfileFiles.createdAt));
  const uploadedCertificateExpiresOn = certificate.source === 'uploaded' && certificate.notAfter ? certificate.notAfter.slice(0, 10) : null;
  const user = { id: notaryId, name: row.name, email: row.email, status: row.status };
  return {
    userId: notaryId,
    name: row.name,
    email: row.email,
    commissionedName: profile.commissionedName,
    commissionNumber: profile.commissionNumber,
    commissionState: profile.commissionState,
    county: profile.county,
    commissionStartsOn: profile.commissionStartsOn,
    commissionExpiresOn: profile.commissionExpiresOn,
    bondAmountCents: profile.bondAmountCents,
    bondExpiresOn: profile.bondExpiresOn,
    eoAmountCents: profile.eoAmountCents,
    eoExpiresOn: profile.eoExpiresOn,
    timeZone: profile.timeZone,
    approvalStatus: profile.approvalStatus,
    isActive: profile.isActive,
    certificate,
    signature: await findSavedImage(ctx.db, notaryId, 'signature'),
    initials: await findSavedImage(ctx.db, notaryId, 'initials'),
    files: files.map(toProfileFile),
    // Approval is behind an approved notary: only what they still need to seal; expiries are in warnings.
    missing: profile.approvalStatus === 'approved' ? await findMissingSealItems(ctx.db, notaryId) : await findMissingProfileItems(ctx.db, profile, now),
    warnings: findExpiryWarnings(profile, uploadedCertificateExpiresOn, now),
    workBlocker: viewer.id === notaryId ? findOwnWorkBlocker(user, profile, now) : findWorkBlocker(user, profile, now),
  };
}

const editableFields = [
  'commissionedName',
  'commissionNumber',
  'commissionState',
  'county',
  'commissionStartsOn',
  'commissionExpiresOn',
  'bondAmountCents',
  'bondExpiresOn',
  'eoAmountCents',
  'eoExpiresOn',
  'timeZone',
] as const;

/** Dates that make sense together: a start before the expiry, nothing before 1950 or after 2100. */
function assertSensibleDates(next: Pick<ProfileRow, 'commissionStartsOn' | 'commissionExpiresOn' | 'bondExpiresOn' | 'eoExpiresOn'>): void {
  const labelled: Array<[string, string | null]> = [
    ['The commission start date', next.commissionStartsOn],
    ['The commission expiry date', next.commissionExpiresOn],
    ['The bond expiry date', next.bondExpiresOn],
    ['The E&O insurance expiry date', next.eoExpiresOn],
  ];
  for (const [label, day] of labelled) {
    if (day && (day < '1950-01-01' || day > '2100-12-31')) throw badRequest(`${label} must be between 1950 and 2100.`);
  }
  if (next.commissionStartsOn && next.commissionStartsOn >= next.commissionExpiresOn) throw badRequest('The commission must start before it expires.');
}

/**
 * Puts a commission on file for a notary who has none (an administrator gave them the role): only
 * with the state, number, county and expiry that registration asks for, pending approval, audited.
 */
async function createProfileRow(ctx: Ctx, notaryId: string, input: z.output<typeof updateNotaryProfileInputSchema>, now: Date) {
  const account = await findNotaryAccount(ctx.db, notaryId);
  if (!account) throw notFound('No notary with that id.');
  const missing = describeMissingCommissionFields(input);
  const { commissionState, commissionNumber, county, commissionExpiresOn } = input;
  if (missing || !commissionState || !commissionNumber || !county || !commissionExpiresOn) throw badRequest(missing ?? 'Enter the commission details.');
  const values = {
    userId: notaryId,
    commissionState,
    commissionNumber,
    county,
    commissionExpiresOn,
    commissionedName: input.commissionedName ?? null,
    commissionStartsOn: input.commissionStartsOn ?? null,
    bondAmountCents: input.bondAmountCents ?? null,
    bondExpiresOn: input.bondExpiresOn ?? null,
    eoAmountCents: input.eoAmountCents ?? null,
    eoExpiresOn: input.eoExpiresOn ?? null,
    timeZone: input.timeZone ?? null,
  };
  assertSensibleDates(values);
  // Two saves at once: the second finds the row the first made and is told so, rather than a 500.
  const inserted = await ctx.db
    .insert(notaryProfiles)
    .values({ ...values, approvalStatus: 'pending', createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ userId: notaryProfiles.userId });
  if (inserted.length === 0) throw conflict('The commission details were saved a moment ago; reload the page to see them.');
  const fields = editableFields.filter((field) => values[field] !== null);
  await appendAuditEvent(ctx, { action: 'notary.profile_created', data: { notaryId, notaryName: account.name, fields } });
  return { changed: fields as string[], needsReapproval: false };
}

/**
 * Saves the notary's commission details (the notary for themselves, or an administrator). A new
 * commission number or state on an approved notary sends the profile back for approval: the
 * approval was of that commission (decision 027). Every change is audited with the fields changed.
 * A notary without a profile yet (the role given by an administrator) gets one created here.
 */
export async function updateNotaryProfile(
  ctx: Ctx,
  notaryId: string,
  input: z.output<typeof updateNotaryProfileInputSchema>,
  now = new Date(),
): Promise<NotaryProfile> {
  requireUser(ctx);
  const outcome = await ctx.db.transaction(async (tx) => {
    const existing = await findProfileRow(tx, notaryId, { lock: true }).catch((error: unknown) => {
      if (error instanceof AppError && error.statusCode === 404) return null;
      throw error;
    });
    if (!existing) return createProfileRow({ ...ctx, db: tx }, notaryId, input, now);
    const { profile, name: notaryName } = existing;
    const changes: Partial<ProfileRow> = {};
    for (const field of editableFields) {
      const value = input[field];
      if (value === undefined || value === profile[field]) continue;
      (changes as Record<string, unknown>)[field] = value;
    }
    const next = { ...profile, ...changes };
    assertSensibleDates(next);
    const changed = Object.keys(changes);
    if (changed.length === 0) return { changed, needsReapproval: false };
    const needsReapproval = profile.approvalStatus === 'approved' && ('commissionNumber' in changes || 'commissionState' in changes);
    await tx
      .update(notaryProfiles)
      .set({ ...changes, updatedAt: now, ...(needsReapproval ? { approvalStatus: 'pending' as const, approvedAt: null, approvedBy: null } : {}) })
      .where(eq(notaryProfiles.userId, notaryId));
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'notary.profile_updated', data: { notaryId, notaryName, fields: changed, needsReapproval } });
    return { changed, needsReapproval };
  });
  if (outcome.needsReapproval) ctx.log.info({ event: 'notary.reapproval_required', notaryId }, 'commission changed after approval');
  return getNotaryProfile(ctx, notaryId, now);
}

const magicNumbers: Array<{ contentType: FileRow['contentType']; bytes: number[] }> = [
  { contentType: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { contentType: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { contentType: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
];

/** The file's type from its first bytes, whatever its name or declared type says. */
export function detectProfileFileType(content: Buffer): FileRow['contentType'] | null {
  return magicNumbers.find(({ bytes }) => content.length >= bytes.length && bytes.every((byte, index) => content[index] === byte))?.contentType ?? null;
}

export const notaryFileMessages = {
  noFile: 'Choose a file to upload (PDF, PNG or JPEG).',
  noKind: 'Say which document this is: commission_certificate, bond, eo_insurance or seal_image.',
  tooLarge: 'The file is larger than 10 MB.',
  wrongType: 'Upload a PDF, PNG or JPEG file.',
  sealType: 'The seal image must be a PNG or JPEG picture.',
} as const;

/** Stores a profile document through the Storage provider and records it; audited. */
export async function addNotaryProfileFile(
  ctx: Ctx,
  notaryId: string,
  input: { kind: NotaryFileKind; fileName: string; content: Buffer },
): Promise<NotaryProfileFile> {
  const uploader = requireUser(ctx);
  const contentType = detectProfileFileType(input.content);
  if (!contentType) throw new AppError(415, 'unsupported_type', notaryFileMessages.wrongType);
  if (input.kind === 'seal_image' && contentType === 'application/pdf') throw new AppError(415, 'unsupported_type', notaryFileMessages.sealType);
  const { name: notaryName } = await findProfileRow(ctx.db, notaryId);
  const directory = path.join(ctx.config.dataDir, 'tmp');
  await fs.promises.mkdir(directory, { recursive: true });
  const filePath = path.join(directory, `${randomUUID()}.upload`);
  let storageKey: string;
  try {
    await fs.promises.writeFile(filePath, input.content, { mode: 0o600 });
    // A key of its own, not the content's hash: the store is shared and content-addressed, and
    // deleting this document must never remove the same bytes kept for a job or a signature.
    const ownKey = createHash('sha256').update(`notary-profile-file:${randomUUID()}:`).update(input.content).digest('hex');
    storageKey = await ctx.storage.putFile(filePath, ownKey, contentType);
  } finally {
    await fs.promises.rm(filePath, { force: true });
  }
  const fileName = toSingleLine(input.fileName).slice(0, 200) || `${input.kind}.${contentType.split('/')[1]}`;
  const row = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(notaryProfileFiles)
      .values({ notaryId, kind: input.kind, fileName, contentType, sizeBytes: input.content.length, storageKey, uploadedBy: uploader.id })
      .returning();
    if (!inserted) throw new Error('the profile file was not stored');
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: 'notary.profile_file_uploaded',
        data: { notaryId, notaryName, fileId: inserted.id, kind: input.kind, fileName, sizeBytes: input.content.length },
      },
    );
    return inserted;
  });
  return toProfileFile(row);
}

/** The notary's own file, or any for an administrator; 404 for everyone else. */
async function findVisibleFile(ctx: Ctx, notaryId: string, fileId: string): Promise<FileRow & { notaryName: string }> {
  const user = requireUser(ctx);
  if (user.id !== notaryId && !isAdmin(ctx)) throw notFound('No such file.');
  const [row] = await ctx.db
    .select({ file: notaryProfileFiles, notaryName: users.name })
    .from(notaryProfileFiles)
    .innerJoin(users, eq(users.id, notaryProfileFiles.notaryId))
    .where(and(eq(notaryProfileFiles.id, fileId), eq(notaryProfileFiles.notaryId, notaryId)))
    .limit(1);
  if (!row) throw notFound('No such file.');
  return { ...row.file, notaryName: row.notaryName };
}

export async function openNotaryProfileFile(ctx: Ctx, notaryId: string, fileId: string): Promise<{ stream: Readable; file: FileRow }> {
  const file = await findVisibleFile(ctx, notaryId, fileId);
  return { stream: await ctx.storage.openStream(file.storageKey), file };
}

/** Deletes a profile document and its blob. */
export async function deleteNotaryProfileFile(ctx: Ctx, notaryId: string, fileId: string): Promise<{ ok: true; message: string }> {
  const file = await findVisibleFile(ctx, notaryId, fileId);
  await ctx.db.transaction(async (tx) => {
    await tx.delete(notaryProfileFiles).where(eq(notaryProfileFiles.id, file.id));
    await appendAuditEvent(
      { ...ctx, db: tx },
      { action: 'notary.profile_file_deleted', data: { notaryId, notaryName: file.notaryName, fileId: file.id, kind: file.kind, fileName: file.fileName } },
    );
  });
  // Each upload has a key of its own (addNotaryProfileFile), so no other row points at this blob.
  await ctx.storage.remove(file.storageKey).catch((error: unknown) => ctx.log.warn({ err: error, fileId: file.id }, 'profile file blob not removed'));
  return { ok: true, message: `${file.fileName} was deleted.` };
}

/**
 * An administrator removes a notary's current signature or initials (an unreadable or wrong
 * image): the row stays for the documents already signed with it, but is no longer current, so
 * the notary must save a new one.
 */
export async function clearNotarySignature(ctx: Ctx, notaryId: string, kind: SignatureKind): Promise<{ ok: true; message: string }> {
  const row = await findProfileRow(ctx.db, notaryId);
  const what = kind === 'signature' ? 'signature' : 'initials';
  await ctx.db.transaction(async (tx) => {
    const cleared = await tx
      .update(userSignatures)
      .set({ isCurrent: false })
      .where(and(eq(userSignatures.userId, notaryId), eq(userSignatures.kind, kind), eq(userSignatures.isCurrent, true)))
      .returning({ id: userSignatures.id });
    if (cleared.length === 0) throw notFound(`${toSingleLine(row.name)} has no saved ${what}.`);
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: kind === 'signature' ? 'notary.signature_removed' : 'notary.initials_removed',
        data: { notaryId, notaryName: row.name, signatureIds: cleared.map((entry) => entry.id) },
      },
    );
  });
  return { ok: true, message: `${toSingleLine(row.name)}’s ${what} was removed; they must save a new one.` };
}

/** Activation is separate from approval: a deactivated notary signs in but takes and seals no work. */
export async function setNotaryActive(ctx: Ctx, notaryId: string, isActive: boolean): Promise<{ ok: true; message: string }> {
  const admin = requireUser(ctx);
  const name = await ctx.db.transaction(async (tx) => {
    const row = await findProfileRow(tx, notaryId, { lock: true });
    if (row.profile.isActive === isActive) {
      throw new AppError(409, isActive ? 'already_active' : 'already_inactive', `${toSingleLine(row.name)} is already ${isActive ? 'active' : 'deactivated'}.`);
    }
    await tx
      .update(notaryProfiles)
      .set(
        isActive
          ? { isActive, deactivatedAt: null, deactivatedBy: null, updatedAt: new Date() }
          : { isActive, deactivatedAt: new Date(), deactivatedBy: admin.id, updatedAt: new Date() },
      )
      .where(eq(notaryProfiles.userId, notaryId));
    await appendAuditEvent({ ...ctx, db: tx }, { action: isActive ? 'notary.activated' : 'notary.deactivated', data: { notaryId, notaryName: row.name } });
    return toSingleLine(row.name);
  });
  return {
    ok: true,
    message: isActive ? `${name} is active again and can be assigned work.` : `${name} is deactivated: they can sign in but take no new work.`,
  };
}

/** Every notary for an administrator: words match name, email, county, commission number or state. */
export async function searchNotaries(ctx: Ctx, query: z.output<typeof notarySearchQuerySchema>): Promise<NotarySearchResult> {
  const conditions: Array<SQL | undefined> = [];
  if (query.approval) conditions.push(eq(notaryProfiles.approvalStatus, query.approval));
  if (query.active) conditions.push(eq(notaryProfiles.isActive, query.active === 'true'));
  for (const word of query.q.split(/\s+/).filter(Boolean)) {
    const pattern = containsPattern(word);
    conditions.push(
      or(
        ilike(users.name, pattern),
        ilike(users.email, pattern),
        ilike(notaryProfiles.county, pattern),
        ilike(notaryProfiles.commissionNumber, pattern),
        ilike(notaryProfiles.commissionState, escapeLike(word)),
      ),
    );
  }
  const where = and(...conditions);
  const [total] = await ctx.db.select({ value: count() }).from(notaryProfiles).innerJoin(users, eq(users.id, notaryProfiles.userId)).where(where);
  const rows = await ctx.db
    .select({ profile: notaryProfiles, name: users.name, email: users.email })
    .from(notaryProfiles)
    .innerJoin(users, eq(users.id, notaryProfiles.userId))
    .where(where)
    .orderBy(users.name, users.id)
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize);
  return {
    items: rows.map((row) => ({ ...toNotarySummary(row), isActive: row.profile.isActive })),
    total: total?.value ?? 0,
    page: query.page,
    pageSize: query.pageSize,
  };
}

/**
 * The title companies a notary works for: those with a job assigned to them, with how many and the
 * latest, then those that made them their default notary without a job yet. A closed company is
 * not listed (decision 043): it works with no one any more.
 */
export async function findNotaryTitleCompanies(ctx: Ctx, notaryId: string): Promise<{ items: NotaryTitleCompany[] }> {
  await findProfileRow(ctx.db, notaryId);
  const rows = await ctx.db
    .select({ id: titleCompanies.id, name: titleCompanies.name, jobCount: count(jobs.id), lastJobAt: max(jobs.createdAt) })
    .from(jobs)
    .innerJoin(titleCompanies, eq(titleCompanies.id, jobs.companyId))
    .where(and(eq(jobs.notaryId, notaryId), isNotNull(jobs.companyId), isNull(titleCompanies.closedAt)))
    .groupBy(titleCompanies.id, titleCompanies.name)
    .orderBy(desc(max(jobs.createdAt)), titleCompanies.name);
  const defaults = await ctx.db
    .select({ id: titleCompanies.id, name: titleCompanies.name })
    .from(titleCompanies)
    .where(and(eq(titleCompanies.defaultNotaryId, notaryId), isNull(titleCompanies.closedAt)))
    .orderBy(titleCompanies.name, titleCompanies.id);
  const worked = new Set(rows.map((row) => row.id));
  return {
    items: [
      ...rows.map((row) => ({
        id: row.id,
        name: row.name,
        jobCount: Number(row.jobCount),
        lastJobAt: row.lastJobAt ? new Date(row.lastJobAt).toISOString() : null,
      })),
      ...defaults.filter((company) => !worked.has(company.id)).map((company) => ({ ...company, jobCount: 0, lastJobAt: null })),
    ],
  };
}
