import { and, asc, desc, eq, ilike, inArray, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type {
  publicTitleCompanySchema,
  TitleCompanyPage,
  titleCompanyQuerySchema,
  titleCompanySearchItemSchema,
  titleCompanySearchQuerySchema,
  TitleCompanyStatus,
} from '#shared/title-companies.ts';
import { findUsStateCodesByNameWord, isUsStateCode } from '#shared/us-states.ts';
import { containsPattern } from '#server/db/like.ts';
import { titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { unauthorized } from '#server/lib/errors.ts';
import { hitRateLimit, throwRateLimited } from '#server/lib/rate-limit.ts';
import { selectCompanies, toTitleCompany } from './company-access.ts';

type Output<T extends z.ZodType> = z.output<T>;

/** Every word must match the name or the city (any part), or the state (its code, or the beginning of a word of its name). */
function searchConditions(query: string | undefined): SQL[] {
  const conditions: SQL[] = [];
  for (const word of (query ?? '').split(/\s+/).filter(Boolean)) {
    const statesNamed = findUsStateCodesByNameWord(word);
    const code = word.toUpperCase();
    const condition = or(
      ilike(titleCompanies.name, containsPattern(word)),
      ilike(titleCompanies.city, containsPattern(word)),
      isUsStateCode(code) ? eq(titleCompanies.state, code) : undefined,
      statesNamed.length > 0 ? inArray(titleCompanies.state, statesNamed) : undefined,
    );
    if (condition) conditions.push(condition);
  }
  return conditions;
}

function statusCondition(status: TitleCompanyStatus): SQL {
  if (status === 'closed') return isNotNull(titleCompanies.closedAt);
  return and(isNull(titleCompanies.closedAt), eq(titleCompanies.approvalStatus, status)) as SQL;
}

/** Companies a job creator or the public may find: approved and not closed. */
const isWorking = and(eq(titleCompanies.approvalStatus, 'approved'), isNull(titleCompanies.closedAt)) as SQL;

/** GET /api/title-companies: every company for administrators, newest first, by status and words. */
export async function findCompanies(ctx: Ctx, query: Output<typeof titleCompanyQuerySchema>): Promise<TitleCompanyPage> {
  const where = and(...searchConditions(query.q), query.status ? statusCondition(query.status) : undefined);
  const [rows, [total]] = await Promise.all([
    selectCompanies(ctx.db)
      .where(where)
      .orderBy(desc(titleCompanies.createdAt), desc(titleCompanies.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    ctx.db
      .select({ count: sql<number>`count(*)::int` })
      .from(titleCompanies)
      .where(where),
  ]);
  return { items: rows.map((row) => toTitleCompany(row, 'admin')), total: total?.count ?? 0, page: query.page, pageSize: query.pageSize };
}

/** GET /api/title-companies/search: approved, open companies, by name, for signed-in staff picking one. */
export async function searchCompanies(ctx: Ctx, query: Output<typeof titleCompanySearchQuerySchema>) {
  const where = and(isWorking, ...searchConditions(query.q));
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select({ id: titleCompanies.id, name: titleCompanies.name, city: titleCompanies.city, state: titleCompanies.state })
      .from(titleCompanies)
      .where(where)
      .orderBy(asc(titleCompanies.name), asc(titleCompanies.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    ctx.db
      .select({ count: sql<number>`count(*)::int` })
      .from(titleCompanies)
      .where(where),
  ]);
  const items: Array<z.infer<typeof titleCompanySearchItemSchema>> = rows;
  return { items, total: total?.count ?? 0, page: query.page, pageSize: query.pageSize };
}

const publicResultLimit = 20;
const publicSearchesPerMinute = 30;

/**
 * GET /api/title-companies/search/public: anyone may look a company up, rate-limited per network
 * like the other public lookups, and learns only what a company shows the world: name, city, state.
 */
export async function searchCompaniesPublicly(ctx: Ctx, q: string): Promise<{ items: Array<z.infer<typeof publicTitleCompanySchema>> }> {
  const hits = await hitRateLimit(ctx.db, `company-search:address:${ctx.ipAddress}`, 60_000);
  if (hits.count > publicSearchesPerMinute) throwRateLimited('title company searches from this network', hits.resetAt);
  const rows = await ctx.db
    .select({ name: titleCompanies.name, city: titleCompanies.city, state: titleCompanies.state })
    .from(titleCompanies)
    .where(and(isWorking, ...searchConditions(q)))
    .orderBy(asc(titleCompanies.name), asc(titleCompanies.id))
    .limit(publicResultLimit);
  return { items: rows.map((row) => ({ name: row.name, city: row.city, state: row.state })) };
}

/** GET /api/title-companies/mine: the open companies the caller works for, with their role in each. */
export async function findMyCompanies(ctx: Ctx) {
  const user = ctx.user;
  if (!user) throw unauthorized();
  const rows = await ctx.db
    .select({ id: titleCompanies.id, name: titleCompanies.name, role: titleCompanyMembers.role })
    .from(titleCompanyMembers)
    .innerJoin(titleCompanies, eq(titleCompanies.id, titleCompanyMembers.companyId))
    .where(and(eq(titleCompanyMembers.userId, user.id), isNull(titleCompanies.closedAt)))
    .orderBy(asc(titleCompanies.name), asc(titleCompanies.id));
  return { items: rows };
}
