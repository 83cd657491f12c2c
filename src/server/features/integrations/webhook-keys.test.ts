import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyScope } from '#shared/api-keys.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

/** The `webhooks` scope of an API key (decisions 054, 055): the company's software manages the company's endpoints, and only those. */
const publicUrl = 'https://93.184.215.14/hooks/open-ron';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
});
afterAll(async () => t?.close());

async function keyOf(company: TestCompany, scopes: ApiKeyScope[]): Promise<string> {
  const res = await kit.expectStatus(kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/api-keys`, { name: 'Closing software', scopes }), 201);
  return (res.json() as { key: string }).key;
}
const withKey = (key: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload ? { payload } : {}) });

describe('an API key with the webhooks scope', () => {
  it('registers, lists and changes its own company’s endpoints, and reads their deliveries', async () => {
    const company = await kit.createCompany();
    const key = await keyOf(company, ['webhooks']);
    const created = await withKey(key, 'POST', `/api/title-companies/${company.id}/webhooks`, { url: publicUrl, events: ['job.created'] });
    expect(created.statusCode, created.body).toBe(201);
    const endpointId = (created.json() as { endpoint: { id: string } }).endpoint.id;
    const list = await withKey(key, 'GET', `/api/title-companies/${company.id}/webhooks`);
    expect(list.statusCode, list.body).toBe(200);
    expect(JSON.stringify(list.json())).toContain(endpointId);
    const changed = await withKey(key, 'PATCH', `/api/title-companies/${company.id}/webhooks/${endpointId}`, { events: ['job.created', 'job.completed'] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await withKey(key, 'GET', `/api/title-companies/webhooks/${endpointId}/deliveries`)).statusCode).toBe(200);
  });

  it('never reaches another company’s endpoints (404), and a key without the scope is refused (403)', async () => {
    const mine = await kit.createCompany();
    const theirs = await kit.createCompany();
    const theirEndpoint = await kit.expectStatus(
      kit.call(theirs.staff, 'POST', `/api/title-companies/${theirs.id}/webhooks`, { url: publicUrl, events: ['job.created'] }),
      201,
    );
    const theirEndpointId = (theirEndpoint.json() as { endpoint: { id: string } }).endpoint.id;
    const key = await keyOf(mine, ['webhooks']);
    expect((await withKey(key, 'GET', `/api/title-companies/${theirs.id}/webhooks`)).statusCode).toBe(404);
    expect((await withKey(key, 'POST', `/api/title-companies/${theirs.id}/webhooks`, { url: publicUrl, events: ['job.created'] })).statusCode).toBe(404);
    expect((await withKey(key, 'GET', `/api/title-companies/webhooks/${theirEndpointId}/deliveries`)).statusCode).toBe(404);
    const readOnly = await keyOf(mine, ['jobs:read']);
    const refused = await withKey(readOnly, 'GET', `/api/title-companies/${mine.id}/webhooks`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'api_key_scope_missing' });
  });
});
