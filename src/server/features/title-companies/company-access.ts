import { and, eq, sql } from 'drizzle-orm';
import type { TitleCompany, TitleCompanyStatus } from '#shared/title-companies.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { notaryProfiles, titleCompanies, titleCompanyMembers, users } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { AppError, forbidden, notFound, unauthorized } from '#server/lib/errors.ts';
import { hasCompanyStaffRole } from '#server/features/jobs/job-access.ts';

export type CompanyRow = typeof titleCompanies.$inferSelect;

/**
 * What the caller is to a company: an administrator (everything, every company), its title staff
 * (manage the company, its people and job types), or one of its agents (read the company, its job
 * types and default notary).
 */
export type CompanyStanding = 'admin' | 'title' | 'title_agent';

export interface CompanyAccess {
  company: CompanyRow;
  standing: CompanyStanding;
  userId: string;
}

/** The same answer for a company that does not exist and one the caller may not see. */
export const companyNotFound = () => notFound('No title company with that id, or you may not see it.');

export function getCompanyStatus(company: Pick<CompanyRow, 'closedAt' | 'approvalStatus'>): TitleCompanyStatus {
  return company.closedAt ? 'closed' : company.approvalStatus;
}

/** The caller's membership of one company, counted only while they hold a company role (as job access does). */
async function findStanding(db: DbOrTx, user: { id: string; roles: readonly string[] }, companyId: string): Promise<CompanyStanding | null> {
  if (user.roles.includes('admin')) return 'admin';
  if (!hasCompanyStaffRole(user.roles)) return null;
  const [member] = await db
    .select({ role: titleCompanyMembers.role })
    .from(titleCompanyMembers)
    .where(and(eq(titleCompanyMembers.companyId, companyId), eq(titleCompanyMembers.userId, user.id)))
    .limit(1);
  if (!member) return null;
  // Title staff of the company whose account lost the title role manage nothing until it is back.
  return member.role === 'title' && user.roles.includes('title') ? 'title' : 'title_agent';
}

/**
 * Loads a company for the caller, before anything else is read or changed: 404 when it does not
 * exist or the caller is neither an administrator nor one of its members (`notFound` words it for a
 * route about something of the company). With forUpdate the row is locked for the rest of the transaction.
 */
export async function getCompanyAccess(ctx: Ctx, companyId: string, options: { forUpdate?: boolean; notFound?: () => AppError } = {}): Promise<CompanyAccess> {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const missing = options.notFound ?? companyNotFound;
  const standing = await findStanding(ctx.db, user, companyId);
  if (!standing) throw missing();
  const query = ctx.db.select().from(titleCompanies).where(eq(titleCompanies.id, companyId)).limit(1);
  const [company] = options.forUpdate ? await query.for('update') : await query;
  if (!company) throw missing();
  return { company, standing, userId: user.id };
}

/** Title staff of the company and administrators manage it; its agents only read. */
export function requireManager(access: CompanyAccess, message = 'Only the company’s title staff or an administrator may change this.'): void {
  if (access.standing === 'title_agent') throw forbidden(message);
}

/** A closed company changes no more (decision 043): it keeps its history as it was. */
export function requireOpen(company: CompanyRow): void {
  if (company.closedAt) throw new AppError(409, 'company_closed', `${company.name} is closed; it can no longer be changed.`);
}

/** A company's working rows answer with its member count and its default notary, read in the same statement. */
export const companyColumns = {
  company: titleCompanies,
  memberCount: sql<number>`(select count(*)::int from title_company_members m join users u on u.id = m.user_id
    where m.company_id = ${titleCompanies.id} and u.status = 'active')`,
  notaryName: users.name,
  notaryState: notaryProfiles.commissionState,
  notaryCounty: notaryProfiles.county,
};

/** The select of companyColumns, joined to the default notary; the caller adds where, order and limits. */
export function selectCompanies(db: DbOrTx) {
  return db
    .select(companyColumns)
    .from(titleCompanies)
    .leftJoin(users, eq(users.id, titleCompanies.defaultNotaryId))
    .leftJoin(notaryProfiles, eq(notaryProfiles.userId, titleCompanies.defaultNotaryId))
    .$dynamic();
}

export type CompanyRowWithFacts = {
  company: CompanyRow;
  memberCount: number;
  notaryName: string | null;
  notaryState: string | null;
  notaryCounty: string | null;
};

export function toDefaultNotary(row: Pick<CompanyRowWithFacts, 'company' | 'notaryName' | 'notaryState' | 'notaryCounty'>): TitleCompany['defaultNotary'] {
  const { defaultNotaryId } = row.company;
  if (!defaultNotaryId || row.notaryName === null || row.notaryState === null || row.notaryCounty === null) return null;
  return { userId: defaultNotaryId, name: row.notaryName, commissionState: row.notaryState, county: row.notaryCounty };
}

export function toTitleCompany(row: CompanyRowWithFacts, standing: CompanyStanding): TitleCompany {
  const { company } = row;
  const isOpen = !company.closedAt;
  const canManage = isOpen && (standing === 'admin' || standing === 'title');
  return {
    id: company.id,
    name: company.name,
    status: getCompanyStatus(company),
    city: company.city,
    state: company.state,
    addressLine: company.addressLine,
    phone: company.phone,
    contactEmail: company.contactEmail,
    defaultNotary: toDefaultNotary(row),
    agentsSeePrices: company.agentsSeePrices,
    memberCount: row.memberCount,
    createdAt: company.createdAt.toISOString(),
    approvedAt: company.approvedAt?.toISOString() ?? null,
    closedAt: company.closedAt?.toISOString() ?? null,
    permissions: { canEdit: canManage, canManageAgents: canManage, canClose: isOpen && standing === 'admin' },
  };
}

/** One company as the caller may see it. */
export async function describeCompany(db: DbOrTx, companyId: string, standing: CompanyStanding): Promise<TitleCompany> {
  const [row] = await selectCompanies(db).where(eq(titleCompanies.id, companyId)).limit(1);
  if (!row) throw companyNotFound();
  return toTitleCompany(row, standing);
}
