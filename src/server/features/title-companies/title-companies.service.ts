import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { TitleCompanySummary } from '#shared/title-companies.ts';
import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, notFound } from '#server/lib/errors.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { mailTemplates } from '#server/features/mail/templates.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';
import { revokeUserSessions } from '#server/features/auth/sessions.service.ts';

export async function findTitleCompanies(ctx: Ctx, approvalStatus: 'pending' | 'approved'): Promise<TitleCompanySummary[]> {
  const rows = await ctx.db
    .select({ company: titleCompanies, ownerName: users.name, ownerEmail: users.email })
    .from(titleCompanies)
    .leftJoin(users, eq(users.id, titleCompanies.createdBy))
    // A closed company is neither waiting nor working any more: the full list (GET /) shows it.
    .where(and(eq(titleCompanies.approvalStatus, approvalStatus), isNull(titleCompanies.closedAt)))
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

/**
 * Locks a company's application for a decision with its pending members: 404 when there is none,
 * 409 once it is decided (decision 014: an application is approved or rejected once, never both)
 * or the company is closed (decision 043).
 */
async function lockPendingApplication(tx: DbOrTx, companyId: string) {
  const [company] = await tx.select().from(titleCompanies).where(eq(titleCompanies.id, companyId)).for('update');
  if (!company) throw notFound('No title company with that id.');
  if (company.closedAt) throw new AppError(409, 'already_closed', `${company.name} is closed; it can no longer be approved or rejected.`);
  if (company.approvalStatus === 'approved') throw new AppError(409, 'already_approved', 'This title company is already approved.');
  if (company.approvalStatus === 'rejected') throw new AppError(409, 'already_rejected', 'This title company’s application was already rejected.');
  const pendingMembers = await tx
    .select({ id: users.id, name: users.name, email: users.email })
    .from(titleCompanyMembers)
    .innerJoin(users, eq(users.id, titleCompanyMembers.userId))
    .where(and(eq(titleCompanyMembers.companyId, companyId), eq(users.status, 'pending')))
    .for('update', { of: users });
  return { company, pendingMembers };
}

/**
 * An administrator approves a title company: its pending members become active, the decision is
 * audited and each of them gets a welcome email with the sign-in link.
 */
export async function approveTitleCompany(ctx: Ctx, companyId: string): Promise<{ ok: true; message: string }> {
  const approver = ctx.user;
  if (!approver) throw new Error('approveTitleCompany needs a signed-in caller');
  const { company, pendingMembers } = await ctx.db.transaction(async (tx) => {
    const application = await lockPendingApplication(tx, companyId);
    const memberIds = application.pendingMembers.map((member) => member.id);
    await tx
      .update(titleCompanies)
      .set({ approvalStatus: 'approved', approvedAt: new Date(), approvedBy: approver.id })
      .where(eq(titleCompanies.id, companyId));
    if (memberIds.length > 0) {
      await tx
        .update(users)
        .set({ status: 'active', updatedAt: sql`now()` })
        .where(and(inArray(users.id, memberIds), eq(users.status, 'pending')));
    }
    const companyName = application.company.name;
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'title_company.approved', data: { companyId, companyName, memberIds } });
    for (const member of application.pendingMembers) {
      await queueEmail(tx, {
        to: member.email,
        kind: 'title_company_approved',
        ...mailTemplates.titleCompanyApproved.render({ name: member.name, companyName, signInLink: `${ctx.config.publicUrl}/login` }),
      });
    }
    return application;
  });
  await Promise.all(pendingMembers.map((member) => ctx.sessionCache.invalidateUser(member.id)));
  ctx.log.info({ event: 'title_company.approved', companyId, by: approver.id }, 'title company approved');
  return { ok: true, message: `${toSingleLine(company.name)} was approved and its team was told by email.` };
}

/**
 * An administrator turns a title company down with a reason: its pending members are marked
 * rejected (they can no longer sign in, their open sessions end), the decision is audited and each
 * of them is told by email why and whom to contact. Members already active elsewhere keep access.
 */
export async function rejectTitleCompany(ctx: Ctx, companyId: string, reason: string): Promise<{ ok: true; message: string }> {
  const reviewer = ctx.user;
  if (!reviewer) throw new Error('rejectTitleCompany needs a signed-in caller');
  const contact = ctx.config.email.supportAddress ?? `${toSingleLine(reviewer.name)} at ${reviewer.email}`;
  const { company, pendingMembers } = await ctx.db.transaction(async (tx) => {
    const application = await lockPendingApplication(tx, companyId);
    const memberIds = application.pendingMembers.map((member) => member.id);
    const now = new Date();
    await tx
      .update(titleCompanies)
      .set({ approvalStatus: 'rejected', rejectedAt: now, rejectedBy: reviewer.id, rejectionReason: reason })
      .where(eq(titleCompanies.id, companyId));
    if (memberIds.length > 0) {
      await tx
        .update(users)
        .set({ status: 'rejected', updatedAt: now })
        .where(and(inArray(users.id, memberIds), eq(users.status, 'pending')));
    }
    for (const id of memberIds) await revokeUserSessions({ ...ctx, db: tx }, id);
    const companyName = application.company.name;
    await appendAuditEvent({ ...ctx, db: tx }, { action: 'title_company.rejected', data: { companyId, companyName, memberIds, reason } });
    for (const member of application.pendingMembers) {
      await queueEmail(tx, {
        to: member.email,
        kind: 'title_company_rejected',
        ...mailTemplates.titleCompanyRejected.render({ name: member.name, companyName, reason, contact }),
      });
    }
    return application;
  });
  await Promise.all(pendingMembers.map((member) => ctx.sessionCache.invalidateUser(member.id)));
  ctx.log.info({ event: 'title_company.rejected', companyId, by: reviewer.id }, 'title company application rejected');
  return { ok: true, message: `${toSingleLine(company.name)} was not approved; its team was told by email, with your reason.` };
}
