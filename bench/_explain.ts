import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
const agent = process.argv[2] ?? 'b33aed8f-3134-4967-83dc-39f9a7c95783';
const extra = process.argv[3] ?? '';
const offset = process.argv[4] ?? '0';
const visible = `(select id from jobs where created_by = '${agent}'
    union select id from jobs where notary_id = '${agent}'
    union select j.id from jobs j join title_company_members m on m.company_id = j.company_id where m.user_id = '${agent}' and m.role in ('title', 'title_agent')
    union select job_id from job_participants where user_id = '${agent}')`;
const where = `jobs.id in ${visible} ${extra}`;
const list = `select jobs.*, users.name, title_companies.name,
  (select count(*)::int from job_participants p where p.job_id = jobs.id),
  (select count(*)::int from documents d where d.job_id = jobs.id)
  from jobs left join users on users.id = jobs.notary_id left join title_companies on title_companies.id = jobs.company_id
  where ${where} order by jobs.updated_at desc, jobs.id desc limit 20 offset ${offset}`;
const count = `select count(*)::int from jobs where ${where}`;
const q = async (s: string) => {
  if (process.env.DBURL) { const c = new pg.Client(process.env.DBURL); await c.connect(); const r = await c.query(s); await c.end(); return r.rows; }
  return (await db!.query(s)).rows;
};
const db = process.env.DBURL ? null : new PGlite({ dataDir: '/tmp/explore-pglite' });
for (const s of [list, count]) {
  for (let i = 0; i < 3; i++) await q(s);
  const t = performance.now(); for (let i = 0; i < 20; i++) await q(s); console.log('avg ms', ((performance.now() - t) / 20).toFixed(2));
  const rows = await q('explain (analyze, buffers) ' + s);
  console.log(rows.map((r: any) => r['QUERY PLAN']).join('\n'));
}
await db?.close();
