import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { roles } from '#shared/roles.ts';
import type { ApiRoute } from '#server/app.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

/**
 * A NUL cannot be stored in PostgreSQL text or jsonb, and a lone surrogate is not text at all (it
 * has no UTF-8 form). Wherever one arrives, in a body, a query or a path, the answer is 400 with a
 * sentence, never 500.
 */
const badValues = [
  ['NUL', 'a\u0000b'],
  ['a lone surrogate', 'a\ud800b'],
  ['a lone low surrogate', '\udc00'],
] as const;

let t: TestApp;
let everyone: TestUser;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp({
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '100000',
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '100000',
    PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: '100000',
    PASSWORD_RESETS_PER_EMAIL_PER_HOUR: '100000',
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '100000',
    EMAIL_CODES_PER_USER_PER_HOUR: '100000',
  });
  everyone = await t.createUser({ roles: [...roles], isEmailVerified: true });
  headers = await t.signInAs(everyone);
});
afterAll(async () => t?.close());

/** Sends a request as the all-roles user, signing in again if an earlier request ended the session. */
async function send(options: InjectOptions) {
  const first = await t.app.inject({ ...options, headers: { ...headers, ...options.headers } });
  if (first.statusCode !== 401 || first.json().error !== 'session_expired') return first;
  headers = await t.signInAs(everyone);
  return t.app.inject({ ...options, headers: { ...headers, ...options.headers } });
}

/** Percent-encodes text for a URL; a lone surrogate becomes the bytes a careless encoder sends for it (ED A0 80). */
function toUrlText(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd')).replace(/%EF%BF%BD/g, '%ED%A0%80');
}

function expectRefusal(res: { statusCode: number; body: string; json(): unknown }, what: string) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBe(400);
  const body = res.json() as { error?: unknown; message?: unknown };
  expect(typeof body.error, what).toBe('string');
  expect(typeof body.message, what).toBe('string');
  expect(String(body.message).length, what).toBeGreaterThan(10);
}

describe.each(badValues)('%s in a text field', (_name, bad) => {
  it('is refused with 400 on sign-in (email, password and the job ids)', async () => {
    const base = { email: everyone.email, password: everyone.password };
    for (const payload of [
      { ...base, email: bad },
      { ...base, email: `${bad}@example.test` },
      { ...base, password: bad },
      { ...base, jobId: bad },
      { ...base, signerId: bad },
    ]) {
      expectRefusal(await t.app.inject({ method: 'POST', url: '/api/auth/login', payload }), `login ${JSON.stringify(payload)}`);
    }
    // in a URL a lone surrogate can only arrive as bytes that decode to U+FFFD: only the NUL is left to refuse
    const byQuery = await t.app.inject({ method: 'POST', url: `/api/auth/login?jobId=${toUrlText(bad)}`, payload: base });
    if (bad.includes('\u0000')) expectRefusal(byQuery, 'login query');
    else expect(byQuery.statusCode, byQuery.body).toBeLessThan(500);
  });

  it('is refused with 400 on forgot-password', async () => {
    for (const email of [bad, `x${bad}@example.test`]) {
      expectRefusal(await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email } }), `forgot-password ${JSON.stringify(email)}`);
    }
  });

  it('is refused with 400 in a journal addendum and in every text of a journal finalize', async () => {
    const entryId = randomUUID();
    expectRefusal(await send({ method: 'POST', url: `/api/notary-log/entries/${entryId}/addenda`, payload: { text: `Corrected ${bad} fee` } }), 'addendum');
    const entry = {
      id: randomUUID(),
      signerAddress: '1 Main St, Richmond, VA',
      feeCents: 0,
      notes: 'Fine',
      documentType: 'Deed',
      credibleWitnesses: [{ name: 'Wendy Witness', address: '2 Main St' }],
    };
    const variants = [
      { signerAddress: `1 Main St ${bad}` },
      { notes: bad },
      { documentType: bad },
      { credibleWitnesses: [{ name: `Wendy ${bad}`, address: '2 Main St' }] },
      { credibleWitnesses: [{ name: 'Wendy Witness', address: `2 Main ${bad}` }] },
    ];
    for (const variant of variants) {
      expectRefusal(
        await send({ method: 'POST', url: `/api/notary-log/finalize/${randomUUID()}`, payload: { entries: [{ ...entry, ...variant }] } }),
        `finalize ${JSON.stringify(variant)}`,
      );
    }
  });
});

type JsonSchema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  minimum?: number;
  minItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
};

/** A value the schema most likely accepts, with every optional property filled in so each text field is reached. */
function sampleOf(schema: JsonSchema, depth = 0): unknown {
  if (depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return sampleOf(options.find((option) => option.type !== 'null') ?? options[0] ?? {}, depth + 1);
  if (schema.allOf?.[0]) return sampleOf(schema.allOf[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((candidate) => candidate !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, sampleOf(value, depth + 1)]));
    case 'array':
      return schema.items ? Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sampleOf(schema.items as JsonSchema, depth + 1)) : [];
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'string': {
      const byFormat: Record<string, string> = {
        uuid: randomUUID(),
        email: 'fuzz@example.test',
        date: '2030-01-02',
        'date-time': new Date().toISOString(),
        uri: 'https://example.test/',
      };
      if (schema.format && byFormat[schema.format]) return byFormat[schema.format];
      return 'Plain text value'.padEnd(schema.minLength ?? 0, 'x');
    }
    default:
      return 'Plain text value';
  }
}

/** Paths to the free-text strings in a sample (those the schema does not pin to a format, list or pattern). */
function textPaths(schema: JsonSchema, path: Array<string | number> = [], depth = 0): Array<Array<string | number>> {
  if (depth > 6 || schema.const !== undefined || schema.enum) return [];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return textPaths(options.find((option) => option.type !== 'null') ?? options[0] ?? {}, path, depth + 1);
  if (schema.allOf?.[0]) return textPaths(schema.allOf[0], path, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((candidate) => candidate !== 'null') : schema.type;
  if (type === 'object') return Object.entries(schema.properties ?? {}).flatMap(([key, value]) => textPaths(value, [...path, key], depth + 1));
  if (type === 'array' && schema.items) return textPaths(schema.items, [...path, 0], depth + 1);
  if (type === 'string' && !schema.format && !schema.pattern) return [path];
  return [];
}

function withValue(sample: unknown, path: Array<string | number>, value: string): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(sample) ? [...sample] : { ...(sample as object) }) as Record<string | number, unknown>;
  copy[head as string] = withValue(copy[head as string], rest, value);
  return copy;
}

function toJsonSchema(schema: unknown): JsonSchema | null {
  if (!schema || typeof schema !== 'object' || !('_zod' in schema)) return null;
  return z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** Routes whose work is a socket or a stream the fuzz cannot drive with one request. */
const isSkipped = (route: ApiRoute) => route.url.includes('/signal') || route.url.endsWith('/events') || route.url.includes('/logout');

describe('every registered route', () => {
  it('answers a NUL or a lone surrogate in any body or query text with 400 and a sentence, never 500', { timeout: 600_000 }, async () => {
    let tried = 0;
    const problems: string[] = [];
    /** Every answer is checked; the failures are listed together at the end. */
    const check = (what: string, assert: () => void) => {
      try {
        assert();
      } catch (error) {
        problems.push((error as Error).message.split('\n')[0] ?? what);
      }
    };
    for (const route of t.app.apiRoutes.filter((candidate) => !isSkipped(candidate))) {
      const url = route.url.replace(/:(\w+)/g, () => randomUUID());
      for (const [part, schema] of [
        ['body', toJsonSchema(route.schema.body)],
        ['querystring', toJsonSchema(route.schema.querystring)],
      ] as const) {
        if (!schema) continue;
        const sample = sampleOf(schema);
        for (const path of textPaths(schema)) {
          for (const [, bad] of badValues) {
            const changed = withValue(sample, path, `Some ${bad} text`);
            const options: InjectOptions =
              part === 'body'
                ? { method: route.method as InjectOptions['method'], url, payload: changed as Record<string, unknown> }
                : {
                    method: route.method as InjectOptions['method'],
                    url: `${url}?${Object.entries(changed as object)
                      .map(([key, value]) => `${key}=${toUrlText(String(value))}`)
                      .join('&')}`,
                  };
            const res = await send(options);
            tried += 1;
            const what = `${route.method} ${route.url} ${part}.${path.join('.')}`;
            check(what, () => {
              expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
              // percent-decoding cannot yield a lone surrogate (the bytes become U+FFFD), so a query only must not fail
              const isNul = bad.includes('\u0000');
              if (res.statusCode !== 401 && res.statusCode !== 403 && res.statusCode !== 415 && (part === 'body' || isNul)) expectRefusal(res, what);
            });
          }
        }
      }
      // a path parameter holding the character, where the route takes one
      if (route.url.includes(':')) {
        for (const [, bad] of badValues) {
          const res = await send({ method: route.method as InjectOptions['method'], url: route.url.replace(/:(\w+)/g, () => toUrlText(`x${bad}`)) });
          tried += 1;
          check(route.url, () => expect(res.statusCode, `${route.method} ${route.url} path: ${res.body.slice(0, 300)}`).toBeLessThan(500));
        }
      }
    }
    expect(problems).toEqual([]);
    expect(tried).toBeGreaterThan(200);
  });
});
