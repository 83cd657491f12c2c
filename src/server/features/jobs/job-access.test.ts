import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

/**
 * job_access (migration 0016, decision 029) is what the jobs list reads: one row per person and job
 * they may see, kept by triggers. These tests change every source row the rules read (jobs,
 * participants, company members, an account's address and its confirmation) straight in the
 * database, as any code path would, and compare the table with the rules recomputed from scratch.
 */
describe('job_access, the jobs list read model', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = async <T>(query: ReturnType<typeof sql>) => ((await t.db.execute(query)) as unknown as { rows: T[] }).rows;

  /** What job_access holds and what the rules say it should hold, side by side (sorted, comparable). */
  async function actualAndExpected() {
    const actual = await rows<{ key: string }>(sql`
      select a.user_id || ' ' || a.job_id || ' ' || a.via || ' ' || a.status || ' ' || (a.updated_at = j.updated_at) || ' ' || (a.title = j.title) as key
      from job_access a join jobs j on j.id = a.job_id order by 1`);
    const expected = await rows<{ key: string }>(sql`
      select r.user_id || ' ' || r.job_id || ' ' || bit_or(r.via) || ' ' || j.status || ' ' || true || ' ' || true as key
      from job_access_rules r join jobs j on j.id = r.job_id group by r.user_id, r.job_id, j.status order by 1`);
    return { actual: actual.map((row) => row.key), expected: expected.map((row) => row.key) };
  }

  async function expectInSync() {
    const { actual, expected } = await actualAndExpected();
    expect(actual).toEqual(expected);
    return actual.length;
  }

  const viaOf = async (userId: string, jobId: string) =>
    (await rows<{ via: number }>(sql`select via from job_access where user_id = ${userId} and job_id = ${jobId}`))[0]?.via ?? 0;

  async function newJob(fields: { createdBy?: string | null; notaryId?: string | null; companyId?: string | null; status?: string } = {}) {
    const [row] = await rows<{ id: string }>(sql`
      insert into jobs (title, notarization_type, status, created_by, notary_id, company_id)
      values ('Access test', 'acknowledgment', ${fields.status ?? 'draft'}, ${fields.createdBy ?? null}, ${fields.notaryId ?? null}, ${fields.companyId ?? null})
      returning id`);
    if (!row) throw new Error('job insert returned nothing');
    return row.id;
  }

  async function newCompany() {
    const [row] = await rows<{ id: string }>(sql`insert into title_companies (name) values ('Access Title Co') returning id`);
    if (!row) throw new Error('company insert returned nothing');
    return row.id;
  }

  it('follows each kind of change: creator, notary, company staff, participant, invitation by confirmed address', async () => {
    const creator = await t.createUser({ roles: ['title_agent'] });
    const notary = await t.createUser({ roles: ['notary'] });
    const otherNotary = await t.createUser({ roles: ['notary'] });
    const colleague = await t.createUser({ roles: ['title'] });
    const signer = await t.createUser({ roles: ['signer'] });
    const invitee = await t.createUser({ roles: ['signer'] });
    const company = await newCompany();
    const otherCompany = await newCompany();
    const job = await newJob({ createdBy: creator.id, notaryId: notary.id, companyId: company });
    // A company job is its creator's only while they are a member of the company (decision 043); a job without one is theirs.
    expect(await viaOf(creator.id, job)).toBe(0);
    expect(await viaOf(creator.id, await newJob({ createdBy: creator.id }))).toBe(1);
    expect(await viaOf(notary.id, job)).toBe(2);

    await t.db.execute(
      sql`insert into title_company_members (company_id, user_id, role) values (${company}, ${colleague.id}, 'title'), (${company}, ${creator.id}, 'title_agent')`,
    );
    expect(await viaOf(colleague.id, job)).toBe(4);
    expect(await viaOf(creator.id, job)).toBe(1 | 4);

    await t.db.execute(sql`update jobs set notary_id = ${otherNotary.id} where id = ${job}`);
    expect(await viaOf(notary.id, job)).toBe(0);
    expect(await viaOf(otherNotary.id, job)).toBe(2);

    await t.db.execute(sql`update jobs set company_id = ${otherCompany} where id = ${job}`);
    expect(await viaOf(colleague.id, job)).toBe(0);
    expect(await viaOf(creator.id, job)).toBe(0);
    await t.db.execute(sql`update jobs set company_id = ${company} where id = ${job}`);
    expect(await viaOf(creator.id, job)).toBe(1 | 4);

    // The creator who leaves the company loses its job with the rest; coming back brings it back.
    await t.db.execute(sql`delete from title_company_members where company_id = ${company} and user_id = ${creator.id}`);
    expect(await viaOf(creator.id, job)).toBe(0);
    await t.db.execute(sql`insert into title_company_members (company_id, user_id, role) values (${company}, ${creator.id}, 'title_agent')`);
    expect(await viaOf(creator.id, job)).toBe(1 | 4);
    await expectInSync();

    await t.db.execute(sql`delete from title_company_members where company_id = ${company} and user_id = ${colleague.id}`);
    expect(await viaOf(colleague.id, job)).toBe(0);

    await t.db.execute(
      sql`insert into job_participants (job_id, user_id, name, email, role) values (${job}, ${signer.id}, 'Sam Signer', ${signer.email}, 'signer')`,
    );
    expect(await viaOf(signer.id, job)).toBe(8);

    // An invitation by address counts only once the account has confirmed that address, and only while the job is open
    await t.db.execute(sql`insert into job_participants (job_id, name, email, role) values (${job}, 'Ivy Invitee', ${invitee.email}, 'signer')`);
    expect(await viaOf(invitee.id, job)).toBe(0);
    await t.db.execute(sql`update users set email_verified_at = now() where id = ${invitee.id}`);
    expect(await viaOf(invitee.id, job)).toBe(16);
    await t.db.execute(sql`update jobs set status = 'cancelled' where id = ${job}`);
    expect(await viaOf(invitee.id, job)).toBe(0);
    await t.db.execute(sql`update jobs set status = 'ready' where id = ${job}`);
    expect(await viaOf(invitee.id, job)).toBe(16);
    await t.db.execute(sql`update users set email = ${`moved-${invitee.email}`} where id = ${invitee.id}`);
    expect(await viaOf(invitee.id, job)).toBe(0);
    await t.db.execute(sql`update users set email = ${invitee.email} where id = ${invitee.id}`);
    expect(await viaOf(invitee.id, job)).toBe(16);
    // Accepting links the participant: the invitation becomes participation
    await t.db.execute(sql`update job_participants set user_id = ${invitee.id} where job_id = ${job} and email = ${invitee.email}`);
    expect(await viaOf(invitee.id, job)).toBe(8);
    await t.db.execute(sql`delete from job_participants where job_id = ${job} and user_id = ${signer.id}`);
    expect(await viaOf(signer.id, job)).toBe(0);

    // The list's order and counts read copies of updated_at and status
    await t.db.execute(
      sql`update jobs set updated_at = now() + interval '1 hour', status = 'scheduled', scheduled_at = now() + interval '1 day' where id = ${job}`,
    );
    await expectInSync();
    // ... and the search a copy of the title, which changes alone too
    await t.db.execute(sql`update jobs set title = 'Renamed closing' where id = ${job}`);
    expect(await rows(sql`select distinct title from job_access where job_id = ${job}`)).toEqual([{ title: 'Renamed closing' }]);
    await expectInSync();

    await t.db.execute(sql`delete from users where id = ${otherNotary.id}`);
    expect(await viaOf(otherNotary.id, job)).toBe(0);
    await t.db.execute(sql`delete from jobs where id = ${job}`);
    expect(await rows(sql`select 1 from job_access where job_id = ${job}`)).toEqual([]);
    await expectInSync();
  });

  it('stays equal to the rules through a long random sequence of changes to every source table', async () => {
    let seed = 20261126;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const people = await Promise.all(Array.from({ length: 8 }, (_, index) => t.createUser({ roles: [index % 2 ? 'title_agent' : 'signer'] })));
    const companies = [await newCompany(), await newCompany()];
    const jobIds: string[] = [];
    const statuses = ['draft', 'ready', 'scheduled', 'in_session', 'completed', 'cancelled'];
    const pick = <T>(values: T[]) => values[random(values.length)] as T;
    const maybe = <T>(values: T[]) => (random(3) === 0 ? null : pick(values));
    for (let step = 0; step < 240; step += 1) {
      const person = pick(people);
      switch (random(10)) {
        case 0:
        case 9:
          jobIds.push(await newJob({ createdBy: maybe(people)?.id, notaryId: maybe(people)?.id, companyId: maybe(companies), status: pick(statuses) }));
          break;
        case 1:
          if (jobIds.length)
            await t.db.execute(
              sql`update jobs set notary_id = ${maybe(people)?.id ?? null}, updated_at = now() + ${`${step} seconds`}::interval where id = ${pick(jobIds)}`,
            );
          break;
        case 2:
          if (jobIds.length) await t.db.execute(sql`update jobs set company_id = ${maybe(companies)}, status = ${pick(statuses)} where id = ${pick(jobIds)}`);
          if (jobIds.length && random(2) === 0) await t.db.execute(sql`update jobs set title = ${`Title ${step}`} where id = ${pick(jobIds)}`);
          break;
        case 3:
          await t.db.execute(
            sql`insert into title_company_members (company_id, user_id, role) values (${pick(companies)}, ${person.id}, ${pick(['title', 'title_agent'])}) on conflict do nothing`,
          );
          break;
        case 4:
          await t.db.execute(sql`delete from title_company_members where user_id = ${person.id} and company_id = ${pick(companies)}`);
          break;
        case 5:
          if (jobIds.length) {
            await t.db.execute(sql`insert into job_participants (job_id, user_id, name, email, role)
              values (${pick(jobIds)}, ${random(2) ? person.id : null}, 'P', ${person.email}, 'signer') on conflict do nothing`);
          }
          break;
        case 6:
          await t.db.execute(
            sql`update job_participants set user_id = case when user_id is null then ${person.id}::uuid end where email = ${person.email} and job_id = ${pick(jobIds) ?? null}`,
          );
          break;
        case 7:
          await t.db.execute(sql`update users set email_verified_at = case when email_verified_at is null then now() end where id = ${person.id}`);
          break;
        case 8:
          if (jobIds.length && random(3) === 0)
            await t.db.execute(sql`delete from job_participants where job_id = ${pick(jobIds)} and email = ${person.email}`);
          else if (jobIds.length && random(4) === 0) await t.db.execute(sql`delete from jobs where id = ${jobIds.splice(random(jobIds.length), 1)[0] ?? null}`);
      }
      if (step % 40 === 39) await expectInSync();
    }
    expect(await expectInSync()).toBeGreaterThan(10);
  });

  it('is rebuilt whole from the rules by job_access_rebuild(), as after a bulk load with triggers off', async () => {
    await t.db.execute(sql`delete from job_access`);
    const { expected } = await actualAndExpected();
    expect(expected.length).toBeGreaterThan(0);
    await t.db.execute(sql`select job_access_rebuild()`);
    expect(await expectInSync()).toBe(expected.length);
  });
});
