/**
 * Seeds a migrated database for bench/jobs.bench.ts with set-based SQL (INSERT ... SELECT
 * generate_series): one measured title agent who may see exactly `visibleJobs` jobs among
 * `totalJobs`, and the other creators, companies, notaries, participants and documents around them.
 *
 * Every id is derived from a label (md5, shaped as a v4 UUID), so the seed is deterministic and rows
 * refer to one another without round trips. A few seconds on PGlite or PostgreSQL.
 *
 * Who sees what (the rules of visibleJobIds in jobs.service.ts and of getJobAccess): job n with
 * n % (totalJobs / visibleJobs) = 0 is visible to the measured agent, through
 *   - company membership (60%): company_id = the agent's company, created by a colleague;
 *   - being its creator (20%): created_by = the agent (company_id = the agent's company);
 *   - being a participant (20%): an observer row with user_id = the agent, on someone else's job.
 * Every other job belongs to one of `otherUsers` creators and to one of 50 other companies or none;
 * every job has two participants (a signer with an account and an invited witness), half of them a
 * notary and a document. The inserts run in one transaction with triggers off (foreign keys and
 * job_access's upkeep, about a third faster), job_access is then built in one statement
 * (job_access_rebuild()); a check afterwards finds no dangling reference, then ANALYZE (VACUUM ANALYZE
 * on PostgreSQL, as its autovacuum would).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '#server/db/client.ts';

export interface SeedOptions {
  totalJobs: number;
  visibleJobs: number;
  otherUsers: number;
  email: string;
  /** The measured user's argon2 hash (hashPassword from src/server/lib/crypto.ts). */
  passwordHash: string;
  /** VACUUM ANALYZE after the load (PostgreSQL, whose autovacuum would), else ANALYZE only (PGlite has no autovacuum). */
  isVacuumed?: boolean;
}

export interface SeedResult {
  userId: string;
  /** The list search the benchmark runs (q=), and how many of the agent's jobs match it. */
  searchTerm: string;
  searchTotal: number;
  rows: { users: number; jobs: number; participants: number; documents: number };
}

const otherCompanies = 50;
const notaries = 20;
const surnames = ['Smith', 'Garcia', 'Nguyen', 'Johnson', 'Okafor', 'Mueller', 'Kowalski', 'Tanaka'];
const searchTerm = 'nguyen';

/** A deterministic UUID (v4 layout) from an SQL text expression. */
const uuidOf = (label: string) => `overlay(overlay(md5(${label}) placing '4' from 13) placing '8' from 17)::uuid`;
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;
const textArray = (values: string[]) => `array[${values.map(literal).join(', ')}]`;

export async function seedJobs(db: Db, options: SeedOptions): Promise<SeedResult> {
  const { totalJobs, visibleJobs, otherUsers } = options;
  if (!Number.isInteger(totalJobs / visibleJobs)) throw new Error('totalJobs must be a multiple of visibleJobs');
  const stride = totalJobs / visibleJobs;
  const agent = uuidOf(`'agent'`);
  const colleague = uuidOf(`'colleague'`);
  const company = uuidOf(`'company-0'`);
  const jobId = uuidOf(`'job-' || n`);
  // 0 = someone else's job, 1 = the agent's company's job, 2 = the agent's own job, 3 = the agent is an observer
  const numbered = `(select n, case when n % ${stride} <> 0 then 0 when (n / ${stride}) % 10 < 6 then 1 when (n / ${stride}) % 10 < 8 then 2 else 3 end as k
                     from generate_series(1, ${totalJobs}) as n) as numbered`;
  const surname = `(${textArray(surnames)})[1 + (n / 7) % ${surnames.length}]`;
  const statements = [
    `insert into users (id, email, name, password_hash, roles, status)
     values (${agent}, ${literal(options.email)}, 'Avery Agent', ${literal(options.passwordHash)}, '{title_agent}', 'active'),
            (${colleague}, 'colleague@bench.open-ron.test', 'Casey Colleague', null, '{title}', 'active')`,
    `insert into users (id, email, name, roles, status)
     select ${uuidOf(`'user-' || n`)}, 'user-' || n || '@bench.open-ron.test', 'Other User ' || n,
            case when n % 5 = 0 then '{title}'::text[] else '{signer}'::text[] end, 'active'
     from generate_series(0, ${otherUsers - 1}) as n`,
    `insert into users (id, email, name, roles, status)
     select ${uuidOf(`'notary-' || n`)}, 'notary-' || n || '@bench.open-ron.test', 'Notary ' || n, '{notary}', 'active'
     from generate_series(0, ${notaries - 1}) as n`,
    `insert into title_companies (id, name, approval_status, approved_at)
     select ${uuidOf(`'company-' || n`)}, 'Title Company ' || n, 'approved', now() from generate_series(0, ${otherCompanies}) as n`,
    `insert into title_company_members (company_id, user_id, role)
     values (${company}, ${agent}, 'title_agent'), (${company}, ${colleague}, 'title')`,
    `insert into title_company_members (company_id, user_id, role)
     select ${uuidOf(`'company-' || (1 + n)`)}, ${uuidOf(`'user-' || (n * 5 % ${otherUsers})`)}, 'title' from generate_series(0, ${otherCompanies - 1}) as n`,
    `insert into jobs (id, title, notarization_type, status, company_id, created_by, notary_id, scheduled_at, version, created_at, updated_at)
     select ${jobId},
            (${textArray(['Refinance closing', 'Purchase agreement', 'Deed of trust', 'Power of attorney', 'Affidavit of title', 'Loan modification'])})[1 + n % 6]
              || ' #' || n || ' - ' || ${surname},
            (${textArray(['acknowledgment', 'jurat', 'oath_affirmation', 'signature_witnessing', 'copy_certification'])})[1 + n % 5],
            (${textArray(['draft', 'ready', 'scheduled', 'in_session', 'completed', 'cancelled', 'completed', 'draft'])})[1 + (n / 3) % 8],
            case when k in (1, 2) then ${company} when n % 3 = 0 then null else ${uuidOf(`'company-' || (1 + n % ${otherCompanies})`)} end,
            case k when 1 then ${colleague} when 2 then ${agent} else ${uuidOf(`'user-' || (n * 7 % ${otherUsers})`)} end,
            case when n % 2 = 0 then ${uuidOf(`'notary-' || (n % ${notaries})`)} end,
            case when (n / 3) % 8 = 2 then now() + (n % 30) * interval '1 day' end,
            1 + n % 4,
            now() - (n::bigint * 7919 % 31536000) * interval '1 second' - interval '2 days',
            now() - (n::bigint * 7919 % 31536000) * interval '1 second'
     from ${numbered}`,
    `insert into job_participants (job_id, user_id, name, email, role, position, invited_at)
     select ${jobId}, ${uuidOf(`'user-' || (n * 13 % ${otherUsers})`)}, 'Signer ' || n, 'user-' || (n * 13 % ${otherUsers}) || '@bench.open-ron.test', 'signer', 0, now()
     from generate_series(1, ${totalJobs}) as n`,
    `insert into job_participants (job_id, user_id, name, email, role, position, invited_at)
     select ${jobId}, null, 'Witness ' || n, 'witness-' || n || '@example.test', 'witness', 1, now()
     from generate_series(1, ${totalJobs}) as n`,
    `insert into job_participants (job_id, user_id, name, email, role, position, invited_at)
     select ${jobId}, ${agent}, 'Avery Agent', ${literal(options.email)}, 'observer', 2, now() from ${numbered} where k = 3`,
    `insert into documents (job_id, name, tag, position, page_count, size_bytes, sha256, storage_key)
     select ${jobId}, 'document-' || n || '.pdf', 'signing', 0, 1 + n % 40, 100000 + n, md5('a' || n) || md5('b' || n), md5('a' || n) || md5('b' || n)
     from generate_series(1, ${totalJobs}) as n where n % 2 = 0`,
  ];
  // One transaction (one connection of a pool); foreign-key triggers off while it runs (the rows are consistent by
  // construction), which makes the seed about a third faster
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw('set local session_replication_role = replica'));
    for (const statement of statements) await tx.execute(sql.raw(statement));
    // job_access (the list's read model) is kept by triggers, which are off here too: build it in one statement
    await tx.execute(sql.raw('select job_access_rebuild()'));
  });
  // PGlite runs no autovacuum, and PostgreSQL's would run at an unknown moment (after a bulk load, its
  // insert-triggered vacuum runs within a minute, perhaps during a measurement): gather the statistics
  // now, as a long-lived database has them. On PostgreSQL also VACUUM, which sets the visibility map
  // that autovacuum keeps in a live database (index-only reads of job_access then skip the heap);
  // PGlite is measured as an embedded install runs, without it.
  await db.execute(sql.raw(options.isVacuumed ? 'vacuum analyze' : 'analyze'));
  const result = await db.execute(
    sql.raw(`
    select (select count(*)::int from users) as users, (select count(*)::int from jobs) as jobs,
           (select count(*)::int from job_participants) as participants, (select count(*)::int from documents) as documents,
           (select count(*)::int from ${numbered} where k <> 0 and ${surname} ilike '%${searchTerm}%') as search,
           ${agent}::text as agent,
           (select count(*)::int from jobs j where (j.created_by is not null and not exists (select 1 from users u where u.id = j.created_by))
              or (j.notary_id is not null and not exists (select 1 from users u where u.id = j.notary_id))
              or (j.company_id is not null and not exists (select 1 from title_companies c where c.id = j.company_id)))
           + (select count(*)::int from job_participants p where not exists (select 1 from jobs j where j.id = p.job_id)
              or (p.user_id is not null and not exists (select 1 from users u where u.id = p.user_id)))
           + (select count(*)::int from documents d where not exists (select 1 from jobs j where j.id = d.job_id))
           + (select count(*)::int from title_company_members m where not exists (select 1 from users u where u.id = m.user_id)) as dangling`),
  );
  // node-postgres answers { rows }, PGlite through drizzle answers { rows } too
  type CountRow = { users: number; jobs: number; participants: number; documents: number; search: number; agent: string; dangling: number };
  const [row] = (result as unknown as { rows: CountRow[] }).rows;
  if (!row) throw new Error('seed: the count query returned no row');
  if (row.dangling !== 0) throw new Error(`seed: ${row.dangling} rows refer to missing rows (foreign keys were not checked during the seed)`);
  return {
    userId: row.agent,
    searchTerm,
    searchTotal: row.search,
    rows: { users: row.users, jobs: row.jobs, participants: row.participants, documents: row.documents },
  };
}
