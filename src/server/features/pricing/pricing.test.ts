import { randomUUID } from 'node:crypto';
import { and, desc, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '#shared/roles.ts';
import { auditEvents, priceItems } from '#server/db/schema/index.ts';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
const people = {} as Record<'admin' | 'finance' | 'billing' | 'title' | 'notary' | 'signer' | 'observer', TestUser>;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  for (const role of ['admin', 'finance', 'billing', 'title', 'notary', 'signer', 'observer'] as const) {
    people[role] = await t.createUser({ roles: [role as Role], name: `${role} person` });
  }
});
afterAll(async () => t?.close());
// The defaults are one list for the whole platform: each test starts from none.
beforeEach(async () => {
  await t.db.delete(priceItems);
});

const firstSeal = { key: 'first_seal', label: 'First seal', amountCents: 2500, unit: 'act', feeKind: 'notarial' };
const identityCheck = { key: 'identity_check', label: 'Identity check', amountCents: 400, unit: 'signer', feeKind: 'platform' };
const platformFee = { key: 'platform', label: 'Platform fee', amountCents: 1000, unit: 'job', feeKind: 'platform' };

async function addDefaults(...items: Array<Record<string, unknown>>) {
  for (const item of items) await kit.expectStatus(kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', item), 201);
}
const defaultKeys = async () =>
  ((await kit.call(people.admin, 'GET', '/api/admin/pricing/defaults')).json().items as Array<{ key: string }>).map((item) => item.key);
const lastAudit = async (action: string) =>
  (await t.db.select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(desc(auditEvents.sequence)).limit(1))[0];

describe('default prices', () => {
  it('are added at the end of the list, read back in order, changed and removed, each on record', async () => {
    expect((await kit.call(people.billing, 'GET', '/api/admin/pricing/defaults')).json()).toEqual({ items: [] });
    await addDefaults(platformFee, firstSeal);
    const list = (await kit.call(people.billing, 'GET', '/api/admin/pricing/defaults')).json().items;
    expect(list).toEqual([
      { ...platformFee, position: 0, updatedAt: expect.any(String) },
      { ...firstSeal, position: 1, updatedAt: expect.any(String) },
    ]);
    const changed = await kit.expectStatus(
      kit.call(people.admin, 'PUT', '/api/admin/pricing/defaults/platform', { amountCents: 1250, label: 'Technology fee' }),
      200,
    );
    expect(changed.json()).toMatchObject({ key: 'platform', label: 'Technology fee', amountCents: 1250, unit: 'job', feeKind: 'platform' });
    expect((await lastAudit('pricing.default_updated'))?.data).toMatchObject({
      key: 'platform',
      amountCents: 1250,
      before: { amountCents: 1000, label: 'Platform fee' },
    });
    const removed = await kit.expectStatus(kit.call(people.finance, 'DELETE', '/api/admin/pricing/defaults/platform'), 200);
    expect(removed.json().message).toBe('“Technology fee” is no longer a default price. Charges already made keep it.');
    const after = (await kit.call(people.finance, 'GET', '/api/admin/pricing/defaults')).json().items;
    expect(after).toEqual([{ ...firstSeal, position: 0, updatedAt: expect.any(String) }]);
    expect((await lastAudit('pricing.default_created'))?.data).toEqual(firstSeal);
    expect((await lastAudit('pricing.default_deleted'))?.data).toMatchObject({ key: 'platform' });
  });

  it('refuses a key that exists, with 409, and a missing key or item with 404', async () => {
    await addDefaults(firstSeal);
    const again = await kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', { ...firstSeal, amountCents: 100 });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('A default price with the key first_seal exists already. Change it, or choose another key.');
    expect((await kit.call(people.finance, 'PUT', '/api/admin/pricing/defaults/nothing_here', { amountCents: 1 })).statusCode).toBe(404);
    expect((await kit.call(people.finance, 'DELETE', '/api/admin/pricing/defaults/nothing_here')).statusCode).toBe(404);
  });

  it('keeps one item per key when two people add it at the same moment', async () => {
    const results = await Promise.all([
      kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', firstSeal),
      kit.call(people.admin, 'POST', '/api/admin/pricing/defaults', { ...firstSeal, amountCents: 2000 }),
    ]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
    expect(await t.db.select().from(priceItems)).toHaveLength(1);
  });

  it('refuses bad input with 400 and a sentence, and writes nothing', async () => {
    const bad: Array<Record<string, unknown>> = [
      { ...firstSeal, key: 'First Seal' },
      { ...firstSeal, key: '' },
      { ...firstSeal, key: 'k'.repeat(49) },
      { ...firstSeal, amountCents: 12.5 },
      { ...firstSeal, amountCents: -1 },
      { ...firstSeal, amountCents: 10_000_001 },
      { ...firstSeal, amountCents: '2500' },
      { ...firstSeal, unit: 'hour' },
      { ...firstSeal, feeKind: 'tip' },
      { ...firstSeal, label: '' },
      { ...firstSeal, label: 'First\u0000seal' },
      { ...firstSeal, label: 'x'.repeat(121) },
      { ...firstSeal, unit: 'signer' },
      { key: 'first_seal' },
    ];
    for (const body of bad) {
      const res = await kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message, JSON.stringify(body)).toEqual(expect.any(String));
    }
    const notarialPerSigner = await kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', { ...firstSeal, unit: 'signer' });
    expect(notarialPerSigner.json().message).toBe('A notarial fee is charged per notarial act: choose “per notarial act”.');
    expect((await kit.call(people.finance, 'PUT', '/api/admin/pricing/defaults/first_seal', {})).statusCode).toBe(400);
    expect((await kit.call(people.finance, 'PUT', '/api/admin/pricing/defaults/BAD KEY', { amountCents: 1 })).statusCode).toBe(400);
    expect(await t.db.select().from(priceItems)).toEqual([]);
  });
});

describe('the notarial fee cap', () => {
  it('refuses a notarial fee above the lowest state cap, naming each cap and its statute, and keeps the list as it was', async () => {
    const res = await kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', { ...firstSeal, amountCents: 3000 });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: 'fee_above_cap',
      message:
        'The default prices: A notarial fee of $30.00 per act is more than state law allows: Florida allows at most $25 for an online notarization (Fla. Stat. § 117.275); Virginia allows at most $25 for each electronic notarial act (Va. Code § 47.1-19(B)). Charge the rest as a platform fee.',
    });
    expect(await t.db.select().from(priceItems)).toEqual([]);
  });

  it('counts every notarial item of an act together, the fee for later acts included', async () => {
    await addDefaults(firstSeal);
    const extra = await kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', {
      key: 'extra_seal',
      label: 'Each further seal',
      amountCents: 1,
      unit: 'additional_act',
      feeKind: 'notarial',
    });
    expect(extra.statusCode).toBe(422);
    expect(extra.json().message).toContain('A notarial fee of $25.01 per act is more than state law allows');
    const raise = await kit.call(people.finance, 'PUT', '/api/admin/pricing/defaults/first_seal', { amountCents: 2501 });
    expect(raise.statusCode).toBe(422);
    const toNotarial = await kit.call(people.finance, 'POST', '/api/admin/pricing/defaults', {
      ...platformFee,
      unit: 'act',
      feeKind: 'notarial',
      amountCents: 1,
    });
    expect(toNotarial.statusCode).toBe(422);
    // The same amount as a platform fee is no notarial fee, and may be charged beside it.
    await addDefaults({ key: 'technology', label: 'Technology fee', amountCents: 5000, unit: 'act', feeKind: 'platform' });
    expect(await defaultKeys()).toEqual(['first_seal', 'technology']);
  });

  it('holds for a company’s own prices and for a company whose own prices a change of the defaults would push above it', async () => {
    const company = await kit.createCompany();
    await addDefaults(
      { ...firstSeal, amountCents: 2000 },
      { key: 'extra_seal', label: 'Each further seal', amountCents: 0, unit: 'additional_act', feeKind: 'notarial' },
    );
    await kit.expectStatus(kit.call(people.finance, 'PUT', `/api/admin/pricing/company/${company.id}/items/first_seal`, { amountCents: 2500 }), 200);
    const own = await kit.call(people.finance, 'PUT', `/api/admin/pricing/company/${company.id}/items/extra_seal`, { amountCents: 1 });
    expect(own.statusCode).toBe(422);
    expect(own.json().message).toMatch(new RegExp(`^The prices of ${company.name}: A notarial fee of \\$25\\.01 per act`));
    const defaultChange = await kit.call(people.finance, 'PUT', '/api/admin/pricing/defaults/extra_seal', { amountCents: 100 });
    expect(defaultChange.statusCode).toBe(422);
    expect(defaultChange.json().message).toMatch(new RegExp(`^The prices of ${company.name}: A notarial fee of \\$26\\.00 per act`));
    expect((await t.db.select().from(priceItems).where(eq(priceItems.key, 'extra_seal')))[0]?.amountCents).toBe(0);
  });
});

describe('reordering the defaults', () => {
  it('puts every item in the new order at once, and refuses an order that is not exactly the keys', async () => {
    await addDefaults(firstSeal, identityCheck, platformFee);
    const res = await kit.expectStatus(
      kit.call(people.admin, 'POST', '/api/admin/pricing/defaults/reorder', { order: ['platform', 'first_seal', 'identity_check'] }),
      200,
    );
    expect(res.json().items.map((item: { key: string; position: number }) => [item.key, item.position])).toEqual([
      ['platform', 0],
      ['first_seal', 1],
      ['identity_check', 2],
    ]);
    const refusals: Array<[string[], string]> = [
      [['platform', 'first_seal'], 'Send every default price’s key exactly once (missing: identity_check).'],
      [['platform', 'first_seal', 'identity_check', 'ghost'], 'Send every default price’s key exactly once (not a default price: ghost).'],
      [['platform', 'platform', 'first_seal', 'identity_check'], 'Send every default price’s key exactly once (named twice: platform).'],
    ];
    for (const [order, message] of refusals) {
      const refused = await kit.call(people.admin, 'POST', '/api/admin/pricing/defaults/reorder', { order });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe(message);
    }
    expect(await defaultKeys()).toEqual(['platform', 'first_seal', 'identity_check']);
    expect((await kit.call(people.admin, 'POST', '/api/admin/pricing/defaults/reorder', { order: [] })).statusCode).toBe(400);
    expect((await kit.call(people.admin, 'POST', '/api/admin/pricing/defaults/reorder', { order: 'platform' })).statusCode).toBe(400);
  });

  it('ends in one of the two orders when two reorders race, never a mix', async () => {
    await addDefaults(firstSeal, identityCheck, platformFee);
    const a = ['platform', 'identity_check', 'first_seal'];
    const b = ['identity_check', 'first_seal', 'platform'];
    await Promise.all([
      kit.call(people.admin, 'POST', '/api/admin/pricing/defaults/reorder', { order: a }),
      kit.call(people.finance, 'POST', '/api/admin/pricing/defaults/reorder', { order: b }),
    ]);
    expect([a, b]).toContainEqual(await defaultKeys());
  });
});

describe('a company’s prices', () => {
  it('are the defaults until the company has its own, marked which, and cut to limit', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal, identityCheck, platformFee);
    const before = (await kit.call(people.billing, 'GET', `/api/admin/pricing/company/${company.id}`)).json();
    expect(before).toMatchObject({ companyId: company.id, companyName: company.name, total: 3 });
    expect(before.items.map((item: { key: string; source: string }) => [item.key, item.source])).toEqual([
      ['first_seal', 'default'],
      ['identity_check', 'default'],
      ['platform', 'default'],
    ]);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `/api/admin/pricing/company/${company.id}/items/identity_check`, { amountCents: 300 }), 200);
    const after = (await kit.call(people.finance, 'GET', `/api/admin/pricing/company/${company.id}?limit=2`)).json();
    expect(after.total).toBe(3);
    expect(after.items).toEqual([
      { ...firstSeal, position: 0, updatedAt: expect.any(String), source: 'default' },
      { ...identityCheck, amountCents: 300, position: 1, updatedAt: expect.any(String), source: 'company' },
    ]);
    const back = await kit.expectStatus(kit.call(people.admin, 'DELETE', `/api/admin/pricing/company/${company.id}/items/identity_check`), 200);
    expect(back.json().message).toBe(`${company.name} pays the default for “Identity check” again: $4.00.`);
    expect((await kit.call(people.finance, 'GET', `/api/admin/pricing/company/${company.id}`)).json().items[1].source).toBe('default');
    for (const limit of ['0', '201', 'x', '1.5']) {
      expect((await kit.call(people.finance, 'GET', `/api/admin/pricing/company/${company.id}?limit=${limit}`)).statusCode, limit).toBe(400);
    }
    expect((await kit.call(people.finance, 'GET', `/api/admin/pricing/company/${randomUUID()}`)).statusCode).toBe(404);
    expect((await kit.call(people.finance, 'GET', '/api/admin/pricing/company/not-a-uuid')).statusCode).toBe(400);
    expect((await kit.call(people.finance, 'PUT', `/api/admin/pricing/company/${company.id}/items/nothing_here`, { amountCents: 1 })).statusCode).toBe(404);
  });

  it('are seeded from the defaults: without overwrite the company keeps its own, with overwrite it takes the defaults', async () => {
    const company = await kit.createCompany();
    const empty = await kit.call(people.finance, 'POST', `/api/admin/pricing/company/${company.id}/seed`, {});
    expect(empty.statusCode).toBe(409);
    await addDefaults(firstSeal, identityCheck);
    await kit.expectStatus(kit.call(people.finance, 'PUT', `/api/admin/pricing/company/${company.id}/items/first_seal`, { amountCents: 2000 }), 200);
    const kept = await kit.expectStatus(kit.call(people.finance, 'POST', `/api/admin/pricing/company/${company.id}/seed`), 200);
    expect(kept.json()).toEqual({ ok: true, copied: 1, kept: 1, message: `1 default price was copied; ${company.name} kept 1 price of its own.` });
    const ownAmounts = async () =>
      (await t.db.select().from(priceItems).where(eq(priceItems.companyId, company.id))).map((row) => [row.key, row.amountCents]).sort();
    expect(await ownAmounts()).toEqual([
      ['first_seal', 2000],
      ['identity_check', 400],
    ]);
    const overwritten = await kit.expectStatus(kit.call(people.admin, 'POST', `/api/admin/pricing/company/${company.id}/seed`, { overwrite: true }), 200);
    expect(overwritten.json()).toMatchObject({ copied: 2, kept: 0, message: `${company.name} now has its own copy of the 2 default prices.` });
    expect(await ownAmounts()).toEqual([
      ['first_seal', 2500],
      ['identity_check', 400],
    ]);
    expect((await lastAudit('pricing.company_seeded'))?.data).toMatchObject({ companyId: company.id, copied: 2, kept: 0, overwrite: true });
    expect((await kit.call(people.admin, 'POST', `/api/admin/pricing/company/${company.id}/seed`, { overwrite: 'yes' })).statusCode).toBe(400);
  });
});

describe('who may see and change prices', () => {
  it('lets admins, billing and finance read; only admins and finance change; everyone else is refused and nothing changes', async () => {
    const company = await kit.createCompany();
    await addDefaults(firstSeal);
    const pricingEvents = async () => (await t.db.select().from(auditEvents).where(like(auditEvents.action, 'pricing.%'))).length;
    const eventsBefore = await pricingEvents();
    const reads = [
      ['GET', '/api/admin/pricing/defaults'],
      ['GET', `/api/admin/pricing/company/${company.id}`],
    ] as const;
    const changes = [
      ['POST', '/api/admin/pricing/defaults', platformFee],
      ['PUT', '/api/admin/pricing/defaults/first_seal', { amountCents: 1 }],
      ['DELETE', '/api/admin/pricing/defaults/first_seal', undefined],
      ['POST', '/api/admin/pricing/defaults/reorder', { order: ['first_seal'] }],
      ['POST', `/api/admin/pricing/company/${company.id}/seed`, { overwrite: true }],
      ['PUT', `/api/admin/pricing/company/${company.id}/items/first_seal`, { amountCents: 1 }],
      ['DELETE', `/api/admin/pricing/company/${company.id}/items/first_seal`, undefined],
    ] as const;
    for (const role of ['title', 'notary', 'signer', 'observer'] as const) {
      for (const [method, url] of reads) expect((await kit.call(people[role], method, url)).statusCode, `${role} ${url}`).toBe(403);
    }
    for (const role of ['billing', 'title', 'notary', 'signer', 'observer'] as const) {
      for (const [method, url, body] of changes) expect((await kit.call(people[role], method, url, body)).statusCode, `${role} ${method} ${url}`).toBe(403);
    }
    for (const [method, url, body] of [...reads.map(([m, u]) => [m, u, undefined] as const), ...changes]) {
      expect((await kit.call(null, method, url, body)).statusCode, `anonymous ${method} ${url}`).toBe(401);
    }
    expect(await t.db.select().from(priceItems)).toHaveLength(1);
    expect(
      await t.db
        .select()
        .from(priceItems)
        .where(and(eq(priceItems.key, 'first_seal'), eq(priceItems.amountCents, 2500))),
    ).toHaveLength(1);
    expect(await pricingEvents()).toBe(eventsBefore);
  });
});
