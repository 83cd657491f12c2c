import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { TitleCompanySummary } from '#shared/title-companies.ts';
import { titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, notFound } from '#server/lib/errors.ts';

export async function findTitleCompanies(ctx: Ctx, approvalStatus: 'pending' | 'approved'): Promise<TitleCompanySummary[]> {
  const rows = await ctx.db
    .select({ company: titleCompanies, ownerName: users.name, ownerEmail: users.email })
    .from(titleCompanies)
    .leftJoin(users, eq(users.id, titleCompanies.createdBy))
    .where(eq(titleCompanies.approvalStatus, approvalStatus))
    .orderBy(desc(titleCompanies.createdAt))
    .limit(500);
  return rows.map(({ company, ownerName, ownerEmail }) => ({
    id: company.id,
    name: company.name,
    approvalStatus: company.approvalStatus,
    createdAt: company.createdAt.toISOString(),
    ownerName,
    ownerEmail,
  }));
}

/** An administrator approves a title company: its pending members become active. */
export async function approveTitleCompany(ctx: Ctx, companyId: string): Promise<void> {
  const approver = ctx.user;
  if (!approver) throw new Error('approveTitleCompany needs a signed-in caller');
  const memberIds = await ctx.db.transaction(async (tx) => {
    const [company] = await tx.select().from(titleCompanies).where(eq(titleCompanies.id, companyId)).for('update');
    if (!company) throw notFound('No title company with that id.');
    if (company.approvalStatus === 'approved') throw new AppError(409, 'already_approved', 'This title company is already approved.');
    await tx
      .update(titleCompanies)
      .set({ approvalStatus: 'approved', approvedAt: new Date(), approvedBy: approver.id })
      .where(eq(titleCompanies.id, companyId));
    const members = await tx.select({ userId: titleCompanyMembers.userId }).from(titleCompanyMembers).where(eq(titleCompanyMembers.companyId, companyId));
    const ids = members.map((member) => member.userId);
    if (ids.length > 0) {
      await tx
        .update(users)
        .set({ status: 'active', updatedAt: sql`now()` })
        .where(and(inArray(users.id, ids), eq(users.status, 'pending')));
    }
    return ids;
  });
  await Promise.all(memberIds.map((id) => ctx.sessionCache.invalidateUser(id)));
  ctx.log.info({ event: 'title_company.approved', companyId, by: approver.id }, 'title company approved');
}
