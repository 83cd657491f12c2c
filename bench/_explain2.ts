import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
const agent = 'b33aed8f-3134-4967-83dc-39f9a7c95783';
const visible = `(select id from jobs where created_by = '${agent}'
    union select id from jobs where notary_id = '${agent}'
    union select j.id from jobs j join title_company_members m on m.company_id = j.company_id where m.user_id = '${agent}' and m.role in ('title', 'title_agent')
    union select job_id from job_participants where user_id = '${agent}')`;
const cols = `jobs.*, users.name, title_companies.name,
  (select count(*)::int from job_participants p where p.job_id = jobs.id),
  (select count(*)::int from documents d where d.job_id = jobs.id)`;
const joins = `left join users on users.id = jobs.notary_id left join title_companies on title_companies.id = jobs.company_id`;
const variants: Record<string, string> = {
  listIn: `select ${cols} from jobs ${joins} where jobs.id in ${visible} order by jobs.updated_at desc, jobs.id desc limit 20 offset 980`,
  countIn: `select count(*)::int from jobs where jobs.id in ${visible}`,
  listJoin: `select ${cols} from ${visible} v join jobs on jobs.id = v.id ${joins} order by jobs.updated_at desc, jobs.id desc limit 20 offset 980`,
  countJoin: `select count(*)::int from ${visible} v join jobs on jobs.id = v.id`,
  countUnion: `select count(*)::int from ${visible} v`,
  listInSearch: `select ${cols} from jobs ${joins} where jobs.id in ${visible} and jobs.title ilike '%nguyen%' order by jobs.updated_at desc, jobs.id desc limit 20 offset 0`,
  countInSearch: `select count(*)::int from jobs where jobs.id in ${visible} and jobs.title ilike '%nguyen%'`,
};
const db = process.env.DBURL ? null : new PGlite({ dataDir: '/tmp/explore-pglite' });
const pgc = process.env.DBURL ? new pg.Client(process.env.DBURL) : null;
await pgc?.connect();
const q = async (s: string) => (pgc ? (await pgc.query(s)).rows : (await db!.query(s)).rows) as Record<string, unknown>[];
for (const setting of ['4', '1.1']) {
  await q(`set random_page_cost = ${setting}`);
  for (const [name, s] of Object.entries(variants)) {
    for (let i = 0; i < 3; i++) await q(s);
    const t = performance.now(); for (let i = 0; i < 20; i++) await q(s);
    const ms = (performance.now() - t) / 20;
    const plan = (await q('explain ' + s)).map((r) => String(r['QUERY PLAN'])).filter((l) => /Seq Scan on jobs|Index Scan using jobs_pkey|Hash Join|Nested Loop  /.test(l)).map((l) => l.trim().replace(/\(cost.*$/, '')).join(' | ');
    console.log(`rpc=${setting} ${name.padEnd(14)} ${ms.toFixed(2).padStart(7)} ms  ${plan}`);
  }
}
await db?.close(); await pgc?.end();
