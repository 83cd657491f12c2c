import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyMessages, type ApiKeyScope } from '#shared/api-keys.ts';
import { apiKeys, auditEvents, jobs, titleCompanies } from '#server/db/schema/index.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';
import { apiKeyAuditScope } from './api-keys.service.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
});
afterAll(async () => t?.close());

const keysUrl = (company: { id: string }) => `/api/title-companies/${company.id}/api-keys`;
const withKey = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });

async function createKey(company: TestCompany, scopes: ApiKeyScope[], name = 'Closing software') {
  const res = await kit.expectStatus(kit.call(company.staff, 'POST', keysUrl(company), { name, scopes }), 201);
  return res.json() as { key: string; apiKey: { id: string; prefix: string; name: string; scopes: string[]; lastUsedAt: string | null } };
}

async function createJobOf(company: TestCompany, title = 'Deed of trust') {
  const res = await kit.expectStatus(kit.call(company.staff, 'POST', '/api/jobs', { title, notarizationType: 'acknowledgment' }), 201);
  return res.json() as { id: string; title: string };
}

/** GET /api/jobs is registered as the prefix with and without its trailing slash. */
const jobsRoute = expect.stringMatching(/^\/api\/jobs\/?$/);

const usesOf = (keyId: string) =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.scope, apiKeyAuditScope(keyId)), eq(auditEvents.action, 'api_key.used')))
    .orderBy(asc(auditEvents.sequence));

describe('making and listing API keys', () => {
  it('answers a new key once, keeps only its hash and prefix, and lists it without the key', async () => {
    const company = await kit.createCompany();
    const { key, apiKey } = await createKey(company, ['jobs:read', 'documents']);
    expect(key).toMatch(/^ronk_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toMatchObject({ name: 'Closing software', prefix: key.slice(0, 13), scopes: ['jobs:read', 'documents'], lastUsedAt: null, revokedAt: null });
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, apiKey.id));
    expect(row?.keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(key);
    const list = await kit.expectStatus(kit.call(company.staff, 'GET', keysUrl(company)), 200);
    expect(list.body).not.toContain(key);
    expect(list.json()).toEqual({
      items: [expect.objectContaining({ id: apiKey.id, prefix: apiKey.prefix, createdByName: company.staff.name })],
      canCreate: true,
    });
    const [created] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.scope, apiKeyAuditScope(apiKey.id)), eq(auditEvents.action, 'api_key.created')));
    expect(created).toMatchObject({
      actorId: company.staff.id,
      data: expect.objectContaining({ name: 'Closing software', scopes: ['jobs:read', 'documents'] }),
    });
    expect(JSON.stringify(created?.data)).not.toContain(key);
  });

  it('refuses a missing name, no scopes, an unknown scope and a name with control characters, in sentences', async () => {
    const company = await kit.createCompany();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: '', scopes: ['jobs:read'] }, /Name the key/],
      [{ name: 'Sync', scopes: [] }, /at least one/],
      [{ name: 'Sync', scopes: ['admin'] }, /./],
      [{ name: 'Sync\u0000', scopes: ['jobs:read'] }, /one line of text/],
      [{ name: 'Sync', scopes: ['jobs:read', 'jobs:read'] }, /each scope once/],
      [{ name: 'x'.repeat(81), scopes: ['jobs:read'] }, /at most 80/],
    ];
    for (const [payload, message] of cases) {
      const res = await kit.call(company.staff, 'POST', keysUrl(company), payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toMatch(message);
    }
    expect((await t.db.select().from(apiKeys).where(eq(apiKeys.companyId, company.id))).length).toBe(0);
  });

  it('lets only the company’s title staff make keys; administrators list and revoke them; everyone else is refused', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const notary = await t.createUser({ roles: ['notary'] });
    const signer = await t.createUser({ roles: ['signer'] });
    const payload = { name: 'Sync', scopes: ['jobs:read'] };
    expect((await t.app.inject({ method: 'POST', url: keysUrl(company), payload })).statusCode).toBe(401);
    expect((await kit.call(company.agent, 'POST', keysUrl(company), payload)).statusCode).toBe(403);
    expect((await kit.call(company.agent, 'GET', keysUrl(company))).statusCode).toBe(403);
    expect((await kit.call(other.staff, 'POST', keysUrl(company), payload)).statusCode).toBe(404);
    expect((await kit.call(other.staff, 'GET', keysUrl(company))).statusCode).toBe(404);
    expect((await kit.call(notary, 'GET', keysUrl(company))).statusCode).toBe(403);
    expect((await kit.call(signer, 'POST', keysUrl(company), payload)).statusCode).toBe(403);
    const byAdmin = await kit.call(admin, 'POST', keysUrl(company), payload);
    expect(byAdmin.statusCode).toBe(403);
    expect(byAdmin.json().message).toBe('Only the company’s own title staff make its API keys.');

    const { apiKey } = await createKey(company, ['jobs:read']);
    const listed = await kit.expectStatus(kit.call(admin, 'GET', keysUrl(company)), 200);
    expect(listed.json()).toMatchObject({ items: [{ id: apiKey.id }], canCreate: false });
    expect((await kit.call(other.staff, 'DELETE', `/api/title-companies/api-keys/${apiKey.id}`)).statusCode).toBe(404);
    expect((await kit.call(company.agent, 'DELETE', `/api/title-companies/api-keys/${apiKey.id}`)).statusCode).toBe(403);
    expect((await kit.call(company.staff, 'DELETE', '/api/title-companies/api-keys/not-a-uuid')).statusCode).toBe(400);
    const revoked = await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/api-keys/${apiKey.id}`), 200);
    expect(revoked.json().message).toContain('revoked');
    const again = await kit.call(company.staff, 'DELETE', `/api/title-companies/api-keys/${apiKey.id}`);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe('The key “Closing software” is revoked already.');
  });

  it('makes no key for a closed company', async () => {
    const company = await kit.createCompany();
    await t.db.update(titleCompanies).set({ closedAt: new Date() }).where(eq(titleCompanies.id, company.id));
    const res = await kit.call(company.staff, 'POST', keysUrl(company), { name: 'Sync', scopes: ['jobs:read'] });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'company_closed' });
  });
});

describe('calling the API with a key', () => {
  it('lists and reads the company’s own jobs only', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const mine = await createJobOf(company, 'Refinance of 12 Elm St');
    const theirs = await createJobOf(other, 'Purchase of 9 Oak Ave');
    const { key } = await createKey(company, ['jobs:read']);
    const list = await withKey(key, 'GET', '/api/jobs');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items.map((job: { id: string }) => job.id)).toEqual([mine.id]);
    expect((await withKey(key, 'GET', '/api/jobs?withStatusCounts=true')).json()).toMatchObject({ total: 1, statusCounts: expect.any(Object) });
    expect((await withKey(key, 'GET', '/api/jobs?notary=me')).json().total).toBe(0);
    const one = await withKey(key, 'GET', `/api/jobs/${mine.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: mine.id, title: 'Refinance of 12 Elm St', companyId: company.id });
    const foreign = await withKey(key, 'GET', `/api/jobs/${theirs.id}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('No job with that id, or you may not see it.');
  });

  it('makes and changes the company’s jobs and their signers with the write scope, named by the key in the trail', async () => {
    const company = await kit.createCompany();
    const { key, apiKey } = await createKey(company, ['jobs:read', 'jobs:write'], 'Closing sync');
    const created = await withKey(key, 'POST', '/api/jobs', {
      title: 'Seller package',
      notarizationType: 'acknowledgment',
      signers: [{ name: 'Sam Seller', email: 'sam.seller@example.test' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const job = created.json() as { id: string; companyId: string; createdBy: string | null; version: number; participants: Array<{ id: string }> };
    expect(job).toMatchObject({ companyId: company.id, createdBy: null });
    // The company's people see the job the key made.
    const staffList = await kit.expectStatus(kit.call(company.staff, 'GET', '/api/jobs'), 200);
    expect(staffList.json().items.map((item: { id: string }) => item.id)).toContain(job.id);
    const patched = await withKey(key, 'PATCH', `/api/jobs/${job.id}`, { version: job.version, title: 'Seller package (revised)' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().title).toBe('Seller package (revised)');
    const signer = await withKey(key, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Bea Buyer', email: 'bea.buyer@example.test' });
    expect(signer.statusCode, signer.body).toBe(201);
    const renamed = await withKey(key, 'PATCH', `/api/jobs/${job.id}/signers/${signer.json().id as string}`, { name: 'Bea B. Buyer' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().name).toBe('Bea B. Buyer');
    const removed = await withKey(key, 'DELETE', `/api/jobs/${job.id}/signers/${signer.json().id as string}`);
    expect(removed.statusCode, removed.body).toBe(200);
    const trail = await kit.expectStatus(kit.call(company.staff, 'GET', `/api/jobs/${job.id}/audit`), 200);
    const createdEvent = trail.json().events.find((event: { action: string }) => event.action === 'job.created');
    expect(createdEvent).toMatchObject({ actorId: null, data: expect.objectContaining({ apiKeyId: apiKey.id, apiKeyName: 'Closing sync' }) });
  });

  it('uploads and lists documents with the documents scope', async () => {
    const company = await kit.createCompany();
    const job = await createJobOf(company);
    const { key } = await createKey(company, ['documents']);
    const body = buildMultipart([{ name: 'deed.pdf', content: await makePdf(1, 'Deed') }]);
    const upload = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents`,
      headers: { authorization: `Bearer ${key}`, ...body.headers },
      payload: body.payload,
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const batchBody = buildMultipart([{ name: 'rider.pdf', content: await makePdf(2, 'Rider') }]);
    const batch = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents/batch`,
      headers: { authorization: `Bearer ${key}`, ...batchBody.headers },
      payload: batchBody.payload,
    });
    expect(batch.statusCode, batch.body).toBe(201);
    const list = await withKey(key, 'GET', `/api/jobs/${job.id}/documents`);
    expect(list.statusCode).toBe(200);
    expect(list.json().items).toEqual([expect.objectContaining({ name: 'deed.pdf' }), expect.objectContaining({ name: 'rider.pdf' })]);
    // Another company's job is not found for the key, upload or list.
    const other = await createJobOf(await kit.createCompany());
    expect((await withKey(key, 'GET', `/api/jobs/${other.id}/documents`)).statusCode).toBe(404);
    // The documents scope reads no job itself.
    expect((await withKey(key, 'GET', `/api/jobs/${job.id}`)).json()).toEqual({
      error: 'api_key_scope_missing',
      message: apiKeyMessages.missingScope('jobs:read'),
    });
  });

  it('refuses a key outside its scope, and on every route not opened to keys', async () => {
    const company = await kit.createCompany();
    const job = await createJobOf(company);
    const { key } = await createKey(company, ['jobs:read']);
    const write = await withKey(key, 'POST', '/api/jobs', { title: 'Nope', notarizationType: 'acknowledgment' });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toEqual({ error: 'api_key_scope_missing', message: apiKeyMessages.missingScope('jobs:write') });
    expect((await withKey(key, 'PATCH', `/api/jobs/${job.id}`, { version: 1, title: 'Nope' })).statusCode).toBe(403);
    expect((await withKey(key, 'GET', `/api/jobs/${job.id}/documents`)).statusCode).toBe(403);
    for (const url of [
      '/api/auth/me',
      `/api/title-companies/${company.id}`,
      keysUrl(company),
      `/api/jobs/${job.id}/audit`,
      '/api/admin/users',
      '/api/openapi.json',
    ]) {
      const res = await withKey(key, 'GET', url);
      expect(res.statusCode, url).toBe(403);
      expect(res.json(), url).toEqual({ error: 'api_key_not_allowed', message: apiKeyMessages.notAllowed });
    }
    const making = await withKey(key, 'POST', keysUrl(company), { name: 'Another', scopes: ['jobs:write'] });
    expect(making.statusCode).toBe(403);
    expect(await t.db.select().from(jobs).where(eq(jobs.title, 'Nope'))).toEqual([]);
  });

  it('refuses a revoked key at once, an unknown one, and the keys of a closed company', async () => {
    const company = await kit.createCompany();
    const { key, apiKey } = await createKey(company, ['jobs:read']);
    expect((await withKey(key, 'GET', '/api/jobs')).statusCode).toBe(200);
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/api-keys/${apiKey.id}`), 200);
    const revoked = await withKey(key, 'GET', '/api/jobs');
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json()).toEqual({ error: 'api_key_invalid', message: apiKeyMessages.unknown });

    const unknown = await withKey(`ronk_${randomBytes(32).toString('base64url')}`, 'GET', '/api/jobs');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error).toBe('api_key_invalid');
    expect((await withKey('ronk_short', 'GET', '/api/jobs')).statusCode).toBe(401);

    const closing = await kit.createCompany();
    const live = await createKey(closing, ['jobs:read']);
    expect((await withKey(live.key, 'GET', '/api/jobs')).statusCode).toBe(200);
    await kit.expectStatus(kit.call(admin, 'DELETE', `/api/title-companies/${closing.id}`), 200);
    expect((await withKey(live.key, 'GET', '/api/jobs')).json().error).toBe('api_key_invalid');
  });

  it('audits every call, answered or refused, and writes the last use at most once a minute', async () => {
    const company = await kit.createCompany();
    const { key, apiKey } = await createKey(company, ['jobs:read']);
    await withKey(key, 'GET', '/api/jobs');
    const [first] = await t.db.select({ lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, apiKey.id));
    expect(first?.lastUsedAt).toBeInstanceOf(Date);
    await withKey(key, 'POST', '/api/jobs', { title: 'Nope', notarizationType: 'acknowledgment' });
    await withKey(key, 'GET', '/api/auth/me');
    const [second] = await t.db.select({ lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, apiKey.id));
    expect(second?.lastUsedAt?.getTime()).toBe(first?.lastUsedAt?.getTime());
    const listed = await kit.expectStatus(kit.call(company.staff, 'GET', keysUrl(company)), 200);
    expect(listed.json().items[0].lastUsedAt).toBe(first?.lastUsedAt?.toISOString());
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/api-keys/${apiKey.id}`), 200);
    await withKey(key, 'GET', '/api/jobs');
    const uses = await usesOf(apiKey.id);
    expect(uses.map((event) => [event.data, event.actorId])).toEqual([
      [expect.objectContaining({ apiKeyId: apiKey.id, name: 'Closing software', method: 'GET', route: jobsRoute, status: 200 }), null],
      [expect.objectContaining({ method: 'POST', route: jobsRoute, status: 403 }), null],
      [expect.objectContaining({ method: 'GET', route: '/api/auth/me', status: 403 }), null],
      [expect.objectContaining({ method: 'GET', route: jobsRoute, status: 401 }), null],
    ]);
  });
});
