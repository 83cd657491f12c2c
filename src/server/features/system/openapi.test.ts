import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
let document: {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { securitySchemes: Record<string, unknown> };
};
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  document = res.json();
});
afterAll(async () => t?.close());

/** "/api/jobs/:id/signers/:sid" as OpenAPI writes it: "/api/jobs/{id}/signers/{sid}"; a group's root "/api/jobs/" as "/api/jobs". */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '');

describe('the generated API reference', () => {
  it('is a valid OpenAPI 3.1 document, served to anyone', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every API route with its access rule, its API key scope and its security', () => {
    const missing: string[] = [];
    const wrong: string[] = [];
    for (const route of t.app.apiRoutes) {
      const operation = document.paths[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
      const name = `${route.method} ${route.url}`;
      if (!operation) {
        missing.push(name);
        continue;
      }
      if (JSON.stringify(operation['x-access']) !== JSON.stringify(route.access)) wrong.push(`${name}: x-access ${JSON.stringify(operation['x-access'])}`);
      if ((operation['x-api-key-scope'] ?? null) !== route.apiKeyScope) wrong.push(`${name}: x-api-key-scope ${String(operation['x-api-key-scope'])}`);
      const security = operation.security as Array<Record<string, string[]>>;
      if (route.access === 'public' ? security.length !== 0 : !security.some((scheme) => 'sessionCookie' in scheme)) wrong.push(`${name}: security`);
      const keyScheme = security.find((scheme) => 'apiKey' in scheme);
      if (route.apiKeyScope ? keyScheme?.apiKey?.[0] !== route.apiKeyScope : keyScheme) wrong.push(`${name}: apiKey security`);
      if (!String(operation.description).includes('Who may call:')) wrong.push(`${name}: no access sentence`);
    }
    expect(missing).toEqual([]);
    expect(wrong).toEqual([]);
    expect(t.app.apiRoutes.length).toBeGreaterThan(100);
  });

  it('describes a route’s fields from its zod contract, and names the key scopes', () => {
    const create = document.paths['/api/title-companies/{id}/api-keys']?.post as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } } };
      parameters: Array<{ name: string; in: string }>;
    };
    const body = create.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(['name', 'scopes']);
    expect(body.required.sort()).toEqual(['name', 'scopes']);
    expect(body.properties.scopes).toMatchObject({ items: { enum: ['jobs:read', 'jobs:write', 'documents', 'webhooks'] } });
    expect(create.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path' })]);
    expect(document.paths['/api/jobs/{id}']?.get?.['x-api-key-scope']).toBe('jobs:read');
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'sessionCookie', 'sessionToken']);
    // Only /api routes: the web app's pages are no part of the API.
    expect(Object.keys(document.paths).every((path) => path.startsWith('/api/'))).toBe(true);
  });
});
