import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles } from '#shared/roles.ts';
import { emailOutbox, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { uniqueEmail } from '#test/job-fixtures.ts';

let t: TestApp;
let admin: TestUser;
let adminHeaders: Record<string, string>;
let target: TestUser;
const logLines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', LOG_LEVEL: 'trace' }, { logStream: { write: (line) => void logLines.push(line) } });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  adminHeaders = await t.signInAs(admin);
  target = await t.createUser({ name: 'Tara Target', roles: ['signer', 'billing'] });
});
afterAll(async () => t?.close());

function send(method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = adminHeaders) {
  return t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) });
}

/** Every administrators' Users route, with a body that would change something if it were let through. */
const routesFor = (id: string): Array<[InjectOptions['method'], string, unknown]> => [
  ['GET', '/api/admin/users', undefined],
  ['GET', `/api/admin/users/${id}`, undefined],
  ['POST', '/api/admin/users', { name: 'Intruder Made', email: 'intruder-made@example.test', roles: ['admin'] }],
  ['PUT', `/api/admin/users/${id}`, { name: 'Hijacked Name', email: 'hijacked@example.test' }],
  ['DELETE', `/api/admin/users/${id}`, undefined],
  ['GET', `/api/admin/users/${id}/roles`, undefined],
  ['POST', `/api/admin/users/${id}/roles`, { role: 'admin' }],
  ['DELETE', `/api/admin/users/${id}/roles/billing`, undefined],
  ['POST', `/api/admin/users/${id}/reset-signature`, undefined],
  ['GET', `/api/admin/users/${id}/audit`, undefined],
];

async function expectTargetUntouched() {
  const [row] = await t.db
    .select({ name: users.name, email: users.email, roles: users.roles, status: users.status })
    .from(users)
    .where(eq(users.id, target.id));
  expect(row).toEqual({ name: 'Tara Target', email: target.email, roles: ['signer', 'billing'], status: 'active' });
  expect(await t.db.select().from(users).where(eq(users.email, 'intruder-made@example.test'))).toEqual([]);
}

describe('who may use the administrators’ Users routes', () => {
  it('answers 401 to an anonymous caller on every route and changes nothing', async () => {
    for (const [method, url, payload] of routesFor(target.id)) {
      const res = await send(method, url, payload, {});
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toEqual({ error: 'unauthorized', message: 'Please sign in to continue.' });
    }
    await expectTargetUntouched();
  });

  it('answers 403 to every role but administrator, the target themselves included, and changes nothing', async () => {
    const others = roles.filter((role) => role !== 'admin');
    expect(others).toHaveLength(8);
    for (const role of others) {
      const headers = await t.signInAs(await t.createUser({ roles: [role] }));
      for (const [method, url, payload] of routesFor(target.id)) {
        const res = await send(method, url, payload, headers);
        expect(res.statusCode, `${role}: ${method} ${url}`).toBe(403);
        expect(res.json()).toMatchObject({ error: 'forbidden' });
      }
    }
    const own = await t.signInAs(target);
    for (const [method, url, payload] of routesFor(target.id)) expect((await send(method, url, payload, own)).statusCode, `${method} ${url}`).toBe(403);
    await expectTargetUntouched();
  });

  it('refuses an administrator whose account is still pending approval', async () => {
    const pendingAdmin = await t.signInAs(await t.createUser({ roles: ['admin'], status: 'pending' }));
    for (const [method, url, payload] of routesFor(target.id)) {
      const res = await send(method, url, payload, pendingAdmin);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ error: 'pending_approval' });
    }
    await expectTargetUntouched();
  });

  it('refuses a cross-site request carrying the administrator’s session cookie', async () => {
    const token = adminHeaders.authorization?.slice('Bearer '.length) ?? '';
    for (const [method, url, payload] of routesFor(target.id).filter(([method]) => method !== 'GET')) {
      const res = await send(method, url, payload, { cookie: `ron_session=${token}`, origin: 'https://evil.example' });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toMatchObject({ error: 'cross_origin_refused' });
    }
    await expectTargetUntouched();
  });
});

describe('bad input to the Users routes', () => {
  it('answers 404 with a sentence for an id that is no account, on every route', async () => {
    for (const [method, url, payload] of routesFor(randomUUID()).filter(([, url]) => url !== '/api/admin/users')) {
      const res = await send(method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json(), `${method} ${url}`).toEqual({ error: 'not_found', message: 'No user with that id.' });
    }
  });

  it('answers 400 with a sentence for an id that is not a UUID, on every route', async () => {
    for (const id of ['not-a-uuid', '1', `${randomUUID()}x`, "' or 1=1 --"]) {
      for (const [method, url, payload] of routesFor(encodeURIComponent(id)).filter(([, url]) => url !== '/api/admin/users')) {
        const res = await send(method, url, payload);
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json(), `${method} ${url}`).toMatchObject({ error: 'validation_failed', message: 'User id must be a UUID.' });
      }
    }
  });

  const roleMessage = `Choose one of the roles: ${roles.join(', ')}.`;

  const badInputs: Array<[string, InjectOptions['method'], () => string, unknown, unknown]> = [
    ['an unknown role in the body', 'POST', () => `/api/admin/users/${target.id}/roles`, { role: 'superuser' }, roleMessage],
    ['a role in the wrong case', 'POST', () => `/api/admin/users/${target.id}/roles`, { role: 'Admin' }, roleMessage],
    ['no role at all', 'POST', () => `/api/admin/users/${target.id}/roles`, {}, roleMessage],
    ['an unknown role in the path', 'DELETE', () => `/api/admin/users/${target.id}/roles/superuser`, undefined, roleMessage],
    ['an unknown role in the search', 'GET', () => '/api/admin/users?role=root', undefined, roleMessage],
    [
      'an unknown status in the search',
      'GET',
      () => '/api/admin/users?status=deleted',
      undefined,
      'Choose one of the statuses: active, pending, disabled, rejected.',
    ],
    ['a page below 1', 'GET', () => '/api/admin/users?page=0', undefined, 'Pages start at 1.'],
    ['a page that is not a number', 'GET', () => '/api/admin/users?page=two', undefined, 'The page must be a whole number.'],
    ['a page size over 100', 'GET', () => '/api/admin/users?pageSize=1000', undefined, 'Ask for at most 100 at a time.'],
    ['a search over 200 characters', 'GET', () => `/api/admin/users?q=${'a'.repeat(201)}`, undefined, 'Search with at most 200 characters.'],
    [
      'a search holding a NUL',
      'GET',
      () => '/api/admin/users?q=a%00b',
      undefined,
      expect.stringMatching(/^Search with one line of text|holds a character that is not text/),
    ],
    [
      'a name holding a NUL',
      'POST',
      () => '/api/admin/users',
      { name: 'Eve\u0000Evil', email: 'nul@example.test' },
      expect.stringMatching(/^The name must be one line of text|not text/),
    ],
    [
      'a name over 120 characters',
      'POST',
      () => '/api/admin/users',
      { name: 'N'.repeat(121), email: 'long@example.test' },
      'The name must be at most 120 characters.',
    ],
    ['a name of a million characters', 'POST', () => '/api/admin/users', { name: 'N'.repeat(1_000_000), email: 'huge@example.test' }, expect.any(String)],
    [
      'a name on two lines',
      'POST',
      () => '/api/admin/users',
      { name: 'Eve\nBcc: x@y.z', email: 'lines@example.test' },
      expect.stringMatching(/^The name must be one line of text/),
    ],
    ['a blank name', 'POST', () => '/api/admin/users', { name: '   ', email: 'blank@example.test' }, 'Enter the person’s full name.'],
    ['no name', 'POST', () => '/api/admin/users', { email: 'noname@example.test' }, 'Enter the person’s full name.'],
    ['a name that is not text', 'POST', () => '/api/admin/users', { name: 42, email: 'number@example.test' }, 'The name must be text.'],
    ['no email', 'POST', () => '/api/admin/users', { name: 'No Email' }, 'Enter the person’s email address.'],
    ['an email that is no address', 'POST', () => '/api/admin/users', { name: 'Bad Email', email: 'not-an-address' }, 'Enter a valid email address.'],
    [
      'an email over 254 characters',
      'POST',
      () => '/api/admin/users',
      { name: 'Long Email', email: `${'a'.repeat(250)}@example.test` },
      'An email address has at most 254 characters.',
    ],
    [
      'an empty list of roles',
      'POST',
      () => '/api/admin/users',
      { name: 'No Roles', email: 'noroles@example.test', roles: [] },
      'Give the account at least one role.',
    ],
    [
      'roles that are not a list',
      'POST',
      () => '/api/admin/users',
      { name: 'One Role', email: 'onerole@example.test', roles: 'admin' },
      'Choose the roles as a list.',
    ],
    [
      'an unknown role in the list',
      'POST',
      () => '/api/admin/users',
      { name: 'Bad Role', email: 'badrole@example.test', roles: ['signer', 'root'] },
      roleMessage,
    ],
    ['an empty change', 'PUT', () => `/api/admin/users/${target.id}`, {}, 'Nothing to change.'],
    ['a status other than active or disabled', 'PUT', () => `/api/admin/users/${target.id}`, { status: 'rejected' }, 'Choose active or disabled.'],
    [
      'a name holding a NUL in a change',
      'PUT',
      () => `/api/admin/users/${target.id}`,
      { name: 'Tara\u0000' },
      expect.stringMatching(/^The name must be one line of text|not text/),
    ],
    ['a huge name in a change', 'PUT', () => `/api/admin/users/${target.id}`, { name: 'x'.repeat(5000) }, 'The name must be at most 120 characters.'],
    ['a bad email in a change', 'PUT', () => `/api/admin/users/${target.id}`, { email: 'tara@' }, 'Enter a valid email address.'],
  ];

  it.each(badInputs)('answers 400 with a sentence to %s, and changes nothing', async (_label, method, url, payload, message) => {
    const res = await send(method, url(), payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    await expectTargetUntouched();
  });

  it('answers 400 to a body that is not JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: '{"name": "Half',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
  });

  it('takes no status, password or hash smuggled into the body of a new account', async () => {
    const email = uniqueEmail('smuggler');
    const res = await send('POST', '/api/admin/users', {
      name: 'Smuggled Fields',
      email,
      status: 'pending',
      password: 'chosen by admin',
      passwordHash: 'x',
      emailVerifiedAt: '2020-01-01',
    });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await t.db.select().from(users).where(eq(users.email, email));
    expect(row).toMatchObject({ status: 'active', passwordHash: null, emailVerifiedAt: null });
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: 'chosen by admin' } })).statusCode).toBe(401);
  });
});

describe('secrets', () => {
  it('puts no password, hash or link token in any answer, and no token in any log line', async () => {
    const email = uniqueEmail('secret');
    const created = await send('POST', '/api/admin/users', { name: 'Secret Keeper', email, roles: ['signer'] });
    expect(created.statusCode).toBe(201);
    const id = created.json().user.id as string;
    const [mail] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, email), eq(emailOutbox.kind, 'account_created')));
    const token = mail?.textBody.match(/resetToken=([\w-]+)/)?.[1];
    if (!token) throw new Error('no invitation link was queued');
    const bodies = [created.body];
    const changed = await send('PUT', `/api/admin/users/${id}`, { email: uniqueEmail('secret-new') });
    bodies.push(changed.body);
    const [verification] = await t.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, changed.json().user.email as string), eq(emailOutbox.kind, 'email_verification')));
    const confirmationToken = verification?.textBody.match(/verify-email\/([\w-]+)/)?.[1];
    if (!confirmationToken) throw new Error('no confirmation link was queued');
    for (const [method, url, payload] of routesFor(id).filter(([method]) => method === 'GET')) bodies.push((await send(method, url, payload)).body);
    bodies.push((await send('GET', `/api/admin/users?q=${encodeURIComponent(target.name)}`)).body);
    const [hashed] = await t.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, target.id));
    for (const body of bodies) {
      expect(body).not.toContain(token);
      expect(body).not.toContain(confirmationToken);
      expect(body).not.toContain(hashed?.passwordHash ?? 'no hash');
      expect(body).not.toMatch(/"password(Hash)?"|argon2/i);
    }
    const logs = logLines.join('\n');
    expect(logs).toContain('account created by an administrator');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(confirmationToken);
  });
});
