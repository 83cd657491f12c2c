import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

/**
 * Tries to break GET /api/jobs from the outside: seeing a job one may not see, a list
 * that lies about its total, order or titles, and inputs that should answer 400 but do not.
 */
let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

interface ListItem {
  id: string;
  title: string;
  status: string;
  updatedAt: string;
  isInvitation: boolean;
}
interface ListBody {
  items: ListItem[];
  total: number;
  page: number;
  pageSize: number;
}

const get = async (user: TestUser, query: string) => kit.call(user, 'GET', `/api/jobs${query ? `?${query}` : ''}`);
const list = async (user: TestUser, query = '') => {
  const res = await get(user, query);
  expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
  return res.json() as ListBody;
};
/** Every page of a query, read with a given page size. */
const allPages = async (user: TestUser, query: string, pageSize: number) => {
  const first = await list(user, `${query}&pageSize=${pageSize}&page=1`);
  const items = [...first.items];
  const pages = Math.ceil(first.total / pageSize);
  for (let page = 2; page <= pages; page += 1) {
    const body = await list(user, `${query}&pageSize=${pageSize}&page=${page}`);
    expect(body.total, `total on page ${page}`).toBe(first.total);
    items.push(...body.items);
  }
  return { items, total: first.total };
};
const idsOf = (body: { items: ListItem[] }) => body.items.map((item) => item.id);
const titlesOf = (body: { items: ListItem[] }) => body.items.map((item) => item.title).sort();
const enc = encodeURIComponent;

async function newCompany(name: string): Promise<string> {
  const result = await t.db.execute(sql`insert into title_companies (name) values (${name}) returning id`);
  const row = (result as unknown as { rows: Array<{ id: string }> }).rows[0];
  if (!row) throw new Error('company insert returned nothing');
  return row.id;
}
const addMember = async (companyId: string, user: TestUser, role: 'title' | 'title_agent' = 'title') =>
  t.db.execute(sql`insert into title_company_members (company_id, user_id, role) values (${companyId}, ${user.id}, ${role})`);

/** The answer of a rejected request: 400 and only { error, message, detail? }. */
function expectBadRequest(res: { statusCode: number; body: string; json(): unknown }, label: string) {
  expect(res.statusCode, `${label}: ${res.body}`).toBe(400);
  const body = res.json() as Record<string, unknown>;
  expect(
    Object.keys(body).filter((key) => !['error', 'message', 'detail'].includes(key)),
    label,
  ).toEqual([]);
  expect(typeof body.error, label).toBe('string');
  expect(typeof body.message, label).toBe('string');
  expect(String(body.message).length, label).toBeGreaterThan(0);
}

describe('who sees what through any query', () => {
  let alice: TestUser; // title staff of company A
  let bob: TestUser; // title agent of company A, creates A's jobs
  let carol: TestUser; // title staff of company B
  let sid: TestUser; // a signer account that is also on company A's member list
  let companyA: string;
  const aJobs: Job[] = [];
  const bJobs: Job[] = [];

  beforeAll(async () => {
    companyA = await newCompany('Attack Title A');
    const companyB = await newCompany('Attack Title B');
    alice = await t.createUser({ roles: ['title'] });
    bob = await t.createUser({ roles: ['title_agent'] });
    carol = await t.createUser({ roles: ['title'] });
    sid = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    await addMember(companyA, alice);
    await addMember(companyA, bob, 'title_agent');
    await addMember(companyB, carol);
    await addMember(companyA, sid);
    for (const title of ['Deed 100% A', 'Deed_under A', 'Back\\slash A', 'O\'Brien "A"', 'Café Ünïcode A', 'Plain deed A']) {
      aJobs.push(await kit.createJob(bob, { title }));
    }
    for (const title of ['Deed 100% B', 'Plain deed B']) bJobs.push(await kit.createJob(carol, { title }));
  });

  /** Queries an attacker might try: every status, searches of every kind, extremes of paging, unknown and repeated parameters. */
  const probes = (victimIds: string[]) => [
    '',
    'status=draft',
    'status=ready',
    'status=completed',
    'status=cancelled',
    'q=deed',
    'q=A',
    `q=${enc('%')}`,
    `q=${enc('_')}`,
    `q=${enc('\\')}`,
    `q=${enc("'")}`,
    `q=${enc('"')}`,
    `q=${enc("' or 1=1 --")}`,
    `q=${enc("%' or '1'='1")}`,
    `q=${enc('); select * from jobs; --')}`,
    `q=${enc('Café')}`,
    `q=${enc('x'.repeat(200))}`,
    `q=${enc(' '.repeat(300))}`,
    'q=a&q=b',
    'q[]=a',
    'pageSize=100',
    'pageSize=1&page=100000',
    'page=1&pageSize=100&status=draft&q=deed',
    `userId=${victimIds[0]}`,
    `companyId=${companyA}`,
    'viaMask=31&via=31',
    'admin=true&roles=admin',
    'withStatusCounts=false',
    `id=${victimIds[0]}&jobId=${victimIds[0]}`,
  ];

  it('never shows another title company’s jobs to its staff, whatever the query', async () => {
    const victimIds = aJobs.map((job) => job.id);
    for (const query of probes(victimIds)) {
      const res = await get(carol, query);
      expect(res.statusCode, `${query}: ${res.body}`).toBeLessThan(500);
      if (res.statusCode !== 200) {
        expectBadRequest(res, query);
        continue;
      }
      const body = res.json() as ListBody;
      expect(
        idsOf(body).filter((id) => victimIds.includes(id)),
        query,
      ).toEqual([]);
      expect(body.total, query).toBeLessThanOrEqual(bJobs.length);
    }
  });

  it('never shows a company’s jobs to a member whose account has no title role', async () => {
    for (const query of probes(aJobs.map((job) => job.id))) {
      const res = await get(sid, query);
      expect(res.statusCode, `${query}: ${res.body}`).toBeLessThan(500);
      if (res.statusCode !== 200) {
        expectBadRequest(res, query);
        continue;
      }
      expect(res.json(), query).toMatchObject({ items: [], total: 0 });
    }
  });

  it('shows the company’s staff its jobs through either list path, the same rows in the same order', async () => {
    const queries = [
      '',
      'q=deed',
      `q=${enc('%')}`,
      `q=${enc('_')}`,
      `q=${enc('\\')}`,
      `q=${enc("'")}`,
      `q=${enc('"A"')}`,
      `q=${enc('Café')}`,
      'q=PLAIN',
      'status=draft',
      'pageSize=2&page=2',
    ];
    for (const query of queries) {
      const prepared = await list(alice, query);
      const drizzle = await list(alice, `${query}&withStatusCounts=true`);
      expect(idsOf(prepared), query).toEqual(idsOf(drizzle));
      expect(prepared.total, query).toBe(drizzle.total);
    }
    expect((await list(alice)).total).toBe(aJobs.length);
  });

  it('matches %, _, \\ and quotes as themselves in a title search', async () => {
    expect(titlesOf(await list(alice, `q=${enc('%')}`))).toEqual(['Deed 100% A']);
    expect(titlesOf(await list(alice, `q=${enc('_')}`))).toEqual(['Deed_under A']);
    expect(titlesOf(await list(alice, `q=${enc('\\')}`))).toEqual(['Back\\slash A']);
    expect(titlesOf(await list(alice, `q=${enc("'")}`))).toEqual(['O\'Brien "A"']);
    expect(titlesOf(await list(alice, `q=${enc('"A"')}`))).toEqual(['O\'Brien "A"']);
    expect(titlesOf(await list(alice, `q=${enc('é Ü')}`))).toEqual(['Café Ünïcode A']);
    expect(titlesOf(await list(alice, 'q=pLaIn'))).toEqual(['Plain deed A']);
    expect(titlesOf(await list(alice, `q=${enc('  plain  ')}`))).toEqual(['Plain deed A']);
    expect((await list(alice, `q=${enc('%%')}`)).total).toBe(0);
    expect((await list(alice, `q=${enc('D_ed')}`)).total).toBe(0);
  });

  it('hides the company’s jobs from a member once removed, by every query, and shows them again when re-added', async () => {
    const dave = await t.createUser({ roles: ['title'] });
    await addMember(companyA, dave);
    expect((await list(dave)).total).toBe(aJobs.length);
    await t.db.execute(sql`delete from title_company_members where company_id = ${companyA} and user_id = ${dave.id}`);
    for (const query of ['', 'q=deed', 'status=draft', `q=${enc('%')}`, 'pageSize=100']) {
      expect(await list(dave, query), query).toMatchObject({ items: [], total: 0 });
    }
    await addMember(companyA, dave, 'title_agent');
    expect((await list(dave, 'q=plain')).total).toBe(1);
  });
});

describe('participants, invitations and notaries', () => {
  let agent: TestUser;
  let notary: TestUser;
  let otherNotary: TestUser;
  beforeAll(async () => {
    agent = await t.createUser({ roles: ['title_agent'] });
    notary = await kit.createNotary();
    otherNotary = await kit.createNotary();
  });

  it('does not list an invitation to an address the account has not confirmed', async () => {
    const unconfirmed = await t.createUser({ roles: ['signer'], isEmailVerified: false });
    const job = await kit.createJob(agent, { title: 'Invite to an unconfirmed address', signers: [{ name: 'Una', email: unconfirmed.email }] });
    for (const query of ['', 'q=unconfirmed', 'status=draft']) expect(await list(unconfirmed, query), query).toMatchObject({ items: [], total: 0 });
    // Once the address is confirmed, the invitation shows, marked as one.
    await t.db.execute(sql`update users set email_verified_at = now() where id = ${unconfirmed.id}`);
    expect((await list(unconfirmed)).items.map((item) => [item.id, item.isInvitation])).toEqual([[job.id, true]]);
  });

  it('lists an invitation sent to the confirmed address written in other case', async () => {
    const person = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    const job = await kit.createJob(agent, { title: 'Invite in capitals', signers: [{ name: 'Cap', email: person.email.toUpperCase() }] });
    const body = await list(person);
    expect(body.items.map((item) => [item.id, item.isInvitation])).toEqual([[job.id, true]]);
    expect((await list(person, 'waitingFor=me')).items.map((item) => item.id)).toEqual([job.id]);
  });

  it('drops an invitation when its job is cancelled or completed', async () => {
    const person = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    const cancelled = await kit.createJob(agent, { title: 'To be cancelled', signers: [{ name: 'P', email: person.email }] });
    const completed = await kit.createJob(agent, { title: 'To be completed', signers: [{ name: 'P', email: person.email }] });
    expect((await list(person)).total).toBe(2);
    await kit.moveJob(agent, cancelled.id, ['cancelled']);
    // Sealing is not under test: the status is written as complete-job would leave it.
    await t.db.execute(sql`update jobs set status = 'completed', updated_at = now() where id = ${completed.id}`);
    for (const query of ['', 'status=cancelled', 'status=completed', 'q=to%20be', 'pageSize=100']) {
      expect(await list(person, query), query).toMatchObject({ items: [], total: 0 });
    }
  });

  it('drops a job once the person is removed from its participants, accepted or not', async () => {
    const accepted = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    const invited = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    const job = await kit.createJob(agent, {
      title: 'Participants come and go',
      signers: [
        { name: 'Acc', email: accepted.email },
        { name: 'Inv', email: invited.email },
      ],
    });
    expect((await kit.acceptInvitation(accepted)).statusCode).toBe(200);
    expect((await list(accepted)).items.map((item) => [item.id, item.isInvitation])).toEqual([[job.id, false]]);
    expect((await list(invited)).items.map((item) => [item.id, item.isInvitation])).toEqual([[job.id, true]]);
    for (const participant of (await kit.getJob(agent, job.id)).participants) {
      const res = await kit.call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${participant.id}`);
      expect(res.statusCode, res.body).toBe(200);
    }
    for (const person of [accepted, invited]) {
      for (const query of ['', 'q=participants', 'status=draft']) expect(await list(person, query), query).toMatchObject({ items: [], total: 0 });
      expect((await kit.call(person, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
    }
  });

  it('drops a job from the notary’s list once the notary is replaced', async () => {
    const job = await kit.createJob(agent, { title: 'Notary swap', notaryId: notary.id });
    expect(idsOf(await list(notary, 'q=swap'))).toEqual([job.id]);
    const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: otherNotary.id });
    expect(res.statusCode, res.body).toBe(200);
    for (const query of ['', 'q=swap', 'status=draft']) expect(await list(notary, query), query).toMatchObject({ items: [], total: 0 });
    expect(idsOf(await list(otherNotary, 'q=swap'))).toEqual([job.id]);
  });
});

describe('changes the list must follow', () => {
  it('moves a job between companies’ lists when its company changes, and keeps a member through a role change', async () => {
    const [first, second] = [await newCompany('Move from'), await newCompany('Move to')];
    const [staffOne, staffTwo] = [await t.createUser({ roles: ['title'] }), await t.createUser({ roles: ['title'] })];
    await addMember(first as string, staffOne);
    await addMember(second as string, staffTwo);
    const creator = await t.createUser({ roles: ['title_agent'] });
    await addMember(first as string, creator, 'title_agent');
    const job = await kit.createJob(creator, { title: 'Company mover' });
    expect(idsOf(await list(staffOne, 'q=mover'))).toEqual([job.id]);
    await t.db.execute(sql`update title_company_members set role = 'title_agent' where user_id = ${staffOne.id}`);
    expect(idsOf(await list(staffOne, 'q=mover'))).toEqual([job.id]);
    await t.db.execute(sql`update jobs set company_id = ${second as string} where id = ${job.id}`);
    expect(await list(staffOne, 'q=mover')).toMatchObject({ items: [], total: 0 });
    expect(await list(staffOne)).toMatchObject({ items: [], total: 0 });
    expect(idsOf(await list(staffTwo, 'q=mover'))).toEqual([job.id]);
    expect(idsOf(await list(staffTwo, 'q=mover&withStatusCounts=true'))).toEqual([job.id]);
  });

  it('moves an invitation with the account’s address: gone from the old holder, shown to the new confirmed one', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const address = uniqueEmail('moving');
    const holder = await t.createUser({ roles: ['signer'], email: address, isEmailVerified: true });
    const job = await kit.createJob(agent, { title: 'Address mover', signers: [{ name: 'Hold', email: address }] });
    expect(idsOf(await list(holder))).toEqual([job.id]);
    await t.db.execute(sql`update users set email = ${uniqueEmail('elsewhere')} where id = ${holder.id}`);
    expect(await list(holder, 'q=mover')).toMatchObject({ items: [], total: 0 });
    const newcomer = await t.createUser({ roles: ['signer'], isEmailVerified: true });
    // Signed in (by the address it had) before the address changes.
    expect(await list(newcomer)).toMatchObject({ items: [], total: 0 });
    await t.db.execute(sql`update users set email = ${address} where id = ${newcomer.id}`);
    expect((await list(newcomer)).items.map((item) => [item.id, item.isInvitation])).toEqual([[job.id, true]]);
  });
});

describe('a list that tells the truth', () => {
  let owner: TestUser;
  const jobIds: string[] = [];
  beforeAll(async () => {
    owner = await t.createUser({ roles: ['title_agent'] });
    for (let index = 0; index < 9; index += 1) jobIds.push((await kit.createJob(owner, { title: `Truth job ${index}` })).id);
    // Three pairs of ties on updated_at (at whole milliseconds), so the id decides among them.
    const base = Date.parse('2020-01-01T00:00:00.000Z');
    for (const [index, id] of jobIds.entries()) {
      const at = new Date(base - Math.floor(index / 2) * 1000).toISOString();
      await t.db.execute(sql`update jobs set updated_at = ${at} where id = ${id}`);
    }
  });

  const isInListOrder = (items: ListItem[]) =>
    items.every((item, index) => {
      const next = items[index + 1];
      if (!next) return true;
      return item.updatedAt > next.updatedAt || (item.updatedAt === next.updatedAt && item.id > next.id);
    });

  it('orders by updated_at then id, both descending, ties included', async () => {
    const body = await list(owner, 'pageSize=100');
    expect(body.total).toBe(jobIds.length);
    expect(isInListOrder(body.items)).toBe(true);
    expect(body.items.map((item) => item.id)).toEqual(
      body.items
        .map((item) => item.id)
        .sort((a, b) => {
          const first = body.items.find((item) => item.id === a) as ListItem;
          const second = body.items.find((item) => item.id === b) as ListItem;
          return first.updatedAt === second.updatedAt ? (a < b ? 1 : -1) : first.updatedAt < second.updatedAt ? 1 : -1;
        }),
    );
  });

  it('cuts pages with no duplicate, no gap and the same total on every page, for every page size', async () => {
    const whole = await list(owner, 'pageSize=100');
    for (const pageSize of [1, 2, 3, 4, 8, 9, 10]) {
      for (const query of ['', 'q=truth', 'status=draft']) {
        const paged = await allPages(owner, query, pageSize);
        expect(paged.total, `${query} by ${pageSize}`).toBe(whole.total);
        expect(
          paged.items.map((item) => item.id),
          `${query} by ${pageSize}`,
        ).toEqual(idsOf(whole));
      }
    }
  });

  it('answers a page past the end with no items and the right total', async () => {
    for (const query of ['page=10&pageSize=1', 'page=2&pageSize=9', 'page=100000&pageSize=100', 'page=4&pageSize=3&q=truth', 'page=2&status=draft']) {
      const body = await list(owner, query);
      expect(body.items, query).toEqual([]);
      expect(body.total, query).toBe(jobIds.length);
    }
    expect(await list(owner, 'page=2&pageSize=100&q=nothing-like-this')).toMatchObject({ items: [], total: 0 });
  });

  it('finds a renamed job by its new title only, and puts it first', async () => {
    const id = jobIds[jobIds.length - 1] as string;
    const job = await kit.getJob(owner, id);
    const res = await kit.call(owner, 'PATCH', `/api/jobs/${id}`, { title: 'Renamed lighthouse', version: job.version });
    expect(res.statusCode, res.body).toBe(200);
    expect(idsOf(await list(owner, 'q=lighthouse'))).toEqual([id]);
    expect(idsOf(await list(owner, 'q=lighthouse&withStatusCounts=true'))).toEqual([id]);
    expect((await list(owner, `q=${enc(`Truth job ${jobIds.length - 1}`)}`)).total).toBe(0);
    expect((await list(owner, 'q=truth')).total).toBe(jobIds.length - 1);
    const first = (await list(owner, 'pageSize=1')).items[0];
    expect(first).toMatchObject({ id, title: 'Renamed lighthouse' });
  });

  it('keeps the status filter and the total in step after a status change', async () => {
    const id = jobIds[0] as string;
    await kit.moveJob(owner, id, ['cancelled']);
    const cancelled = await list(owner, 'status=cancelled');
    expect(idsOf(cancelled)).toEqual([id]);
    expect(cancelled.total).toBe(1);
    const drafts = await list(owner, 'status=draft&pageSize=100');
    expect(idsOf(drafts)).not.toContain(id);
    expect(drafts.total).toBe(drafts.items.length);
    expect(drafts.total + cancelled.total).toBe((await list(owner)).total);
  });
});

describe('bad input', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await t.createUser({ roles: ['title_agent'] });
    await kit.createJob(user, { title: 'Only job' });
  });

  it('answers every invalid query with 400 and { error, message, detail? } only', async () => {
    const invalid = [
      'page=0',
      'page=-1',
      'page=1.5',
      'page=abc',
      'page=100001',
      'page=',
      'pageSize=0',
      'pageSize=101',
      'pageSize=-5',
      'pageSize=2.5',
      'pageSize=Infinity',
      'pageSize=NaN',
      'pageSize=1e309',
      'status=bogus',
      'status=DRAFT',
      'status=',
      'status=draft&status=ready',
      `q=${enc('x'.repeat(201))}`,
      `q=${enc('x'.repeat(5000))}`,
      'q=a&q=b',
      'notary=you',
      'waitingFor=them',
      'withStatusCounts=maybe',
      'scheduledFrom=yesterday',
      'scheduledTo=2030-13-45',
      'page=1&page=2',
    ];
    for (const query of invalid) expectBadRequest(await get(user, query), query);
  });

  it('never answers 500, whatever the search text', async () => {
    const odd = ['\uD800', '\uFFFF', '😀', '\u202E', '\tx\n', '%00', '%', '\\\\', '\\', "''", '$1', '$$', '${}', 'e\u0301', 'Ω'.repeat(200)];
    for (const text of odd) {
      const query = `q=${enc(text.replace(/\uD800/g, '\uFFFD'))}`;
      for (const extra of ['', '&withStatusCounts=true']) {
        const res = await get(user, `${query}${extra}`);
        expect(res.statusCode, `${JSON.stringify(text)}${extra}: ${res.body}`).toBeLessThan(500);
        if (res.statusCode === 200) expect((res.json() as ListBody).total, JSON.stringify(text)).toBe(0);
        else expectBadRequest(res, JSON.stringify(text));
      }
    }
    // A raw, badly encoded query string is no reason for a 500 either.
    for (const raw of ['q=%ED%A0%80', 'q=%', 'q=%zz', 'page=%00', 'status=%00']) {
      const res = await get(user, raw);
      expect(res.statusCode, `${raw}: ${res.body}`).toBeLessThan(500);
      if (res.statusCode !== 200) expectBadRequest(res, raw);
    }
  });

  it('answers a search text with a NUL byte (q=%00) 400 or 200, never 500', async () => {
    const queries = ['q=%00', 'q=a%00b', 'q=%00&status=draft', 'q=%00&notary=me'];
    const answers: Record<string, number> = {};
    for (const query of queries) answers[query] = (await get(user, query)).statusCode;
    // Every path of the list at once, so a failure names each one that answered 500.
    expect(Object.entries(answers).filter(([, status]) => status >= 500)).toEqual([]);
    // A search is one line of text (shared/text.ts searchTextSchema): refused before any statement runs.
    for (const query of queries) {
      const res = await get(user, query);
      expectBadRequest(res, query);
      expect(res.json(), query).toMatchObject({ message: 'Search with one line of text, without control characters or text-direction overrides.' });
    }
  });

  it('answers q=%00&withStatusCounts=true without a 500 and without leaving the status count rejected unawaited', async () => {
    // findJobs starts the count by status before the page; when the page's query fails, the count's
    // failure is never awaited and Node sees an unhandled rejection (fatal by default).
    const res = await get(user, 'q=%00&withStatusCounts=true');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(res.statusCode, res.body).toBeLessThan(500);
    if (res.statusCode !== 200) expectBadRequest(res, 'q=%00&withStatusCounts=true');
  });

  it('answers a signed-out caller 401, whatever the query', async () => {
    for (const query of ['', 'page=0', `q=${enc("' or 1=1 --")}`]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/jobs?${query}` });
      expect(res.statusCode, query).toBe(401);
      expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
  });
});
