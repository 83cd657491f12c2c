import { randomUUID } from 'node:crypto';
import { eq, isNull, like } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorCodes } from '#shared/errors.ts';
import { roles, type Role } from '#shared/roles.ts';
import { auditEvents, priceItems, titleCompanies } from '#server/db/schema/index.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

/**
 * What outsiders and careless insiders try against the prices (decision 047): every role on every
 * route, other and odd companies, bad and huge input, odd key paths, races, and every way we could
 * think of to push the notarial fee of one act above the lowest state cap ($25.00).
 */

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
const people = {} as Record<Role, TestUser>;
let billingNotary: TestUser;
let pendingAdmin: TestUser;

const capCents = 2500;
const base = '/api/admin/pricing';

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  for (const role of roles) people[role] = await t.createUser({ roles: [role], name: `${role} attacker` });
  billingNotary = await t.createUser({ roles: ['billing', 'notary'], name: 'billing and notary' });
  pendingAdmin = await t.createUser({ roles: ['admin'], status: 'pending', name: 'pending admin' });
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await t.db.delete(priceItems);
});

const firstSeal = { key: 'first_seal', label: 'First seal', amountCents: 2000, unit: 'act', feeKind: 'notarial' };
const extraSeal = { key: 'extra_seal', label: 'Each further seal', amountCents: 0, unit: 'additional_act', feeKind: 'notarial' };
const platformFee = { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' };
const techPerAct = { key: 'technology', label: 'Technology fee', amountCents: 5000, unit: 'act', feeKind: 'platform' };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Res = Awaited<ReturnType<typeof kit.call>>;

async function addDefaults(...items: Array<Record<string, unknown>>) {
  for (const item of items) await kit.expectStatus(kit.call(people.finance, 'POST', `${base}/defaults`, item), 201);
}

/** A body sent as written, with its own content type. */
async function raw(user: TestUser | null, method: Method, url: string, body: string | Buffer, contentType = 'application/json') {
  const headers = { ...(user ? await t.headersFor(user) : {}), 'content-type': contentType };
  return t.app.inject({ method, url, headers, payload: body });
}

/** A refusal in the one shape: { error, message } (or error + detail) with the status, never a 500. */
function expectRefusal(res: Res, status: number | number[], label = '') {
  const statuses = [status].flat();
  expect(statuses, `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
  const body = res.json();
  expect(typeof body.error, `${label} error`).toBe('string');
  expect(typeof body.message === 'string' || body.detail !== undefined, `${label} message`).toBe(true);
}

const notarialPerAct = (rows: Array<{ amountCents: number; unit: string; feeKind: string }>) =>
  rows.filter((row) => row.feeKind === 'notarial' && (row.unit === 'act' || row.unit === 'additional_act')).reduce((sum, row) => sum + row.amountCents, 0);

/**
 * The rules read straight from the table: every stored item a valid key and amount, notarial only
 * per act, and the defaults and every company's merged list within the cap.
 */
async function expectRulesHoldInTable() {
  const rows = await t.db.select().from(priceItems);
  for (const row of rows) {
    expect(row.key).toMatch(/^[a-z][a-z0-9_]{0,47}$/);
    expect(Number.isInteger(row.amountCents) && row.amountCents >= 0 && row.amountCents <= 10_000_000, row.key).toBe(true);
    if (row.feeKind === 'notarial') expect(['act', 'additional_act'], row.key).toContain(row.unit);
  }
  const defaults = rows.filter((row) => row.companyId === null);
  expect(notarialPerAct(defaults), 'defaults').toBeLessThanOrEqual(capCents);
  const companies = new Set(rows.filter((row) => row.companyId !== null).map((row) => row.companyId));
  for (const companyId of companies) {
    const own = rows.filter((row) => row.companyId === companyId);
    const ownKeys = new Set(own.map((row) => row.key));
    const merged = [...defaults.filter((row) => !ownKeys.has(row.key)), ...own];
    expect(notarialPerAct(merged), `company ${companyId}`).toBeLessThanOrEqual(capCents);
  }
  const positions = defaults.map((row) => row.position).sort((a, b) => a - b);
  expect(positions).toEqual(defaults.map((_, index) => index));
}

/** The notarial fee per act a company pays, as the API shows it. */
async function companyFeePerAct(companyId: string) {
  const res = await kit.expectStatus(kit.call(people.admin, 'GET', `${base}/company/${companyId}`), 200);
  return notarialPerAct(res.json().items);
}

function everyRoute(companyId: string, key: string) {
  const reads: Array<[Method, string, unknown]> = [
    ['GET', `${base}/defaults`, undefined],
    ['GET', `${base}/company/${companyId}`, undefined],
  ];
  const changes: Array<[Method, string, unknown]> = [
    ['POST', `${base}/defaults`, platformFee],
    ['PUT', `${base}/defaults/${key}`, { amountCents: 1 }],
    ['DELETE', `${base}/defaults/${key}`, undefined],
    ['POST', `${base}/defaults/reorder`, { order: [key] }],
    ['POST', `${base}/company/${companyId}/seed`, { overwrite: true }],
    ['PUT', `${base}/company/${companyId}/items/${key}`, { amountCents: 1 }],
    ['DELETE', `${base}/company/${companyId}/items/${key}`, undefined],
  ];
  return { reads, changes };
}

describe('who may call', () => {
  it('refuses every role but the readers on reads, every role but admin and finance on changes, anonymous with 401, before the body or path is looked at', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal);
    const snapshot = async () => (await t.db.select().from(priceItems)).map((row) => [row.companyId, row.key, row.amountCents, row.position]);
    const pricingEvents = async () => (await t.db.select().from(auditEvents).where(like(auditEvents.action, 'pricing.%'))).length;
    const before = await snapshot();
    const eventsBefore = await pricingEvents();
    const { reads, changes } = everyRoute(company.id, 'first_seal');
    const outsiders = roles.filter((role) => !['admin', 'billing', 'finance'].includes(role));
    for (const role of outsiders) {
      for (const [method, url, body] of [...reads, ...changes]) expectRefusal(await kit.call(people[role], method, url, body), 403, `${role} ${method} ${url}`);
    }
    for (const [method, url, body] of changes) {
      expectRefusal(await kit.call(people.billing, method, url, body), 403, `billing ${method} ${url}`);
      expectRefusal(await kit.call(billingNotary, method, url, body), 403, `billing+notary ${method} ${url}`);
    }
    for (const [method, url, body] of [...reads, ...changes]) {
      expectRefusal(await kit.call(null, method, url, body), 401, `anonymous ${method} ${url}`);
      expectRefusal(await kit.call(pendingAdmin, method, url, body), 403, `pending admin ${method} ${url}`);
      const forged = await t.app.inject({ method, url, headers: { authorization: `Bearer ${randomUUID()}` }, ...(body ? { payload: body as object } : {}) });
      expectRefusal(forged, 401, `forged token ${method} ${url}`);
    }
    // Bodies and paths that would be refused are not looked at before who asks is known.
    const badPaths = everyRoute('not-a-uuid', 'NOT A KEY');
    for (const [method, url] of badPaths.changes) {
      expectRefusal(await raw(null, method, url, '{"broken": '), 401, `anonymous broken JSON ${method} ${url}`);
      expectRefusal(await raw(people.billing, method, url, '{"broken": '), 403, `billing broken JSON ${method} ${url}`);
      expectRefusal(await raw(people.notary, method, url, 'x'.repeat(2 * 1024 * 1024)), 403, `notary 2 MB ${method} ${url}`);
      expectRefusal(await raw(null, method, url, 'overwrite=true', 'text/plain'), 401, `anonymous text/plain ${method} ${url}`);
    }
    for (const [method, url] of badPaths.reads) expectRefusal(await kit.call(people.signer, method, url), 403, `signer bad path ${url}`);
    expect((await t.app.inject({ method: 'HEAD', url: `${base}/defaults` })).statusCode, 'anonymous HEAD').toBe(401);
    expect(await snapshot()).toEqual(before);
    expect(await pricingEvents()).toBe(eventsBefore);
    // The readers and changers pass the door (a refusal after it is about the request, not the person).
    for (const role of ['admin', 'billing', 'finance'] as const) {
      for (const [method, url] of reads) expect((await kit.call(people[role], method, url)).statusCode, `${role} ${url}`).toBe(200);
      expect((await kit.call(billingNotary, 'GET', `${base}/defaults`)).statusCode).toBe(200);
    }
    for (const role of ['admin', 'finance'] as const) {
      expectRefusal(await kit.call(people[role], 'PUT', `${base}/defaults/first_seal`, {}), 400, `${role} empty change`);
    }
  });
});

describe('other, missing and odd companies', () => {
  it('answers 404 for a company that does not exist on every company route and writes nothing, 400 for an id that is no UUID', async () => {
    await addDefaults(firstSeal);
    for (const id of [randomUUID(), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      const { reads, changes } = everyRoute(id, 'first_seal');
      for (const [method, url, body] of [...reads.slice(1), ...changes.slice(4)])
        expectRefusal(await kit.call(people.admin, method, url, body), 404, `${method} ${url}`);
    }
    for (const id of ['not-a-uuid', `${randomUUID()}x`, '%00', '..', randomUUID().replace(/-/g, ''), `{${randomUUID()}}`, ` ${randomUUID()}`]) {
      expectRefusal(await kit.call(people.admin, 'GET', `${base}/company/${id}`), [400, 404], id);
      expectRefusal(await kit.call(people.admin, 'POST', `${base}/company/${id}/seed`, {}), [400, 404], id);
    }
    expect(await t.db.select().from(priceItems)).toHaveLength(1);
  });

  it('keeps one company’s own prices off every other company', async () => {
    const [a, b] = [await kit.createCompany(), await kit.createCompany()];
    await addDefaults(firstSeal, platformFee);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${a.id}/items/platform`, { amountCents: 1 }), 200);
    await kit.expectStatus(kit.call(people.finance, 'POST', `${base}/company/${a.id}/seed`, { overwrite: false }), 200);
    const other = (await kit.call(people.billing, 'GET', `${base}/company/${b.id}`)).json();
    expect(other.items.map((item: { source: string }) => item.source)).toEqual(['default', 'default']);
    expectRefusal(await kit.call(people.finance, 'DELETE', `${base}/company/${b.id}/items/platform`), 404, 'b has none of its own');
    expect(await t.db.select().from(priceItems).where(eq(priceItems.companyId, a.id))).toHaveLength(2);
  });

  it('reads an upper-case UUID as the same company', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal);
    const res = await kit.expectStatus(
      kit.call(people.admin, 'PUT', `${base}/company/${company.id.toUpperCase()}/items/first_seal`, { amountCents: 100 }),
      200,
    );
    expect(res.json()).toMatchObject({ amountCents: 100, source: 'company' });
    expect(await t.db.select().from(priceItems).where(eq(priceItems.companyId, company.id))).toHaveLength(1);
  });

  it('answers a pending or rejected company without a 500, within the cap', async () => {
    await addDefaults(firstSeal);
    for (const approvalStatus of ['pending', 'rejected'] as const) {
      const [row] = await t.db
        .insert(titleCompanies)
        .values({ name: `Odd ${approvalStatus} ${randomUUID().slice(0, 6)}`, state: 'FL', approvalStatus })
        .returning();
      const id = row?.id ?? '';
      for (const [method, url, body] of [...everyRoute(id, 'first_seal').reads.slice(1), ...everyRoute(id, 'first_seal').changes.slice(4)]) {
        const res = await kit.call(people.admin, method, url, body);
        expect(res.statusCode, `${approvalStatus} ${method} ${url} ${res.body}`).toBeLessThan(500);
      }
      expectRefusal(await kit.call(people.admin, 'PUT', `${base}/company/${id}/items/first_seal`, { amountCents: 2501 }), 422, approvalStatus);
    }
    await expectRulesHoldInTable();
  });

  // Decision 043: "any change to a closed company 409 company_closed". The price routes do not ask.
  it('refuses to change the prices of a closed company (409 company_closed), as every other change to it is', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal, platformFee);
    await kit.expectStatus(kit.call(people.admin, 'DELETE', `/api/title-companies/${company.id}`), 200);
    expect((await kit.call(people.billing, 'GET', `${base}/company/${company.id}`)).statusCode).toBe(200);
    const changes: Array<[Method, string, unknown]> = [
      ['POST', `${base}/company/${company.id}/seed`, { overwrite: true }],
      ['PUT', `${base}/company/${company.id}/items/platform`, { amountCents: 1 }],
    ];
    const answers: string[] = [];
    for (const [method, url, body] of changes) {
      const res = await kit.call(people.admin, method, url, body);
      answers.push(`${method} ${url.replace(company.id, '{closed}')} → ${res.statusCode}`);
    }
    expect(answers).toEqual(changes.map(([method, url]) => `${method} ${url.replace(company.id, '{closed}')} → 409`));
    expect(await t.db.select().from(priceItems).where(eq(priceItems.companyId, company.id))).toEqual([]);
  });
});

describe('bad and huge input', () => {
  it('refuses bad item bodies with 400 (413 when too large) in the one shape and writes nothing', async () => {
    const bad: Array<[string, unknown]> = [
      ['NUL label', { ...platformFee, label: 'Plat\u0000form' }],
      ['lone surrogate label', { ...platformFee, label: 'Fee \ud800' }],
      ['lone low surrogate label', { ...platformFee, label: '\udfffFee' }],
      ['bidi override label', { ...platformFee, label: 'fee\u202Efdp.exe' }],
      ['lone surrogate key', { ...platformFee, key: 'fee\ud800' }],
      ['NUL key', { ...platformFee, key: 'fee\u0000' }],
      ['key __proto__', { ...platformFee, key: '__proto__' }],
      ['key with dot', { ...platformFee, key: 'first.seal' }],
      ['upper-case key', { ...platformFee, key: 'Platform' }],
      ['key as number', { ...platformFee, key: 12 }],
      ['key as array', { ...platformFee, key: ['platform'] }],
      ['amount as string', { ...platformFee, amountCents: '1000' }],
      ['amount as empty string', { ...platformFee, amountCents: '' }],
      ['amount float', { ...platformFee, amountCents: 1000.5 }],
      ['amount tiny float', { ...platformFee, amountCents: 0.001 }],
      ['amount negative', { ...platformFee, amountCents: -1 }],
      ['amount negative huge', { ...platformFee, amountCents: -Number.MAX_SAFE_INTEGER }],
      ['amount above max', { ...platformFee, amountCents: 10_000_001 }],
      ['amount max value', { ...platformFee, amountCents: Number.MAX_VALUE }],
      ['amount unsafe int', { ...platformFee, amountCents: 2 ** 53 + 2 }],
      ['amount null', { ...platformFee, amountCents: null }],
      ['amount bool', { ...platformFee, amountCents: true }],
      ['amount array', { ...platformFee, amountCents: [1000] }],
      ['amount object', { ...platformFee, amountCents: { valueOf: 1000 } }],
      ['unit array', { ...platformFee, unit: ['job'] }],
      ['unit upper', { ...platformFee, unit: 'JOB' }],
      ['feeKind __proto__', { ...platformFee, feeKind: '__proto__' }],
      ['label object', { ...platformFee, label: { toString: 'x' } }],
      ['label 121', { ...platformFee, label: 'x'.repeat(121) }],
      ['label spaces', { ...platformFee, label: '    ' }],
      ['label ~1 MB under the limit', { ...platformFee, label: 'x'.repeat(1_000_000) }],
      ['body array', [platformFee]],
      ['body string', 'platform'],
      ['body number', 42],
      ['body null', null],
      ['notarial per job', { ...platformFee, feeKind: 'notarial' }],
      ['notarial per witness', { ...platformFee, unit: 'witness', feeKind: 'notarial', amountCents: 1 }],
    ];
    for (const [label, body] of bad) {
      const res = await raw(people.finance, 'POST', `${base}/defaults`, JSON.stringify(body));
      expectRefusal(res, 400, label);
    }
    expectRefusal(await kit.call(people.finance, 'POST', `${base}/defaults`, { ...platformFee, label: 'x'.repeat(1024 * 1024) }), 413, '1 MB label');
    const rawBodies: Array<[string, string, number | number[]]> = [
      ['Infinity by exponent', '{"key":"platform","label":"P","amountCents":1e400,"unit":"job","feeKind":"platform"}', 400],
      ['negative Infinity', '{"key":"platform","label":"P","amountCents":-1e400,"unit":"job","feeKind":"platform"}', 400],
      ['NaN literal', '{"key":"platform","label":"P","amountCents":NaN,"unit":"job","feeKind":"platform"}', 400],
      ['Infinity literal', '{"key":"platform","label":"P","amountCents":Infinity,"unit":"job","feeKind":"platform"}', 400],
      ['hex number', '{"key":"platform","label":"P","amountCents":0x10,"unit":"job","feeKind":"platform"}', 400],
      [
        '__proto__ in body',
        '{"key":"platform","label":"P","amountCents":1,"unit":"job","feeKind":"platform","__proto__":{"companyId":"x","isAdmin":true}}',
        400,
      ],
      ['constructor.prototype', '{"key":"platform","label":"P","amountCents":1,"unit":"job","feeKind":"platform","constructor":{"prototype":{"x":1}}}', 400],
      ['nested __proto__', '{"key":"platform","label":{"__proto__":{"length":1}},"amountCents":1,"unit":"job","feeKind":"platform"}', 400],
      ['deep nesting', `{"key":"platform","label":${'['.repeat(50_000)}${']'.repeat(50_000)},"amountCents":1,"unit":"job","feeKind":"platform"}`, 400],
      ['deep nesting with constructor', `{"constructor":1,"label":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`, 400],
      ['truncated', '{"key":"platform"', 400],
      ['empty', '', 400],
      ['escaped NUL key', '{"key":"platform\\u0000","label":"P","amountCents":1,"unit":"job","feeKind":"platform"}', 400],
    ];
    for (const [label, body, status] of rawBodies) expectRefusal(await raw(people.finance, 'POST', `${base}/defaults`, body), status, label);
    const latin = await raw(
      people.finance,
      'POST',
      `${base}/defaults`,
      '{"key":"latin","label":"P\xff\xfe","amountCents":1,"unit":"job","feeKind":"platform"}',
    );
    expect([201, 400], latin.body).toContain(latin.statusCode);
    const invalidUtf8 = Buffer.concat([
      Buffer.from('{"key":"bytes","label":"P'),
      Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]),
      Buffer.from('","amountCents":1,"unit":"job","feeKind":"platform"}'),
    ]);
    const bytes = await raw(people.finance, 'POST', `${base}/defaults`, invalidUtf8);
    expect(bytes.statusCode, bytes.body).toBeLessThan(500);
    // The charset is not read: the body is taken as the UTF-8 it is (not a refusal, not a 500).
    const utf16 = await raw(people.finance, 'POST', `${base}/defaults`, JSON.stringify(platformFee), 'application/json; charset=utf-16');
    expect([201, 400, 415], utf16.body).toContain(utf16.statusCode);
    expectRefusal(await raw(people.finance, 'POST', `${base}/defaults`, JSON.stringify(platformFee), 'application/x-www-form-urlencoded'), 415, 'form');
    // Whatever got in (the invalid UTF-8 label, replaced) is still a valid item.
    await expectRulesHoldInTable();
    await t.db.delete(priceItems);
    expect(
      (await t.db.select().from(auditEvents).where(like(auditEvents.action, 'pricing.default_created'))).every(
        (event) => !JSON.stringify(event.data).includes('\\u0000'),
      ),
    ).toBe(true);
  });

  it('drops extra fields: a company id, position or id in the body does not make a company item, move it or name its row', async () => {
    const company = await kit.createCompany();
    const otherId = randomUUID();
    const res = await kit.expectStatus(
      kit.call(people.finance, 'POST', `${base}/defaults`, {
        ...platformFee,
        companyId: company.id,
        position: -5,
        id: otherId,
        updatedBy: people.signer.id,
        source: 'company',
      }),
      201,
    );
    expect(res.json()).toMatchObject({ key: 'platform', position: 0 });
    const [row] = await t.db.select().from(priceItems);
    expect(row).toMatchObject({ companyId: null, position: 0, updatedBy: people.finance.id });
    expect(row?.id).not.toBe(otherId);
    const update = await kit.expectStatus(
      kit.call(people.admin, 'PUT', `${base}/defaults/platform`, { amountCents: 5, key: 'renamed', companyId: company.id, position: 99 }),
      200,
    );
    expect(update.json()).toMatchObject({ key: 'platform', amountCents: 5, position: 0 });
    expectRefusal(await kit.call(people.admin, 'PUT', `${base}/defaults/platform`, { key: 'renamed', position: 3 }), 400, 'only unknown fields');
    expectRefusal(await kit.call(people.admin, 'PUT', `${base}/defaults/platform`, { amountCents: null }), 400, 'null amount');
    expectRefusal(await raw(people.admin, 'PUT', `${base}/defaults/platform`, 'null'), 400, 'null body');
    expectRefusal(await raw(people.admin, 'PUT', `${base}/defaults/platform`, '[{"amountCents":1}]'), 400, 'array body');
    expectRefusal(await raw(people.admin, 'PUT', `${base}/defaults/platform`, '{"__proto__":{"amountCents":1}}'), 400, '__proto__ body');
    for (const body of ['[]', '"yes"', 'false', '0', '{"overwrite":"true"}', '{"overwrite":1}', '{"overwrite":null}', '{"__proto__":{"overwrite":true}}']) {
      expectRefusal(await raw(people.admin, 'POST', `${base}/company/${company.id}/seed`, body), 400, `seed ${body}`);
    }
    expect(await t.db.select().from(priceItems)).toHaveLength(1);
  });

  it('takes keys named like Object’s own properties as plain keys', async () => {
    const company = await kit.createCompany();
    for (const key of ['constructor', 'prototype', 'hasownproperty', 'tostring', 'valueof', 'proto']) {
      await addDefaults({ ...platformFee, key, label: key });
    }
    await addDefaults({ ...firstSeal, key: 'constructor_seal' });
    const order = ['proto', 'valueof', 'tostring', 'hasownproperty', 'prototype', 'constructor', 'constructor_seal'];
    const reordered = await kit.expectStatus(kit.call(people.admin, 'POST', `${base}/defaults/reorder`, { order }), 200);
    expect(reordered.json().items.map((item: { key: string }) => item.key)).toEqual(order);
    await kit.expectStatus(kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/constructor`, { amountCents: 7 }), 200);
    await kit.expectStatus(kit.call(people.admin, 'POST', `${base}/company/${company.id}/seed`), 200);
    expectRefusal(
      await kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/constructor`, { feeKind: 'notarial', unit: 'act', amountCents: 501 }),
      422,
      'constructor key',
    );
    await kit.expectStatus(kit.call(people.admin, 'DELETE', `${base}/defaults/constructor`), 200);
    expect((await kit.call(people.admin, 'GET', `${base}/company/${company.id}`)).json().total).toBe(7);
    await expectRulesHoldInTable();
  });

  it('refuses a reorder that is huge, nested or not a list of keys, and moves nothing', async () => {
    await addDefaults(firstSeal, platformFee);
    const tooMany = Array.from({ length: 201 }, (_, index) => `k${index}`);
    const huge = Array.from({ length: 100_000 }, (_, index) => `k${index}`);
    const bad: Array<[string, unknown, number | number[]]> = [
      ['201 keys', { order: tooMany }, 400],
      ['100,000 keys', { order: huge }, [400, 413]],
      ['200 repeats', { order: Array.from({ length: 200 }, () => 'first_seal') }, 400],
      ['nested', { order: [['first_seal'], ['platform']] }, 400],
      ['numbers', { order: [0, 1] }, 400],
      ['object', { order: { 0: 'platform', 1: 'first_seal' } }, 400],
      ['null element', { order: ['platform', null, 'first_seal'] }, 400],
      ['padded duplicates', { order: ['platform', ' platform', 'first_seal'] }, 400],
      ['upper-case', { order: ['PLATFORM', 'FIRST_SEAL'] }, 400],
      ['__proto__', { order: ['__proto__', 'platform', 'first_seal'] }, 400],
      ['missing order', {}, 400],
      ['body list', ['platform', 'first_seal'], 400],
    ];
    for (const [label, body, status] of bad) expectRefusal(await kit.call(people.admin, 'POST', `${base}/defaults/reorder`, body), status, label);
    expectRefusal(await raw(people.admin, 'POST', `${base}/defaults/reorder`, `{"order":${'['.repeat(100_000)}${']'.repeat(100_000)}}`), 400, 'deep');
    expect((await kit.call(people.admin, 'GET', `${base}/defaults`)).json().items.map((item: { key: string }) => item.key)).toEqual(['first_seal', 'platform']);
  });

  it('refuses a bad limit on the company list with 400', async () => {
    const company = await kit.createCompany();
    for (const limit of ['Infinity', '1e309', '-1', '0', '', '%00', '1%00', 'NaN', '201', '2.5', 'limit', '1&limit=2']) {
      expectRefusal(await kit.call(people.billing, 'GET', `${base}/company/${company.id}?limit=${limit}`), 400, `limit=${limit}`);
    }
    for (const query of ['limit[]=1', 'limit[a]=1', '__proto__[limit]=1', 'constructor=1']) {
      const res = await kit.call(people.billing, 'GET', `${base}/company/${company.id}?${query}`);
      expect(res.statusCode, `${query} ${res.body}`).toBeLessThan(500);
    }
  });
});

describe('odd key paths', () => {
  it('takes an encoded key as itself, and refuses upper case, dots, slashes, NUL, broken encodings and overlong keys in the one shape', async () => {
    const company = await kit.createCompany();
    await addDefaults({ ...platformFee });
    const encoded = await kit.expectStatus(kit.call(people.admin, 'PUT', `${base}/defaults/%70latform`, { amountCents: 11 }), 200);
    expect(encoded.json().key).toBe('platform');
    const refused: Array<[string, number | number[]]> = [
      ['PLATFORM', 400],
      ['Platform', 400],
      ['platform.', 400],
      ['plat.form', 400],
      ['..', [400, 404]],
      ['.', [400, 404]],
      ['%2e%2e', [400, 404]],
      ['plat%2Fform', [400, 404]],
      ['..%2F..%2Fdefaults', [400, 404]],
      ['platform%00', 400],
      ['%00', 400],
      ['%ED%A0%80', 400],
      ['%E0%A4%A', 400],
      ['%', 400],
      ['%C0%AE%C0%AE', 400],
      ['plat%20form', 400],
      ['p'.repeat(49), 400],
      ['p'.repeat(101), [400, 404, 414]],
      ['p'.repeat(5000), [400, 404, 414]],
      ['platform/', 404],
      ['platform/extra', 404],
      ['%F0%9F%92%A9', 400],
      ['%EF%BC%B0latform', 400],
    ];
    for (const [key, status] of refused) {
      for (const [method, url] of [
        ['PUT', `${base}/defaults/${key}`],
        ['DELETE', `${base}/defaults/${key}`],
        ['PUT', `${base}/company/${company.id}/items/${key}`],
        ['DELETE', `${base}/company/${company.id}/items/${key}`],
      ] as Array<[Method, string]>) {
        expectRefusal(await kit.call(people.admin, method, url, method === 'PUT' ? { amountCents: 99 } : undefined), status, `${method} ${url}`);
      }
    }
    const rows = await t.db.select().from(priceItems);
    expect(rows.map((row) => [row.companyId, row.key, row.amountCents])).toEqual([[null, 'platform', 11]]);
  });

  // A key path over Fastify's maxParamLength (100) or with a broken %-encoding is answered by Fastify
  // itself, around the app: {"error":"Bad Request","code":"FST_ERR_…","statusCode":414}, the path
  // echoed, none of the security headers, and before the access check (anonymous gets 414, not 401).
  it('answers an overlong or badly encoded key path like every other refusal: an error code of the app, its security headers', async () => {
    const answers: string[] = [];
    for (const [user, url] of [
      [people.admin, `${base}/defaults/${'p'.repeat(101)}`],
      [null, `${base}/defaults/${'p'.repeat(101)}`],
      [people.admin, `${base}/defaults/%E0%A4%A`],
      [null, `${base}/company/${randomUUID()}/items/%E0%A4%A`],
    ] as Array<[TestUser | null, string]>) {
      const res = await kit.call(user, 'PUT', url, { amountCents: 1 });
      const body = res.json();
      const isAppShape =
        (errorCodes as readonly string[]).includes(body.error) && body.code === undefined && res.headers['x-content-type-options'] === 'nosniff';
      answers.push(
        `${user ? 'admin' : 'anonymous'} PUT ${url.slice(base.length, 60)} → ${res.statusCode} ${isAppShape ? 'app shape' : `${JSON.stringify(body.error)} without the app's headers`}`,
      );
    }
    expect(answers.filter((answer) => !answer.endsWith('app shape'))).toEqual([]);
  });
});

describe('the notarial fee of one act, at most $25.00', () => {
  it('cannot be raised by turning a platform fee per act into a notarial fee, nor hidden by counting a notarial fee per job, signer or witness', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal, techPerAct, platformFee);
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/technology`, { feeKind: 'notarial' }), 422, 'platform act to notarial');
    expectRefusal(
      await kit.call(people.finance, 'PUT', `${base}/defaults/technology`, { feeKind: 'notarial', unit: 'additional_act' }),
      422,
      'to notarial later acts',
    );
    for (const unit of ['job', 'signer', 'additional_signer', 'witness']) {
      expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/first_seal`, { unit }), 400, `default notarial per ${unit}`);
      expectRefusal(await kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/first_seal`, { unit }), 400, `company notarial per ${unit}`);
      expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/platform`, { feeKind: 'notarial', unit }), 400, `platform to notarial per ${unit}`);
    }
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/platform`, { feeKind: 'notarial' }), 400, 'platform per job to notarial');
    expectRefusal(
      await kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/technology`, { feeKind: 'notarial' }),
      422,
      'company: platform act to notarial',
    );
    expectRefusal(
      await kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/platform`, { feeKind: 'notarial' }),
      400,
      'company: job to notarial',
    );
    expectRefusal(
      await kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/platform`, { feeKind: 'notarial', unit: 'additional_act', amountCents: 501 }),
      422,
      'company: job to notarial later acts',
    );
    // A change that lowers one item while turning another is still checked whole.
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/defaults/technology`, { amountCents: 500, feeKind: 'notarial' }), 200);
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/technology`, { amountCents: 501 }), 422, '$25.01');
    expect(await companyFeePerAct(company.id)).toBe(2500);
    expect(await t.db.select().from(priceItems).where(eq(priceItems.companyId, company.id))).toEqual([]);
    await expectRulesHoldInTable();
  });

  it('holds through a company-only key: a default deleted while a company overrides it, then raised, re-created or seeded over', async () => {
    const company = await kit.createCompany();
    await addDefaults({ ...firstSeal, amountCents: 0 }, { ...firstSeal, key: 'old_seal', label: 'Old seal', amountCents: 0 });
    // The company's own amount for old_seal, then the default goes: the company keeps it as a key of its own.
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/old_seal`, { amountCents: 2500 }), 200);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/first_seal`, { feeKind: 'platform' }), 200);
    await kit.expectStatus(kit.call(people.finance, 'DELETE', `${base}/defaults/old_seal`), 200);
    const list = (await kit.call(people.admin, 'GET', `${base}/company/${company.id}`)).json();
    expect(list.items.map((item: { key: string; source: string }) => [item.key, item.source])).toEqual([
      ['first_seal', 'company'],
      ['old_seal', 'company'],
    ]);
    expect(await companyFeePerAct(company.id)).toBe(2500);
    // The defaults alone may go to $25; the company overrides first_seal as a platform fee, so it stays at $25.
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/defaults/first_seal`, { amountCents: 2000 }), 200);
    expect(await companyFeePerAct(company.id)).toBe(2500);
    const seedOver = await kit.call(people.admin, 'POST', `${base}/company/${company.id}/seed`, { overwrite: true });
    expectRefusal(seedOver, 422, 'seed over the company-only key');
    expect(seedOver.json().message).toContain('$45.00');
    const backToDefault = await kit.call(people.admin, 'DELETE', `${base}/company/${company.id}/items/first_seal`);
    expectRefusal(backToDefault, 422, 'falling back to the default');
    expectRefusal(
      await kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/first_seal`, { feeKind: 'notarial', amountCents: 1 }),
      422,
      'company turns back',
    );
    expectRefusal(await kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/old_seal`, { amountCents: 2501 }), 422, 'company-only key raised');
    expectRefusal(
      await kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/old_seal`, { unit: 'additional_act', amountCents: 2501 }),
      422,
      'as later acts',
    );
    // Re-creating the deleted key as a default: the company's own amount still stands over it.
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/defaults/first_seal`, { amountCents: 0 }), 200);
    await addDefaults({ ...firstSeal, key: 'old_seal', label: 'Old seal again', amountCents: 2500 });
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/first_seal`, { amountCents: 1 }), 422, 'default pushes the company over');
    expectRefusal(await kit.call(people.finance, 'POST', `${base}/defaults`, { ...extraSeal, amountCents: 1 }), 422, 'new default pushes over');
    const ownRows = async () =>
      (await t.db.select().from(priceItems).where(eq(priceItems.companyId, company.id))).map((row) => [row.key, row.amountCents, row.unit, row.feeKind]).sort();
    expect(await ownRows()).toEqual([
      ['first_seal', 0, 'act', 'platform'],
      ['old_seal', 2500, 'act', 'notarial'],
    ]);
    await expectRulesHoldInTable();
  });

  it('checks every company on a change of the defaults, not only the first', async () => {
    const companies = [await kit.createCompany(), await kit.createCompany(), await kit.createCompany()];
    await addDefaults({ ...firstSeal, amountCents: 1000 }, extraSeal);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${companies[0]?.id}/items/first_seal`, { amountCents: 1500 }), 200);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${companies[2]?.id}/items/first_seal`, { amountCents: 2400 }), 200);
    const res = await kit.call(people.finance, 'PUT', `${base}/defaults/extra_seal`, { amountCents: 200 });
    expectRefusal(res, 422, 'third company');
    expect(res.json().message).toContain((companies[2] as TestCompany).name);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/defaults/extra_seal`, { amountCents: 100 }), 200);
    await expectRulesHoldInTable();
  });

  it('holds at the edges: exactly $25.00 passes, one cent more is refused, every way', async () => {
    const company = await kit.createCompany();
    await addDefaults({ ...firstSeal, amountCents: 2400 }, { ...extraSeal, amountCents: 100 });
    expectRefusal(await kit.call(people.finance, 'POST', `${base}/defaults`, { ...firstSeal, key: 'third', amountCents: 1 }), 422, 'third item 1 cent');
    await addDefaults({ ...firstSeal, key: 'third', amountCents: 0 });
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/third`, { amountCents: 1 }), 422, 'raise third');
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/third`, { amountCents: 1 }), 422, 'company raise third');
    expectRefusal(await kit.call(people.finance, 'PUT', `${base}/defaults/first_seal`, { amountCents: 10_000_000 }), 422, 'max amount');
    await expectRulesHoldInTable();
  });
});

describe('races', () => {
  it('two seeds with and without overwrite at once leave one copy of each default and no 500', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal, platformFee, techPerAct);
    for (let round = 0; round < 4; round += 1) {
      await t.db.delete(priceItems).where(eq(priceItems.companyId, company.id));
      await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/platform`, { amountCents: round }), 200);
      const results = await Promise.all([
        kit.call(people.finance, 'POST', `${base}/company/${company.id}/seed`, { overwrite: true }),
        kit.call(people.admin, 'POST', `${base}/company/${company.id}/seed`, { overwrite: false }),
        kit.call(people.admin, 'POST', `${base}/company/${company.id}/seed`),
        kit.call(people.finance, 'POST', `${base}/company/${company.id}/seed`, { overwrite: true }),
      ]);
      expect(results.map((res) => res.statusCode)).toEqual([200, 200, 200, 200]);
      const own = await t.db.select().from(priceItems).where(eq(priceItems.companyId, company.id));
      expect(own.map((row) => [row.key, row.amountCents]).sort()).toEqual([
        ['first_seal', 2000],
        ['platform', 1000],
        ['technology', 5000],
      ]);
    }
  });

  it('a change of the defaults racing a company change that together pass the cap: one is refused', async () => {
    const company = await kit.createCompany();
    for (let round = 0; round < 5; round += 1) {
      await t.db.delete(priceItems);
      await addDefaults({ ...firstSeal, amountCents: 1500 }, extraSeal);
      await kit.expectStatus(kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/first_seal`, { amountCents: 2000 }), 200);
      const results = await Promise.all([
        kit.call(people.finance, 'PUT', `${base}/defaults/extra_seal`, { amountCents: 500 }),
        kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/first_seal`, { amountCents: 2400 }),
        kit.call(people.finance, 'PUT', `${base}/company/${company.id}/items/extra_seal`, { amountCents: 300 }),
        kit.call(people.admin, 'POST', `${base}/defaults`, { ...firstSeal, key: 'late_seal', amountCents: 400 }),
      ]);
      for (const res of results) expect([200, 201, 422], res.body).toContain(res.statusCode);
      expect(results.filter((res) => res.statusCode === 422).length).toBeGreaterThanOrEqual(1);
      expect(await companyFeePerAct(company.id)).toBeLessThanOrEqual(capCents);
      await expectRulesHoldInTable();
    }
  });

  it('a delete racing an update and a company change of the same key: no 500, nothing half-done', async () => {
    const company = await kit.createCompany();
    for (let round = 0; round < 4; round += 1) {
      await t.db.delete(priceItems);
      await addDefaults(platformFee, firstSeal);
      const results = await Promise.all([
        kit.call(people.finance, 'DELETE', `${base}/defaults/platform`),
        kit.call(people.admin, 'PUT', `${base}/defaults/platform`, { amountCents: 77 }),
        kit.call(people.admin, 'PUT', `${base}/company/${company.id}/items/platform`, { amountCents: 66 }),
        kit.call(people.finance, 'DELETE', `${base}/defaults/platform`),
      ]);
      for (const res of results) expect([200, 404], res.body).toContain(res.statusCode);
      expect(results.filter((res, index) => [0, 3].includes(index) && res.statusCode === 200)).toHaveLength(1);
      expect(await t.db.select().from(priceItems).where(isNull(priceItems.companyId))).toHaveLength(1);
      await expectRulesHoldInTable();
    }
  });

  it('a reorder racing creates and deletes: all or nothing, positions 0..n-1, no 500', async () => {
    for (let round = 0; round < 4; round += 1) {
      await t.db.delete(priceItems);
      await addDefaults(firstSeal, platformFee, techPerAct);
      const results = await Promise.all([
        kit.call(people.admin, 'POST', `${base}/defaults/reorder`, { order: ['technology', 'platform', 'first_seal'] }),
        kit.call(people.finance, 'POST', `${base}/defaults`, { ...platformFee, key: `late_${round}` }),
        kit.call(people.admin, 'POST', `${base}/defaults/reorder`, { order: ['platform', 'first_seal', 'technology'] }),
        kit.call(people.finance, 'DELETE', `${base}/defaults/platform`),
        kit.call(people.finance, 'POST', `${base}/defaults`, { ...platformFee, key: `later_${round}` }),
      ]);
      for (const res of results) expect([200, 201, 400], res.body).toContain(res.statusCode);
      const keys = (await kit.call(people.admin, 'GET', `${base}/defaults`)).json().items.map((item: { key: string }) => item.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toHaveLength(4);
      await expectRulesHoldInTable();
    }
  });

  it('ten creates at once get ten distinct positions', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        kit.call(index % 2 ? people.admin : people.finance, 'POST', `${base}/defaults`, { ...platformFee, key: `fee_${index}` }),
      ),
    );
    expect(results.map((res) => res.statusCode)).toEqual(Array.from({ length: 10 }, () => 201));
    await expectRulesHoldInTable();
  });
});

describe('the size of a list', () => {
  // The reorder refuses more than 200 keys ("A price list holds at most 200 items") and must name
  // every key, but nothing stops the 201st default being added: from then on no reorder can succeed.
  it('a list that can be made can be reordered: the 201st default is refused, or a reorder of 201 keys is taken', async () => {
    await t.db.insert(priceItems).values(
      Array.from({ length: 200 }, (_, index) => ({
        companyId: null,
        key: `fee_${index}`,
        label: `Fee ${index}`,
        amountCents: 1,
        unit: 'job' as const,
        feeKind: 'platform' as const,
        position: index,
      })),
    );
    const all200 = Array.from({ length: 200 }, (_, index) => `fee_${199 - index}`);
    await kit.expectStatus(kit.call(people.admin, 'POST', `${base}/defaults/reorder`, { order: all200 }), 200);
    const created = await kit.call(people.finance, 'POST', `${base}/defaults`, { ...platformFee, key: 'fee_200' });
    const keys = ((await kit.call(people.admin, 'GET', `${base}/defaults`)).json().items as Array<{ key: string }>).map((item) => item.key);
    const reorder = await kit.call(people.admin, 'POST', `${base}/defaults/reorder`, { order: [...keys].reverse() });
    expect({ created: created.statusCode, reorder: reorder.statusCode, count: keys.length }, reorder.body).toSatisfy(
      (outcome: { created: number; reorder: number; count: number }) => (outcome.created !== 201 && outcome.count === 200) || outcome.reorder === 200,
    );
  });
});
