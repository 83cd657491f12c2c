import type { JobListItem, JobStatus } from '#shared/jobs.ts';
import type { Db } from '#server/db/client.ts';
import { containsPattern } from '#server/db/like.ts';
import { prepareStatement, queryPrepared, type PreparedStatement } from '#server/db/prepared.ts';
import { hasCompanyStaffRole } from './job-access.ts';

/** job_access.via: why a person may see a job (migration 0016). */
const viaAll = 1 | 2 | 4 | 8 | 16;
const viaCompany = 4;
export const viaInvitation = 16;

/** The via bits of job_access that let this person see a job: company jobs only for company staff, as getJobAccess. */
export function personalViaMask(roles: readonly string[]): number {
  return hasCompanyStaffRole(roles) ? viaAll : viaAll & ~viaCompany;
}

/** What the list's most common shape may filter on: the person's own rows, a status, words of the title. */
export interface PersonalListQuery {
  userId: string;
  /** The via bits that count for this person (company jobs only for company staff). */
  viaMask: number;
  status: JobStatus | undefined;
  /** The title search as typed; matched as a substring, case-insensitive. */
  q: string | undefined;
  limit: number;
  offset: number;
}

interface ListRow {
  total: number;
  id: string | null;
  title: string;
  notarization_type: string;
  status: JobStatus;
  scheduled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  notary_name: string | null;
  company_name: string | null;
  participant_count: number;
  document_count: number;
  is_invitation: boolean;
}

const statements = new Map<string, PreparedStatement>();

/**
 * One statement for a page and its total (decision 031), written once per shape and
 * prepared. Without a search, the person's rows of job_access are counted (an index-only read of
 * their range) and, apart, cut to the page (read backwards from the newest, so page 1 reads 20 index
 * entries); with one, the range is read once and its matches kept (a search keeps few), then counted
 * and sorted. jobs, the notary's and the company's names and the two per-row counts are read for the
 * page's rows only. The page is joined laterally to the one-row count, so an empty page still says
 * the total.
 */
function statementFor(hasStatus: boolean, hasQuery: boolean): PreparedStatement {
  const key = `${hasStatus ? 's' : ''}${hasQuery ? 'q' : ''}`;
  const known = statements.get(key);
  if (known) return known;
  // $1 user, $2 via mask, $3 limit, $4 offset, then the status and the title pattern when present
  const own = [
    'a.user_id = $1',
    '(a.via & $2) <> 0',
    ...(hasStatus ? ['a.status = $5'] : []),
    ...(hasQuery ? [`a.title ilike $${hasStatus ? 6 : 5}`] : []),
  ].join(' and ');
  const rows = hasQuery ? 'hits a' : `job_access a where ${own}`;
  const text = `${hasQuery ? `with hits as materialized (select a.job_id, a.updated_at, a.via from job_access a where ${own})\n` : ''}select t.total, p.* from (select count(*)::int as total from ${rows}) t
left join lateral (
  select j.id, j.title, j.notarization_type, j.status, j.scheduled_at, j.created_at, j.updated_at,
    u.name as notary_name, c.name as company_name,
    (select count(*)::int from job_participants x where x.job_id = j.id) as participant_count,
    (select count(*)::int from documents d where d.job_id = j.id) as document_count,
    page.is_invitation, page.sort_at, page.sort_id
  from (select a.job_id as sort_id, a.updated_at as sort_at, (a.via & ${viaInvitation}) <> 0 as is_invitation
        from ${rows}
        order by a.updated_at desc, a.job_id desc limit $3 offset $4) page
  join jobs j on j.id = page.sort_id
  left join users u on u.id = j.notary_id
  left join title_companies c on c.id = j.company_id
) p on true
order by p.sort_at desc, p.sort_id desc`;
  const statement = prepareStatement(`jobs_list_${key || 'all'}`, text);
  statements.set(key, statement);
  return statement;
}

/** The statement and its values for one list query (the benchmark EXPLAINs exactly this). */
export function personalListCall(query: PersonalListQuery): { statement: PreparedStatement; values: unknown[] } {
  const values: unknown[] = [query.userId, query.viaMask, query.limit, query.offset];
  if (query.status) values.push(query.status);
  if (query.q) values.push(containsPattern(query.q));
  return { statement: statementFor(Boolean(query.status), Boolean(query.q)), values };
}

/** A page of a person's jobs and the total of the same filter, in one prepared statement. */
export async function readPersonalList(db: Db, query: PersonalListQuery): Promise<{ items: JobListItem[]; total: number }> {
  const { statement, values } = personalListCall(query);
  const rows = await queryPrepared<ListRow>(db, statement, values);
  const items: JobListItem[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    items.push({
      id: row.id,
      title: row.title,
      notarizationType: row.notarization_type,
      status: row.status,
      scheduledAt: row.scheduled_at?.toISOString() ?? null,
      notaryName: row.notary_name,
      companyName: row.company_name,
      participantCount: row.participant_count,
      documentCount: row.document_count,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      isInvitation: row.is_invitation,
    });
  }
  return { items, total: rows[0]?.total ?? 0 };
}
