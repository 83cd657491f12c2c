import type { AddressInfo } from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { users } from '#server/db/schema/index.ts';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { uniqueEmail } from '#test/job-fixtures.ts';

let t: TestApp;
let admin: TestUser;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000' });
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

async function api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers?: Record<string, string>) {
  return t.app.inject({
    method,
    url,
    headers: headers ?? (await t.headersFor(admin)),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const rowOf = async (id: string) => (await t.db.select().from(users).where(eq(users.id, id)))[0];

function openSocket(path: string, headers: Record<string, string>) {
  const socket = new WebSocket(`${baseUrl}${path}`, { headers });
  const messages: string[] = [];
  socket.on('message', (data: Buffer) => messages.push(data.toString()));
  const closed = new Promise<number>((resolve) => socket.on('close', (code: number) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('unexpected-response', (_request, response) => reject(new Error(`refused ${response.statusCode}`)));
  });
  return { socket, messages, closed, opened };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a second factor for a role given while signed in', () => {
  let strict: TestApp;
  beforeAll(async () => {
    // The same deployment with administrators required to use a second factor: the administrator acts on the lenient instance.
    strict = await createTestApp({ MFA_REQUIRED_ROLES: 'admin', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' }, { databaseOf: t, realtime: t.realtime });
  });
  afterAll(async () => strict?.close());

  it('keeps a person just made an administrator out of the administrators’ routes until they pass a second factor', async () => {
    const promoted = await t.createUser({ roles: ['signer'], name: 'Pat Promoted' });
    const headers = await strict.signInAs(promoted);
    expect((await strict.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(403);
    // The administrator's own session began on the lenient instance; the grant is made where administrators need a second factor.
    const granted = await kitExpect(
      strict.app.inject({ method: 'POST', url: `/api/admin/users/${promoted.id}/roles`, headers: await t.headersFor(admin), payload: { role: 'admin' } }),
      200,
    );
    expect(granted.json().message).toBe('Pat Promoted now has the administrator role. They sign in again and set up a second factor before using it.');
    // A fresh sign-in would now stop at the second factor; the session that was open must not skip it.
    const fresh = await strict.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: promoted.email, password: promoted.password } });
    expect(fresh.json()).toMatchObject({ mfa_required: true, enrolled: false });
    const res = await strict.app.inject({ method: 'GET', url: '/api/admin/users', headers });
    expect(res.statusCode, res.body).toBe(401);
  });
});

async function kitExpect<Response extends { statusCode: number; body: string }>(response: Promise<Response>, status: number): Promise<Response> {
  const res = await response;
  expect(res.statusCode, res.body).toBe(status);
  return res;
}

describe('changing an account’s email to an address that differs only in case or spaces', () => {
  it('refuses another account’s address in upper case or with spaces around it (409), and changes nothing', async () => {
    const owner = await t.createUser({ email: uniqueEmail('owner') });
    const other = await t.createUser({ email: uniqueEmail('other'), isEmailVerified: true });
    for (const email of [owner.email.toUpperCase(), `  ${owner.email}  `, `\t${owner.email.toUpperCase()}\n`]) {
      const res = await api('PUT', `/api/admin/users/${other.id}`, { email });
      expect(res.statusCode, JSON.stringify(email)).toBe(409);
      expect(res.json().message).toContain('already exists');
    }
    const row = await rowOf(other.id);
    expect(row?.email).toBe(other.email);
    expect(row?.emailVerifiedAt).not.toBeNull();
  });

  it('treats the account’s own address in another case, or with spaces, as no change: it stays confirmed', async () => {
    const person = await t.createUser({ email: uniqueEmail('same'), isEmailVerified: true });
    const res = await kitExpect(api('PUT', `/api/admin/users/${person.id}`, { email: `  ${person.email.toUpperCase()} ` }), 200);
    expect(res.json().message).toBe('Nothing changed.');
    expect((await rowOf(person.id))?.emailVerifiedAt).not.toBeNull();
  });

  it('refuses a new account under a deactivated address given in another case with spaces, naming the deactivated account', async () => {
    const gone = await t.createUser({ email: uniqueEmail('gone') });
    await kitExpect(api('DELETE', `/api/admin/users/${gone.id}`), 200);
    const res = await kitExpect(api('POST', '/api/admin/users', { name: 'Second Go', email: ` ${gone.email.toUpperCase()} ` }), 409);
    expect(res.json().message).toContain('deactivated');
  });

  it('gives two accounts one address never, even when two administrators change two accounts to it at once', async () => {
    const second = await t.createUser({ roles: ['admin'] });
    const first = await t.createUser({ email: uniqueEmail('first') });
    const other = await t.createUser({ email: uniqueEmail('second') });
    const wanted = uniqueEmail('wanted');
    const answers = await Promise.all([
      api('PUT', `/api/admin/users/${first.id}`, { email: wanted }),
      api('PUT', `/api/admin/users/${other.id}`, { email: wanted.toUpperCase() }, await t.headersFor(second)),
    ]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expect(await t.db.select().from(users).where(eq(users.email, wanted))).toHaveLength(1);
  });
});

describe('a deactivated account’s open sockets and sessions', () => {
  it('has its personal channel told signed-out and closed, and its job socket closed, when an administrator deactivates it', async () => {
    const kit = createCompanyKit(t);
    const company = await kit.createCompany();
    const job = (await kit.expectStatus(kit.call(company.staff, 'POST', '/api/jobs', { title: 'Live deed', notarizationType: 'acknowledgment' }), 201)).json();
    const headers = await t.signInAs(company.agent);
    const personal = openSocket('/api/notifications/live', headers);
    const jobSocket = openSocket(`/api/jobs/${job.id as string}/live`, headers);
    await Promise.all([personal.opened, jobSocket.opened]);
    await kitExpect(api('DELETE', `/api/admin/users/${company.agent.id}`), 200);
    expect(await within(personal.closed, 5000, 'closing the personal channel')).toBe(4401);
    expect(personal.messages).toContain(JSON.stringify({ type: 'signed-out' }));
    expect(await within(jobSocket.closed, 5000, 'closing the job socket')).toBe(4401);
    const late = openSocket('/api/notifications/live', headers);
    await expect(late.opened).rejects.toThrow('refused 401');
  });

  it('does not bring back the sessions it had when the account is reactivated', async () => {
    const person = await t.createUser({ roles: ['billing'] });
    const headers = await t.signInAs(person);
    await kitExpect(api('PUT', `/api/admin/users/${person.id}`, { status: 'disabled' }), 200);
    await kitExpect(api('PUT', `/api/admin/users/${person.id}`, { status: 'active' }), 200);
    expect((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).statusCode).toBe(401);
    expect((await t.signInAs(person)).authorization).toMatch(/^Bearer /);
  });

  it('refuses a deactivated administrator’s very next call, though the session was just used', async () => {
    const other = await t.createUser({ roles: ['admin'] });
    const headers = await t.signInAs(other);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(200);
    await kitExpect(api('DELETE', `/api/admin/users/${other.id}`), 200);
    const res = await t.app.inject({ method: 'POST', url: '/api/admin/users/' + admin.id + '/roles', headers, payload: { role: 'notary' } });
    expect(res.statusCode).toBe(401);
    expect((await rowOf(admin.id))?.roles).toEqual(['admin']);
  });

  it('refuses a demoted administrator’s very next call', async () => {
    const other = await t.createUser({ roles: ['admin', 'signer'] });
    const headers = await t.signInAs(other);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(200);
    await kitExpect(api('DELETE', `/api/admin/users/${other.id}/roles/admin`), 200);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/users', headers })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: `/api/admin/users/${other.id}/roles`, headers, payload: { role: 'admin' } })).statusCode).toBe(403);
    expect((await rowOf(other.id))?.roles).toEqual(['signer']);
  });
});

describe('the last active administrator under races', () => {
  it('keeps one administrator when three remove one another in a circle at once, by deactivation and by role', async () => {
    const roster = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
    try {
      await roster.db
        .update(users)
        .set({ roles: ['signer'] })
        .where(sql`'admin' = any(${users.roles})`);
      const [a, b, c] = await Promise.all([0, 1, 2].map(() => roster.createUser({ roles: ['admin', 'signer'] })));
      if (!a || !b || !c) throw new Error('no administrators');
      const [ha, hb, hc] = await Promise.all([a, b, c].map((user) => roster.signInAs(user)));
      const answers = await Promise.all([
        roster.app.inject({ method: 'DELETE', url: `/api/admin/users/${b.id}`, headers: ha }),
        roster.app.inject({ method: 'DELETE', url: `/api/admin/users/${c.id}/roles/admin`, headers: hb }),
        roster.app.inject({ method: 'PUT', url: `/api/admin/users/${a.id}`, headers: hc, payload: { status: 'disabled' } }),
      ]);
      expect(answers.every((res) => res.statusCode < 500)).toBe(true);
      const active = await roster.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.status, 'active'), sql`'admin' = any(${users.roles})`));
      expect(active.length, answers.map((res) => `${res.statusCode} ${res.body}`).join(' | ')).toBeGreaterThanOrEqual(1);
    } finally {
      await roster.close();
    }
  });
});

describe('bad input to the Users routes', () => {
  it('answers a huge body with 413 and a sentence, and creates nothing', async () => {
    const email = uniqueEmail('huge');
    const res = await api('POST', '/api/admin/users', { name: 'x'.repeat(2_000_000), email });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect(await t.db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it('answers a wrong content type with 415 and a sentence', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/users',
      headers: { ...(await t.headersFor(admin)), 'content-type': 'text/plain' },
      payload: 'name=Eve&email=eve@example.test',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ message: expect.any(String) });
  });

  it('refuses roles given as a string, an unknown role, a role in another case, and a name with a NUL byte', async () => {
    for (const payload of [
      { name: 'Role String', email: uniqueEmail('s'), roles: 'admin' },
      { name: 'Role Root', email: uniqueEmail('r'), roles: ['root'] },
      { name: 'Role Case', email: uniqueEmail('c'), roles: ['ADMIN'] },
      { name: 'Nul\u0000Name', email: uniqueEmail('n') },
      { name: 'Over\u202Eride', email: uniqueEmail('o') },
    ]) {
      const res = await api('POST', '/api/admin/users', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
    for (const role of ['ADMIN', 'root', 'signer%00']) {
      expect((await api('DELETE', `/api/admin/users/${admin.id}/roles/${role}`)).statusCode, role).toBe(400);
    }
  });

  it('refuses a search with a NUL byte, a page size beyond 100, a negative page, and a role in another case', async () => {
    for (const query of ['q=a%00b', 'pageSize=1000000000', 'page=-1', 'role=ADMIN', 'status=deleted', 'q=' + 'z'.repeat(201)]) {
      const res = await api('GET', `/api/admin/users?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().message).toEqual(expect.any(String));
    }
  });

  it('takes no status, roles of its own choosing or id smuggled into a change of name', async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const res = await api('PUT', `/api/admin/users/${person.id}`, { name: 'Renamed Person', roles: ['admin'], id: admin.id, passwordHash: 'x' });
    expect([200, 400]).toContain(res.statusCode);
    const row = await rowOf(person.id);
    expect(row?.roles).toEqual(['signer']);
    expect((await rowOf(admin.id))?.name).toBe('Ada Admin');
  });
});
