import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { roles, type Role } from '#shared/roles.ts';
import { auditEvents, invoices, jobCharges, jobs, titleCompanies, users } from '#server/db/schema/index.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { gatherJobCharges } from './invoices.service.ts';

/**
 * What outsiders and careless insiders try against the invoices (decision 049): every role on every
 * route, other companies' and closed companies' invoices, drafts by id, bad and huge input, races
 * between issue, void, pay, generate and a completing job, numbers, totals, and files a spreadsheet
 * or a PDF reader would choke on. Every refusal is a sentence in the one shape, never a 500.
 */

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
const people = {} as Record<Role, TestUser>;
let acme: TestCompany;
let bayside: TestCompany;
const isPostgres = Boolean(process.env.TEST_DATABASE_URL);

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  for (const role of roles) people[role] = await t.createUser({ roles: [role], name: `${role} attacker` });
  acme = await kit.createCompany({ name: 'Acme Title' });
  bayside = await kit.createCompany({ name: 'Bayside Escrow' });
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.db.delete(jobCharges);
  await t.db.delete(invoices);
});

interface Line {
  key: string;
  label?: string;
  feeKind: 'notarial' | 'platform';
  quantity: number;
  unitAmountCents: number;
}
const seal: Line = { key: 'first_seal', feeKind: 'notarial', quantity: 2, unitAmountCents: 2500 };
const platform: Line = { key: 'platform', feeKind: 'platform', quantity: 1, unitAmountCents: 1000 };

async function chargedJob(companyId: string | null, chargedAt: Date, lines: Line[] = [seal, platform], title = 'Refinance closing') {
  const [job] = await t.db.insert(jobs).values({ title, notarizationType: 'ron', status: 'completed', companyId }).returning();
  await t.db.insert(jobCharges).values(
    lines.map((line, position) => ({
      jobId: job!.id,
      companyId,
      key: line.key,
      label: line.label ?? (line.key === 'first_seal' ? 'Notarial act' : 'Platform fee'),
      unit: line.key === 'first_seal' ? ('act' as const) : ('job' as const),
      feeKind: line.feeKind,
      quantity: line.quantity,
      unitAmountCents: line.unitAmountCents,
      amountCents: line.quantity * line.unitAmountCents,
      priceSource: 'default' as const,
      position,
      createdAt: chargedAt,
    })),
  );
  return job!.id;
}

const november = (day: number) => new Date(Date.UTC(2026, 10, day, 15));
const thisMonth = () => {
  const now = new Date();
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
};
const generate = (user: TestUser, period = '2026-11') => kit.call(user, 'POST', '/api/billing/invoices/generate', { period });
const draftOf = async (companyId: string) =>
  (
    await t.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.companyId, companyId), eq(invoices.status, 'draft')))
  )[0];
const issue = (id: string, user = people.billing) => kit.call(user, 'POST', `/api/billing/invoices/${id}/issue`);
const pay = (id: string, user = people.finance, body: unknown = {}) => kit.call(user, 'POST', `/api/billing/invoices/${id}/pay`, body);
const voidIt = (id: string, user = people.finance, reason: unknown = 'Billed twice') => kit.call(user, 'POST', `/api/billing/invoices/${id}/void`, { reason });

type Method = 'GET' | 'POST';
type Res = Awaited<ReturnType<typeof kit.call>>;

/** A body sent as written, with its own content type. */
async function raw(user: TestUser | null, method: Method, url: string, body?: string | Buffer, contentType = 'application/json') {
  const headers = { ...(user ? await t.headersFor(user) : {}), ...(body === undefined ? {} : { 'content-type': contentType }) };
  return t.app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body }) });
}

/** A refusal in the one shape: { error, message } (or error + detail) with the status, never a 500. */
function expectRefusal(res: Res, status: number | number[], label = '') {
  const statuses = [status].flat();
  expect(statuses, `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
  const body = res.json();
  expect(typeof body.error, `${label} error`).toBe('string');
  expect(typeof body.message === 'string' || body.detail !== undefined, `${label} message`).toBe(true);
}

/** Every invoice that is not void has totals that are the sums of the lines on it; every charge of a company is on at most one invoice. */
async function expectTotalsAreSums() {
  for (const invoice of await t.db.select().from(invoices)) {
    const lines = await t.db.select().from(jobCharges).where(eq(jobCharges.invoiceId, invoice.id));
    if (invoice.status === 'void') {
      expect(lines, 'a void invoice keeps no charge').toEqual([]);
      continue;
    }
    const sum = (kind: string) => lines.filter((line) => line.feeKind === kind).reduce((total, line) => total + line.amountCents, 0);
    expect(invoice.notarialFeeCents, invoice.id).toBe(sum('notarial'));
    expect(invoice.platformFeeCents, invoice.id).toBe(sum('platform'));
    expect(invoice.totalCents, invoice.id).toBe(sum('notarial') + sum('platform'));
    expect(invoice.jobCount, invoice.id).toBe(new Set(lines.map((line) => line.jobId)).size);
  }
  const drafts = await t.db.select().from(invoices).where(eq(invoices.status, 'draft'));
  const keys = drafts.map((draft) => `${draft.companyId} ${draft.periodStart}`);
  expect(new Set(keys).size, 'one draft per company and month').toBe(keys.length);
}

/** Acme's charges of November on a draft; returns its id. */
async function acmeDraft(lines: Line[] = [seal, platform], title?: string) {
  await chargedJob(acme.id, november(5), lines, title);
  await kit.expectStatus(generate(people.billing), 200);
  return (await draftOf(acme.id))!.id;
}

/** Acme's November invoice, issued. */
async function acmeIssued() {
  const id = await acmeDraft();
  await kit.expectStatus(issue(id), 200);
  return id;
}

function pdfText(pdf: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoice-attack-'));
  try {
    fs.writeFileSync(path.join(dir, 'invoice.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', path.join(dir, 'invoice.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** RFC 4180 rows, quoted fields with commas, quotes and line breaks read back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ',') {
      row.push(field);
      field = '';
    } else if (character === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index += 1;
    } else field += character;
  }
  return rows;
}

describe('who may call', () => {
  it('refuses observers, witnesses, signers and notaries on every route with 403, agents of a company that does not let them with 403 or 404, anonymous and forged sessions with 401, before any body is read', async () => {
    const id = await acmeIssued();
    const routes: Array<[Method, string, string | undefined]> = [
      ['GET', '/api/billing/invoices', undefined],
      ['POST', '/api/billing/invoices/generate', '{"period": '],
      ['GET', `/api/billing/invoices/${id}`, undefined],
      ['GET', `/api/billing/invoices/${id}/pdf`, undefined],
      ['GET', `/api/billing/invoices/${id}/csv`, undefined],
      ['POST', `/api/billing/invoices/${id}/issue`, '{'],
      ['POST', `/api/billing/invoices/${id}/pay`, JSON.stringify({ reference: 'x'.repeat(2 * 1024 * 1024) })],
      ['POST', `/api/billing/invoices/${id}/void`, '{"reason": '],
      ['GET', `/api/billing/companies/${acme.id}/invoices`, undefined],
      ['GET', '/api/billing/company', undefined],
    ];
    const before = await t.db.select().from(invoices);
    for (const person of [people.observer, people.witness, people.signer, people.notary]) {
      for (const [method, url, body] of routes) expectRefusal(await raw(person, method, url, body), 403, `${person.name} ${method} ${url}`);
    }
    // Agents pass the role gate of what a company's own people read (decision 049: their company may let them),
    // and, their company not letting them, are answered as if nothing were there; they change nothing.
    for (const person of [acme.agent, people.title_agent]) {
      for (const [method, url, body] of routes) {
        const res = await raw(person, method, url, body);
        if (url === '/api/billing/company') expect(res.json(), `${person.name} ${url}`).toEqual({ companies: [] });
        else if (method === 'GET' && url !== '/api/billing/invoices') expectRefusal(res, 404, `${person.name} ${method} ${url}`);
        else expectRefusal(res, 403, `${person.name} ${method} ${url}`);
      }
    }
    for (const [method, url, body] of routes) {
      expectRefusal(await raw(null, method, url, body), 401, `anonymous ${method} ${url}`);
      const forged = await t.app.inject({ method, url, headers: { authorization: `Bearer ${randomUUID()}` } });
      expectRefusal(forged, 401, `forged ${method} ${url}`);
    }
    // Title staff read their own, and change nothing.
    for (const [method, url, body] of routes.filter(([method, url]) => method === 'POST' || url === '/api/billing/invoices')) {
      expectRefusal(await raw(acme.staff, method, url, body), 403, `title staff ${method} ${url}`);
    }
    // Billing issues but never pays nor voids.
    expectRefusal(await pay(id, people.billing), 403, 'billing pays');
    expectRefusal(await voidIt(id, people.billing), 403, 'billing voids');
    expect(await t.db.select().from(invoices)).toEqual(before);
  });

  it('answers another company’s title staff 404 for every invoice of Acme, issued, paid, void or draft, exactly as for an invoice that does not exist', async () => {
    const voided = await acmeIssued();
    await kit.expectStatus(voidIt(voided), 200);
    const draft = (await draftOf(acme.id))!.id;
    await chargedJob(acme.id, new Date(Date.UTC(2026, 9, 3)));
    await kit.expectStatus(generate(people.billing, '2026-10'), 200);
    const october = (await t.db.select().from(invoices).where(eq(invoices.periodStart, '2026-10-01')))[0]!.id;
    await kit.expectStatus(issue(october), 200);
    await kit.expectStatus(pay(october), 200);
    await chargedJob(acme.id, new Date(Date.UTC(2026, 8, 3)));
    await kit.expectStatus(generate(people.billing, '2026-09'), 200);
    const september = (await t.db.select().from(invoices).where(eq(invoices.periodStart, '2026-09-01')))[0]!.id;
    await kit.expectStatus(issue(september), 200);
    const missing = randomUUID();
    const answerFor = async (id: string) => {
      const res = await kit.call(bayside.staff, 'GET', `/api/billing/invoices/${id}`);
      expectRefusal(res, 404, id);
      return res.json();
    };
    const nothing = await answerFor(missing);
    for (const id of [voided, draft, october, september]) {
      expect(await answerFor(id)).toEqual(nothing);
      for (const file of ['pdf', 'csv']) expectRefusal(await kit.call(bayside.staff, 'GET', `/api/billing/invoices/${id}/${file}`), 404, `${id} ${file}`);
    }
    expectRefusal(await kit.call(bayside.staff, 'GET', `/api/billing/companies/${acme.id}/invoices`), 404, 'Acme’s list');
    expect((await kit.call(bayside.staff, 'GET', `/api/billing/companies/${acme.id}/invoices`)).json().message).toBe(
      (await kit.call(bayside.staff, 'GET', `/api/billing/companies/${missing}/invoices`)).json().message,
    );
    // Acme's own staff: never the draft, by id, file or list.
    for (const url of [`/api/billing/invoices/${draft}`, `/api/billing/invoices/${draft}/pdf`, `/api/billing/invoices/${draft}/csv`]) {
      expectRefusal(await kit.call(acme.staff, 'GET', url), 404, url);
    }
    const own = (await kit.call(acme.staff, 'GET', `/api/billing/companies/${acme.id}/invoices`)).json();
    expect(own.items.map((item: { status: string }) => item.status).sort()).toEqual(['issued', 'paid', 'void']);
    expect(own.items.some((item: { id: string }) => item.id === draft)).toBe(false);
  });

  it('lets a person who is title staff elsewhere but only an agent of Acme see none of Acme’s invoices', async () => {
    const id = await acmeIssued();
    const both = await t.createUser({ roles: ['title', 'title_agent'], name: 'Two hats' });
    await kit.addMember(bayside.id, both, 'title');
    await kit.addMember(acme.id, both, 'title_agent');
    expectRefusal(await kit.call(both, 'GET', `/api/billing/invoices/${id}`), 404, 'agent of Acme');
    expectRefusal(await kit.call(both, 'GET', `/api/billing/companies/${acme.id}/invoices`), 404, 'agent of Acme, list');
    expect((await kit.call(both, 'GET', '/api/billing/company')).json()).toEqual({ companies: [{ id: bayside.id, name: 'Bayside Escrow' }] });
  });

  it('shuts a closed company’s former staff out of its invoices, and issues nothing more to it', async () => {
    const closing = await kit.createCompany({ name: 'Closing Soon Title' });
    await chargedJob(closing.id, november(3));
    await chargedJob(closing.id, november(4), [platform]);
    await kit.expectStatus(generate(people.billing), 200);
    const first = (await draftOf(closing.id))!.id;
    await kit.expectStatus(issue(first), 200);
    await kit.expectStatus(kit.call(people.admin, 'DELETE', `/api/title-companies/${closing.id}`), 200);
    for (const url of [`/api/billing/invoices/${first}`, `/api/billing/invoices/${first}/pdf`, `/api/billing/companies/${closing.id}/invoices`]) {
      expectRefusal(await kit.call(closing.staff, 'GET', url), [403, 404], url);
    }
    const own = await kit.call(closing.staff, 'GET', '/api/billing/company');
    if (own.statusCode === 200) expect(own.json()).toEqual({ companies: [] });
    else expectRefusal(own, 403, 'own companies');
    // Voiding sends its charges back on a draft that can never be issued: refused with a sentence.
    await kit.expectStatus(voidIt(first), 200);
    const again = (await draftOf(closing.id))!.id;
    const refused = await issue(again);
    expectRefusal(refused, 409, 'issue to a closed company');
    expect(refused.json().message).toBe('Closing Soon Title is closed; its invoices can no longer be issued.');
    expect((await kit.call(people.billing, 'GET', `/api/billing/invoices/${again}`)).json().canIssue).toBe(false);
    await expectTotalsAreSums();
  });

  it('refuses a billing or finance account disabled after it signed in', async () => {
    const id = await acmeIssued();
    const finance = await t.createUser({ roles: ['finance'], name: 'Soon disabled' });
    const headers = await t.signInAs(finance);
    expect((await t.app.inject({ method: 'GET', url: '/api/billing/invoices', headers })).statusCode).toBe(200);
    await kit.expectStatus(kit.call(people.admin, 'PUT', `/api/admin/users/${finance.id}`, { status: 'disabled' }), 200);
    expect((await t.db.select().from(users).where(eq(users.id, finance.id)))[0]?.status).toBe('disabled');
    for (const [method, url, payload] of [
      ['GET', '/api/billing/invoices', undefined],
      ['GET', `/api/billing/invoices/${id}/csv`, undefined],
      ['POST', `/api/billing/invoices/${id}/pay`, { reference: 'late' }],
      ['POST', `/api/billing/invoices/${id}/void`, { reason: 'Disabled hands' }],
    ] as const) {
      const res = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      expectRefusal(res, [401, 403], `disabled ${method} ${url}`);
    }
    expect((await t.db.select().from(invoices).where(eq(invoices.id, id)))[0]?.status).toBe('issued');
  });
});

describe('bad and huge input', () => {
  it('refuses every period that is not a month from 2000 to 2999, and every body that is not {period}, with 400 or 413 in the one shape', async () => {
    const periods: unknown[] = [
      '0000-00',
      '2026-00',
      '3000-01',
      '1999-12',
      '2026-11-01',
      ' 2026-11',
      '2026-11\n',
      '２０２６-１１',
      '2026\u200b-11',
      '2026-11\u0000',
      '2026-1\u0661',
      "2026-11' or '1'='1",
      202611,
      null,
      [],
      ['2026-11'],
      {},
      { $gt: '' },
      'x'.repeat(100_000),
    ];
    for (const period of periods) {
      const res = await kit.call(people.billing, 'POST', '/api/billing/invoices/generate', { period });
      expectRefusal(res, 400, JSON.stringify(period).slice(0, 40));
    }
    for (const [body, type] of [
      ['', 'application/json'],
      ['null', 'application/json'],
      ['[]', 'application/json'],
      ['"2026-11"', 'application/json'],
      ['{"period":"2026-11"', 'application/json'],
      ['period=2026-11', 'application/x-www-form-urlencoded'],
      ['{"period":"2026-11"}', 'text/plain'],
    ] as const) {
      expectRefusal(await raw(people.billing, 'POST', '/api/billing/invoices/generate', body, type), [400, 415], `${type} ${body}`);
    }
    expectRefusal(
      await raw(people.billing, 'POST', '/api/billing/invoices/generate', JSON.stringify({ period: '2026-11', padding: 'x'.repeat(1024 * 1024) })),
      413,
      '1 MB',
    );
    expect(await t.db.select().from(invoices)).toEqual([]);
    // The far ends of the range are months like any other.
    for (const period of ['2000-01', '2999-12']) expect((await generate(people.billing, period)).json()).toMatchObject({ ok: true, charges: 0 });
  });

  it('refuses odd pages, statuses and searches with 400, and treats SQL wildcards and unicode in q as text', async () => {
    await chargedJob(acme.id, november(1));
    const odd = await kit.createCompany({ name: '100%_off \\ Title' });
    await chargedJob(odd.id, november(2));
    const rtl = await kit.createCompany({ name: 'שלום Title 🏠' });
    await chargedJob(rtl.id, november(2));
    await generate(people.billing);
    for (const query of [
      'page=1e9',
      'page=-1',
      'page=0',
      'page=1.5',
      'page=NaN',
      'page=Infinity',
      'page=',
      'page=1&page=2',
      'status=DRAFT',
      'status=draft&status=paid',
      'q=%E2%80%AEevil',
      'q=a%0Ab',
      `q=${'%25'.repeat(201)}`,
    ]) {
      const res = await kit.call(people.billing, 'GET', `/api/billing/invoices?${query}`);
      expectRefusal(res, 400, query);
    }
    for (const [q, expected] of [
      ['%', ['100%_off \\ Title']],
      ['_', ['100%_off \\ Title']],
      ['\\', ['100%_off \\ Title']],
      ['%_', ['100%_off \\ Title']],
      ["' or 1=1 --", []],
      ['שלום', ['שלום Title 🏠']],
      ['🏠', ['שלום Title 🏠']],
      ['ACME', ['Acme Title']],
    ] as const) {
      const res = await kit.expectStatus(kit.call(people.billing, 'GET', `/api/billing/invoices?q=${encodeURIComponent(q)}`), 200);
      expect(
        res.json().items.map((item: { companyName: string }) => item.companyName),
        q,
      ).toEqual(expected);
    }
    // Keys the route does not know are not its parameters: ignored, never read as an operator.
    for (const query of ['page[]=7', 'status[$ne]=void', 'q[]=acme', '__proto__[page]=5']) {
      expect((await kit.expectStatus(kit.call(people.billing, 'GET', `/api/billing/invoices?${query}`), 200)).json(), query).toMatchObject({
        count: 3,
        page: 1,
      });
    }
    const far = await kit.expectStatus(kit.call(people.billing, 'GET', '/api/billing/invoices?page=100000'), 200);
    expect(far.json()).toMatchObject({ items: [], count: 3, page: 100000 });
    const draft = (await draftOf(acme.id))!.id;
    for (const query of ['page=0', 'page=1e9', 'page=-3']) {
      expectRefusal(await kit.call(people.billing, 'GET', `/api/billing/invoices/${draft}?${query}`), 400, `invoice ${query}`);
      expectRefusal(await kit.call(people.billing, 'GET', `/api/billing/companies/${acme.id}/invoices?${query}`), 400, `company ${query}`);
    }
    expect((await kit.call(people.billing, 'GET', `/api/billing/invoices/${draft}?page=500`)).json()).toMatchObject({ jobs: [], jobCount: 1 });
  });

  it('refuses ids that are not UUIDs with 400 and unknown ones with 404, on every route', async () => {
    for (const id of ['not-a-uuid', '..%2F..%2Fetc', `${randomUUID()}x`, '%00', 'x'.repeat(5000), "1' or '1'='1"]) {
      for (const [method, suffix] of [
        ['GET', ''],
        ['GET', '/pdf'],
        ['GET', '/csv'],
        ['POST', '/issue'],
        ['POST', '/pay'],
      ] as const) {
        const res = await raw(people.admin, method, `/api/billing/invoices/${id}${suffix}`, method === 'POST' ? '{}' : undefined);
        expectRefusal(res, [400, 404, 414], `${id.slice(0, 20)}${suffix}`);
      }
      expectRefusal(await kit.call(people.admin, 'GET', `/api/billing/companies/${id}/invoices`), [400, 404, 414], `company ${id.slice(0, 20)}`);
    }
    const unknown = randomUUID();
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['GET', '/pdf', undefined],
      ['POST', '/issue', undefined],
      ['POST', '/pay', {}],
      ['POST', '/void', { reason: 'Never was' }],
    ] as const) {
      expectRefusal(await kit.call(people.admin, method, `/api/billing/invoices/${unknown}${suffix}`, body), 404, `unknown ${suffix}`);
      expectRefusal(await kit.call(people.admin, method, `/api/billing/invoices/${unknown.toUpperCase()}${suffix}`, body), 404, `UPPER ${suffix}`);
    }
  });

  it('refuses a payment reference or void reason that is not plain text, too long or not a string, and writes nothing', async () => {
    const id = await acmeIssued();
    for (const reference of ['bad\u0000ref', 'two\nlines', '\u202Eevil', 'x'.repeat(201), 42, ['a'], { a: 1 }, true]) {
      expectRefusal(await pay(id, people.finance, { reference }), 400, `reference ${JSON.stringify(reference).slice(0, 20)}`);
    }
    for (const [body, type] of [
      ['', 'application/json'],
      ['[]', 'application/json'],
      ['"Check 1"', 'application/json'],
      ['reference=1', 'application/x-www-form-urlencoded'],
    ] as const) {
      expectRefusal(await raw(people.finance, 'POST', `/api/billing/invoices/${id}/pay`, body, type), [400, 415], `pay body ${body}`);
    }
    expectRefusal(
      await raw(people.finance, 'POST', `/api/billing/invoices/${id}/pay`, JSON.stringify({ reference: 'x'.repeat(1024 * 1024) })),
      413,
      'pay 1 MB',
    );
    for (const reason of ['   ', ' \n\n ', 'ab', '\u202Eabc', 'a\u0007bc', 'x'.repeat(501), 123, null, ['Billed twice']]) {
      expectRefusal(await voidIt(id, people.finance, reason), 400, `reason ${JSON.stringify(reason).slice(0, 20)}`);
    }
    expectRefusal(await raw(people.finance, 'POST', `/api/billing/invoices/${id}/void`, '{}'), 400, 'no reason');
    expectRefusal(await raw(people.finance, 'POST', `/api/billing/invoices/${id}/void`, JSON.stringify({ reason: 'x'.repeat(1024 * 1024) })), 413, 'void 1 MB');
    const row = (await t.db.select().from(invoices).where(eq(invoices.id, id)))[0]!;
    expect(row).toMatchObject({ status: 'issued', paidAt: null, voidedAt: null, paymentReference: null, voidReason: null });
    // A blank reference is no reference; an empty body is a payment without one.
    const paid = await kit.expectStatus(raw(people.finance, 'POST', `/api/billing/invoices/${id}/pay`), 200);
    expect(paid.json()).toMatchObject({ status: 'paid', paymentReference: null });
  });
});

describe('races', () => {
  it('issues one draft once when it is issued twice at the same moment, and spends one number', async () => {
    const id = await acmeDraft();
    const answers = await Promise.all([issue(id, people.billing), issue(id, people.finance), issue(id, people.admin)]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 409, 409]);
    for (const res of answers.filter((res) => res.statusCode === 409)) expectRefusal(res, 409, 'second issue');
    const numbers = (await t.db.select().from(invoices)).map((row) => row.number).filter(Boolean);
    expect(numbers).toHaveLength(1);
    const events = (await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'invoice.issued'))).filter(
      (event) => (event.data as { invoiceId?: string }).invoiceId === id,
    );
    expect(events).toHaveLength(1);
  });

  it('ends an issued invoice paid or void, never both, when pay and void arrive at once; the audit says what happened', async () => {
    for (let round = 0; round < 3; round += 1) {
      await t.db.delete(jobCharges);
      await t.db.delete(invoices);
      const id = await acmeIssued();
      const [paid, voided, paidAgain] = await Promise.all([
        pay(id, people.finance, { reference: `R${round}` }),
        voidIt(id, people.admin),
        pay(id, people.admin),
      ]);
      const codes = [paid, voided, paidAgain].map((res) => res.statusCode);
      expect(
        codes.filter((code) => code === 200),
        codes.join(),
      ).toHaveLength(1);
      for (const res of [paid, voided, paidAgain]) if (res.statusCode !== 200) expectRefusal(res, 409, 'loser');
      const row = (await t.db.select().from(invoices).where(eq(invoices.id, id)))[0]!;
      expect(row.status === 'paid' ? row.voidedAt : row.paidAt).toBeNull();
      const actions = (
        await t.db
          .select()
          .from(auditEvents)
          .where(inArray(auditEvents.action, ['invoice.paid', 'invoice.voided']))
      )
        .filter((event) => (event.data as { invoiceId?: string }).invoiceId === id)
        .map((event) => event.action);
      expect(actions).toEqual([row.status === 'paid' ? 'invoice.paid' : 'invoice.voided']);
      await expectTotalsAreSums();
    }
  });

  it('gathers every charge once when the month is generated twice at the same moment', async () => {
    for (let index = 0; index < 30; index += 1) await chargedJob(index % 3 === 0 ? bayside.id : acme.id, november((index % 28) + 1));
    const answers = await Promise.all([generate(people.billing), generate(people.finance), generate(people.admin)]);
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    expect(answers.reduce((sum, res) => sum + (res.json().charges as number), 0)).toBe(60);
    expect(await t.db.select().from(invoices)).toHaveLength(2);
    expect(
      await t.db
        .select()
        .from(jobCharges)
        .where(sql`${jobCharges.invoiceId} is null`),
    ).toEqual([]);
    await expectTotalsAreSums();
  });

  it('keeps totals the sums of their lines when generate, issue, void and pay of one month all run at once', async () => {
    const issued = await acmeIssued();
    for (let index = 0; index < 6; index += 1) await chargedJob(acme.id, november(index + 10), [platform]);
    const answers = await Promise.all([
      generate(people.billing),
      voidIt(issued, people.finance),
      generate(people.finance),
      pay(issued, people.admin),
      kit.call(people.billing, 'GET', '/api/billing/invoices?status=draft'),
    ]);
    for (const res of answers) expect([200, 409], res.body).toContain(res.statusCode);
    const draft = (await draftOf(acme.id))!;
    const next = await issue(draft.id);
    expect(next.statusCode, next.body).toBe(200);
    await expectTotalsAreSums();
    const onNothing = await t.db
      .select()
      .from(jobCharges)
      .where(and(eq(jobCharges.companyId, acme.id), sql`${jobCharges.invoiceId} is null`));
    expect(onNothing).toEqual([]);
  });
});

/**
 * Two transactions of PostgreSQL put in a chosen order: the number's advisory lock is held while an
 * issue is on its way, so the issue has locked its draft and waits; then the other change runs into
 * the draft's lock; then the lock is let go. PGlite has one connection: there is no such interleaving.
 */
async function whileAnIssueWaits(draftId: string, other: () => Promise<unknown>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => {
    locked = resolve;
  });
  await t.headersFor(people.billing);
  const holder = t.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('invoice_numbers'))`);
    locked();
    await released;
  });
  await isLocked;
  const waiting = async (count: number) => {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const rows = await t.db.execute(sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
      const n = Number((rows as unknown as { rows: Array<{ n: number }> }).rows[0]?.n ?? 0);
      if (n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`fewer than ${count} transactions waited`);
  };
  const issuing = issue(draftId);
  await waiting(1);
  const otherDone = other();
  await waiting(2);
  release();
  await holder;
  return { issued: await issuing, other: await otherDone };
}

describe('races on PostgreSQL, in a chosen order', () => {
  it.skipIf(!isPostgres)('puts a completing job’s charges on a draft when the company’s draft is issued while the job completes', async () => {
    await chargedJob(acme.id, new Date());
    await kit.expectStatus(generate(people.billing, thisMonth()), 200);
    const draft = (await draftOf(acme.id))!.id;
    const [job] = await t.db.insert(jobs).values({ title: 'Completing now', notarizationType: 'ron', status: 'completed', companyId: acme.id }).returning();
    const { issued } = await whileAnIssueWaits(draft, () =>
      t.db.transaction(async (tx) => {
        await tx.insert(jobCharges).values({
          jobId: job!.id,
          companyId: acme.id,
          key: 'platform',
          label: 'Platform fee',
          unit: 'job',
          feeKind: 'platform',
          quantity: 1,
          unitAmountCents: 1000,
          amountCents: 1000,
          priceSource: 'default',
          position: 0,
        });
        await gatherJobCharges(tx, { id: job!.id, companyId: acme.id });
      }),
    );
    expect(issued.statusCode, issued.body).toBe(200);
    const [charge] = await t.db.select().from(jobCharges).where(eq(jobCharges.jobId, job!.id));
    expect(charge?.invoiceId, 'the completed job’s charge is on no invoice').not.toBeNull();
    expect(charge?.invoiceId).not.toBe(draft);
    await expectTotalsAreSums();
  });

  it.skipIf(!isPostgres)('puts a voided invoice’s charges back on a draft when the month’s draft is issued at the same moment', async () => {
    const voided = await acmeIssued();
    await chargedJob(acme.id, november(20), [platform]);
    await kit.expectStatus(generate(people.billing), 200);
    const draft = (await draftOf(acme.id))!.id;
    const { issued, other } = await whileAnIssueWaits(draft, () => voidIt(voided));
    expect(issued.statusCode, issued.body).toBe(200);
    expect((other as Res).statusCode, (other as Res).body).toBe(200);
    const stranded = await t.db
      .select()
      .from(jobCharges)
      .where(and(eq(jobCharges.companyId, acme.id), sql`${jobCharges.invoiceId} is null`));
    expect(stranded, 'the void invoice’s charges are on no invoice').toEqual([]);
    await expectTotalsAreSums();
  });
});

describe('numbers and months', () => {
  it('never gives two invoices one number, past the millionth invoice of a year too', async () => {
    const year = new Date().getUTCFullYear();
    await chargedJob(bayside.id, november(1));
    await chargedJob(bayside.id, new Date(Date.UTC(2026, 9, 1)));
    await generate(people.billing);
    await generate(people.billing, '2026-10');
    const [a, b] = await t.db.select().from(invoices);
    await t.db
      .update(invoices)
      .set({ status: 'issued', number: `${year}-999999`, issuedAt: new Date(), dueAt: new Date(Date.now() + 86_400_000) })
      .where(eq(invoices.id, a!.id));
    await t.db
      .update(invoices)
      .set({ status: 'issued', number: `${year}-1000000`, issuedAt: new Date(), dueAt: new Date(Date.now() + 86_400_000) })
      .where(eq(invoices.id, b!.id));
    const id = await acmeDraft();
    const res = await issue(id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().number).toBe(`${year}-1000001`);
  });

  it('gives a voided invoice’s charges a new number when issued again; numbers run on, never reused', async () => {
    const year = new Date().getUTCFullYear();
    const first = await acmeIssued();
    await kit.expectStatus(voidIt(first), 200);
    const again = (await draftOf(acme.id))!.id;
    const second = (await kit.expectStatus(issue(again), 200)).json();
    const rows = await t.db.select().from(invoices);
    expect(rows.map((row) => row.number).sort()).toEqual([`${year}-000001`, `${year}-000002`]);
    expect(second).toMatchObject({ number: `${year}-000002`, totalCents: 6000, jobCount: 1 });
  });

  it('puts the charges of a job completed at midnight on the draft of the month they were written in', async () => {
    const written = new Date(Date.UTC(2026, 9, 31, 23, 59, 59, 900));
    const jobId = await chargedJob(acme.id, written);
    // The completion's transaction began on 31 October; its charges are gathered a moment later, in November.
    await gatherJobCharges(t.db, { id: jobId, companyId: acme.id }, new Date(Date.UTC(2026, 10, 1, 0, 0, 0, 100)));
    const charges = await t.db.select().from(jobCharges).where(eq(jobCharges.jobId, jobId));
    expect(
      charges.every((charge) => charge.invoiceId !== null),
      'charges on no invoice',
    ).toBe(true);
    const [invoice] = await t.db
      .select()
      .from(invoices)
      .where(eq(invoices.id, charges[0]!.invoiceId ?? randomUUID()));
    expect(invoice).toMatchObject({ periodStart: '2026-10-01', status: 'draft', totalCents: 6000 });
    await expectTotalsAreSums();
  });

  it('keeps one draft per company and month however many jobs complete at once, each with totals that are the sums', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 12; index += 1) ids.push(await chargedJob(acme.id, november(index + 1), [platform]));
    await Promise.all(ids.map((jobId) => t.db.transaction((tx) => gatherJobCharges(tx, { id: jobId, companyId: acme.id }, november(15)))));
    expect(await t.db.select().from(invoices)).toHaveLength(1);
    expect(await draftOf(acme.id)).toMatchObject({ jobCount: 12, totalCents: 12000 });
    await expectTotalsAreSums();
  });
});

describe('the files', () => {
  it('defuses every cell a spreadsheet would run (=, +, -, @, tab, CR) in titles, labels and the company’s name', async () => {
    const starts = ['=', '+', '-', '@', '\t', '\r', '\r\n', '=\t'];
    const evilCompany = await kit.createCompany({ name: '=cmd|" /C calc"!A0' });
    for (const [index, start] of starts.entries()) {
      await chargedJob(
        evilCompany.id,
        november(index + 1),
        [{ ...platform, key: `platform_${index}`, label: `${start}HYPERLINK("http://evil.test/${index}")` }],
        `${start}SUM(1+1)*cmd|' /C calc'!A0,"quoted"\nsecond line`,
      );
    }
    await kit.expectStatus(generate(people.billing), 200);
    const id = (await draftOf(evilCompany.id))!.id;
    await kit.expectStatus(issue(id), 200);
    const csv = await kit.expectStatus(kit.call(evilCompany.staff, 'GET', `/api/billing/invoices/${id}/csv`), 200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = parseCsv(csv.body);
    expect(rows).toHaveLength(starts.length + 1);
    for (const row of rows) {
      expect(row).toHaveLength(13);
      for (const cell of row) expect(cell, JSON.stringify(cell)).not.toMatch(/^[=+\-@\t\r\n]/);
    }
    expect(rows.slice(1).reduce((sum, row) => sum + Number(row[12]), 0)).toBe(starts.length * 1000);
    expect(rows[1]![5]).toBe(`'=SUM(1+1)*cmd|' /C calc'!A0,"quoted"\nsecond line`);
    expect(rows[1]![1]).toBe(`'=cmd|" /C calc"!A0`);
  });

  it('draws a PDF for a job of a 500-character title, right-to-left, emoji and combining names, and a company to match', async () => {
    const worldly = await kit.createCompany({ name: 'شركة الأمان 🏠 Title — Ñoño' });
    await t.db
      .update(titleCompanies)
      .set({ addressLine: '12 רחוב הרצל\u200f, Apt 3', contactEmail: 'billing@xn--e1afmkfd.test', phone: '+1 (555) 010-0000' })
      .where(eq(titleCompanies.id, worldly.id));
    const long = `Closing-${'Ω'.repeat(60)}${'x'.repeat(440)}`;
    await chargedJob(worldly.id, november(3), [seal, platform], long);
    await chargedJob(worldly.id, november(4), [{ ...platform, label: 'رسوم المنصة 💼' }], 'עסקה של משפחת כהן 👨‍👩‍👧 e\u0301\u0301\u0301 Zalgo̴̡̢');
    await chargedJob(worldly.id, november(5), [platform], '😀'.repeat(200));
    await kit.expectStatus(generate(people.billing), 200);
    const id = (await draftOf(worldly.id))!.id;
    const draftPdf = await kit.expectStatus(kit.call(people.billing, 'GET', `/api/billing/invoices/${id}/pdf`), 200);
    expect(draftPdf.headers['content-disposition']).toMatch(/^attachment; filename="draft-invoice-[A-Za-z0-9-]+\.pdf"$/);
    await kit.expectStatus(issue(id), 200);
    await kit.expectStatus(voidIt(id, people.finance, 'Wrong company:\nשגוי 🙃\n\nissued twice'), 200);
    const pdf = await kit.expectStatus(kit.call(worldly.staff, 'GET', `/api/billing/invoices/${id}/pdf`), 200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(pdf.rawPayload);
    expect(text).toContain('Void since');
    expect(text).toContain('issued twice');
    const again = (await draftOf(worldly.id))!.id;
    const issued = (await kit.expectStatus(issue(again), 200)).json();
    const full = pdfText((await kit.expectStatus(kit.call(worldly.staff, 'GET', `/api/billing/invoices/${again}/pdf`), 200)).rawPayload);
    for (const expected of ['Ñoño', 'Closing-', 'xxxxxxxx', '$80.00', `Invoice ${issued.number}`]) expect(full, expected).toContain(expected);
    expect(full.replace(/\s/g, '')).toContain('x'.repeat(100));
  });

  it('does not print a void invoice as “no charges” beside a total it no longer has lines for', async () => {
    const id = await acmeIssued();
    await kit.expectStatus(voidIt(id), 200);
    const res = await kit.expectStatus(kit.call(acme.staff, 'GET', `/api/billing/invoices/${id}/pdf`), 200);
    const text = pdfText(res.rawPayload);
    expect(text).toContain('$60.00');
    expect(text, 'a void invoice says “No charges” and prints $60.00').not.toContain('No charges are on this invoice.');
    expect(text).toMatch(/went back on a draft/);
  });

  it('keeps the download’s file name a plain one, whatever the company is called', async () => {
    const odd = await kit.createCompany({ name: 'Evil"; filename="x.exe\r\nSet-Cookie: a=b' });
    await chargedJob(odd.id, november(2));
    await generate(people.billing);
    const id = (await draftOf(odd.id))!.id;
    for (const kind of ['pdf', 'csv']) {
      const res = await kit.expectStatus(kit.call(people.billing, 'GET', `/api/billing/invoices/${id}/${kind}`), 200);
      expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="[A-Za-z0-9-]+\\.${kind}"$`));
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
  });
});
