import { PGlite } from '@electric-sql/pglite';
const agent = 'b33aed8f-3134-4967-83dc-39f9a7c95783';
const visible = `(select id from jobs where created_by = '${agent}'
    union select id from jobs where notary_id = '${agent}'
    union select j.id from jobs j join title_company_members m on m.company_id = j.company_id where m.user_id = '${agent}' and m.role in ('title', 'title_agent')
    union select job_id from job_participants where user_id = '${agent}')`;
const cols = `jobs.*, users.name, title_companies.name,
  (select count(*)::int from job_participants p where p.job_id = jobs.id),
  (select count(*)::int from documents d where d.job_id = jobs.id)`;
const joins = `left join users on users.id = jobs.notary_id left join title_companies on title_companies.id = jobs.company_id`;
const s = process.argv[2] === 'page' ? `select ${cols.replace(/jobs\./g, 'page.').replace('page.*', 'page.*')} from (select * from jobs where jobs.id in ${visible} order by updated_at desc, id desc limit 20 offset 980) page left join users on users.id = page.notary_id left join title_companies on title_companies.id = page.company_id order by page.updated_at desc, page.id desc`
  : `select ${cols} from jobs ${joins} where jobs.id in ${visible} order by jobs.updated_at desc, jobs.id desc limit 20 offset 980`;
const db = new PGlite({ dataDir: '/tmp/explore-pglite' });
await db.query(`set random_page_cost = ${process.argv[3] ?? '1.1'}`);
for (let i = 0; i < 5; i++) await db.query(s);
const t = performance.now(); for (let i = 0; i < 30; i++) await db.query(s); console.log('avg', ((performance.now() - t) / 30).toFixed(2));
console.log((await db.query<Record<string, string>>('explain (analyze) ' + s)).rows.map((r) => r['QUERY PLAN']).join('\n'));
await db.close();
