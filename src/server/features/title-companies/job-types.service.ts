import { and, asc, eq, isNull, ne, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { DocumentTag } from '#shared/documents.ts';
import type { NotarizationType } from '#shared/jobs.ts';
import { toSingleLine } from '#shared/text.ts';
import type { createJobTypeInputSchema, JobType, updateJobTypeInputSchema } from '#shared/title-companies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { companyJobTypes, titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { badRequest, conflict, notFound } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { isUniqueViolation } from '#server/features/auth/users.ts';
import { getCompanyAccess, requireManager, requireOpen, type CompanyRow } from './company-access.ts';

type JobTypeRow = typeof companyJobTypes.$inferSelect;

const jobTypeNotFound = () => notFound('No job type with that id, or you may not see it.');
const managersOnly = 'Only the company’s title staff or an administrator may change its job types.';

function toJobType(row: JobTypeRow): JobType {
  return {
    id: row.id,
    companyId: row.companyId,
    name: row.name,
    notarizationType: row.notarizationType as NotarizationType,
    documentTags: row.documentTags as DocumentTag[],
    witnessCount: row.witnessCount,
    instructions: row.instructions,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What an audit event keeps of a job type, before and after a change. */
function jobTypeFacts(row: Pick<JobTypeRow, 'name' | 'notarizationType' | 'documentTags' | 'witnessCount' | 'instructions'>) {
  return {
    name: row.name,
    notarizationType: row.notarizationType,
    documentTags: row.documentTags,
    witnessCount: row.witnessCount,
    instructions: row.instructions,
  };
}

function duplicateName(company: CompanyRow, name: string) {
  return conflict(`${toSingleLine(company.name)} already has a job type named “${toSingleLine(name)}”. Choose another name.`);
}

/** Refuses a name another live job type of the company has, in any case. */
async function assertNameFree(db: DbOrTx, company: CompanyRow, name: string, exceptId?: string): Promise<void> {
  const [other] = await db
    .select({ id: companyJobTypes.id })
    .from(companyJobTypes)
    .where(
      and(
        eq(companyJobTypes.companyId, company.id),
        sql`lower(${companyJobTypes.name}) = lower(${name})`,
        isNull(companyJobTypes.deletedAt),
        exceptId ? ne(companyJobTypes.id, exceptId) : undefined,
      ),
    )
    .limit(1);
  if (other) throw duplicateName(company, name);
}

/** GET /api/title-companies/{id}/job-types: the company's live job types, by name, for its members and administrators. */
export async function findJobTypes(ctx: Ctx, companyId: string): Promise<{ items: JobType[] }> {
  await getCompanyAccess(ctx, companyId);
  const rows = await ctx.db
    .select()
    .from(companyJobTypes)
    .where(and(eq(companyJobTypes.companyId, companyId), isNull(companyJobTypes.deletedAt)))
    .orderBy(asc(sql`lower(${companyJobTypes.name})`), asc(companyJobTypes.id));
  return { items: rows.map(toJobType) };
}

/** POST /api/title-companies/{id}/job-types */
export async function createJobType(ctx: Ctx, companyId: string, input: z.output<typeof createJobTypeInputSchema>): Promise<JobType> {
  let company: CompanyRow | undefined;
  try {
    return await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const access = await getCompanyAccess(txCtx, companyId, { forUpdate: true });
      company = access.company;
      requireManager(access, managersOnly);
      requireOpen(access.company);
      await assertNameFree(tx, access.company, input.name);
      const [row] = await tx
        .insert(companyJobTypes)
        .values({
          companyId,
          name: input.name,
          notarizationType: input.notarizationType,
          documentTags: input.documentTags,
          witnessCount: input.witnessCount,
          instructions: input.instructions,
        })
        .returning();
      if (!row) throw new Error('job type insert returned no row');
      await appendAuditEvent(txCtx, {
        action: 'title_company.job_type_created',
        data: { companyId, companyName: access.company.name, jobTypeId: row.id, jobTypeName: row.name, after: jobTypeFacts(row) },
      });
      return toJobType(row);
    });
  } catch (error) {
    if (company && isUniqueViolation(error)) throw duplicateName(company, input.name);
    throw error;
  }
}

/** Locks a live job type and checks that the caller manages its company, 404 otherwise. */
async function getManagedJobType(ctx: Ctx & { db: DbOrTx }, jobTypeId: string) {
  const [row] = await ctx.db
    .select()
    .from(companyJobTypes)
    .where(and(eq(companyJobTypes.id, jobTypeId), isNull(companyJobTypes.deletedAt)))
    .limit(1);
  if (!row) throw jobTypeNotFound();
  const access = await getCompanyAccess(ctx, row.companyId, { forUpdate: true, notFound: jobTypeNotFound });
  requireManager(access, managersOnly);
  requireOpen(access.company);
  const [locked] = await ctx.db
    .select()
    .from(companyJobTypes)
    .where(and(eq(companyJobTypes.id, jobTypeId), isNull(companyJobTypes.deletedAt)))
    .for('update');
  if (!locked) throw jobTypeNotFound();
  return { row: locked, company: access.company };
}

/** PUT /api/title-companies/job-types/{id}: jobs already made from the type keep the instructions they were given. */
export async function updateJobType(ctx: Ctx, jobTypeId: string, input: z.output<typeof updateJobTypeInputSchema>): Promise<JobType> {
  let company: CompanyRow | undefined;
  try {
    return await ctx.db.transaction(async (tx) => {
      const txCtx = { ...ctx, db: tx };
      const managed = await getManagedJobType(txCtx, jobTypeId);
      company = managed.company;
      const { row } = managed;
      const changes: Partial<JobTypeRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.notarizationType !== undefined) changes.notarizationType = input.notarizationType;
      if (input.documentTags !== undefined) changes.documentTags = input.documentTags;
      if (input.witnessCount !== undefined) changes.witnessCount = input.witnessCount;
      if (input.instructions !== undefined) changes.instructions = input.instructions;
      const before = jobTypeFacts(row);
      const after = jobTypeFacts({ ...row, ...changes });
      const changed = (Object.keys(before) as Array<keyof typeof before>).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
      if (changed.length === 0) return toJobType(row);
      if (changed.includes('name')) await assertNameFree(tx, managed.company, after.name, row.id);
      const [updated] = await tx
        .update(companyJobTypes)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(companyJobTypes.id, jobTypeId))
        .returning();
      if (!updated) throw jobTypeNotFound();
      await appendAuditEvent(txCtx, {
        action: 'title_company.job_type_updated',
        data: {
          companyId: managed.company.id,
          companyName: managed.company.name,
          jobTypeId,
          jobTypeName: updated.name,
          before: Object.fromEntries(changed.map((key) => [key, before[key]])),
          after: Object.fromEntries(changed.map((key) => [key, after[key]])),
        },
      });
      return toJobType(updated);
    });
  } catch (error) {
    if (company && isUniqueViolation(error)) throw duplicateName(company, input.name ?? '');
    throw error;
  }
}

/** DELETE /api/title-companies/job-types/{id}: no longer offered; kept for the jobs made from it. */
export async function deleteJobType(ctx: Ctx, jobTypeId: string): Promise<{ ok: true; message: string }> {
  return ctx.db.transaction(async (tx) => {
    const txCtx = { ...ctx, db: tx };
    const { row, company } = await getManagedJobType(txCtx, jobTypeId);
    await tx.update(companyJobTypes).set({ deletedAt: new Date() }).where(eq(companyJobTypes.id, jobTypeId));
    await appendAuditEvent(txCtx, {
      action: 'title_company.job_type_deleted',
      data: { companyId: company.id, companyName: company.name, jobTypeId, jobTypeName: row.name, before: jobTypeFacts(row) },
    });
    return { ok: true as const, message: `The job type “${toSingleLine(row.name)}” is deleted; jobs made from it keep their instructions.` };
  });
}

/**
 * The job type a new job is made from: a live type of an open company the creator works for.
 * Anything else is a 400, without saying whether the type exists elsewhere.
 */
export async function getJobTypeForCreator(db: DbOrTx, jobTypeId: string, userId: string): Promise<JobTypeRow> {
  const [row] = await db
    .select({ jobType: companyJobTypes })
    .from(companyJobTypes)
    .innerJoin(titleCompanies, eq(titleCompanies.id, companyJobTypes.companyId))
    .innerJoin(titleCompanyMembers, and(eq(titleCompanyMembers.companyId, companyJobTypes.companyId), eq(titleCompanyMembers.userId, userId)))
    .where(and(eq(companyJobTypes.id, jobTypeId), isNull(companyJobTypes.deletedAt), isNull(titleCompanies.closedAt)))
    .limit(1);
  if (!row) throw badRequest('Choose one of your company’s job types.');
  return row.jobType;
}

/** A live job type of one open company: what a title company's API key may make a job from (decision 054). */
export async function getJobTypeOfCompany(db: DbOrTx, jobTypeId: string, companyId: string): Promise<JobTypeRow> {
  const [row] = await db
    .select({ jobType: companyJobTypes })
    .from(companyJobTypes)
    .innerJoin(titleCompanies, eq(titleCompanies.id, companyJobTypes.companyId))
    .where(and(eq(companyJobTypes.id, jobTypeId), eq(companyJobTypes.companyId, companyId), isNull(companyJobTypes.deletedAt), isNull(titleCompanies.closedAt)))
    .limit(1);
  if (!row) throw badRequest('Choose one of your company’s job types.');
  return row.jobType;
}

/**
 * The document tags a job's type lists now, in its order (none for no type): what an upload to
 * the job naming no tag takes the first of (decision 043). A deleted type still answers for the
 * jobs made from it.
 */
export async function findJobTypeDocumentTags(db: DbOrTx, jobTypeId: string | null): Promise<DocumentTag[]> {
  if (!jobTypeId) return [];
  const [row] = await db.select({ documentTags: companyJobTypes.documentTags }).from(companyJobTypes).where(eq(companyJobTypes.id, jobTypeId)).limit(1);
  return (row?.documentTags ?? []) as DocumentTag[];
}
