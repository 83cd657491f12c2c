import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '#shared/roles.ts';
import type { ApiRoute } from '#server/app.ts';
import { buildApp } from '#server/app.ts';
import { sessions } from '#server/db/schema/index.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createInProcessRealtime } from '#server/providers/realtime/realtime.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** A concrete URL for a route pattern: every parameter becomes a fresh UUID (long enough for tokens too). */
function toUrl(route: ApiRoute): string {
  return route.url.replace(/:[A-Za-z_]+/g, () => randomUUID());
}

function call(route: ApiRoute, headers: Record<string, string> = {}) {
  const options: InjectOptions = { method: route.method as InjectOptions['method'], url: toUrl(route), headers };
  if (route.method !== 'GET' && route.method !== 'DELETE') options.payload = {};
  return t.app.inject(options);
}

function describeRoute(route: ApiRoute) {
  return `${route.method} ${route.url}`;
}

const restrictedRoutes = () => t.app.apiRoutes.filter((route): route is ApiRoute & { access: readonly Role[] } => Array.isArray(route.access));

async function signIn(user: TestUser): Promise<{ token: string; cookie: string }> {
  const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
  expect(res.statusCode).toBe(200);
  const token = res.json().sessionToken as string;
  return { token, cookie: `ron_session=${token}` };
}

describe('route access declarations', () => {
  it('collects every API route with the access it declares', () => {
    const routes = t.app.apiRoutes.map(describeRoute);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'GET /api/auth/me',
        'GET /api/notary/pending',
        'POST /api/title-companies/:id/approve',
        'POST /api/auth/forgot-password',
        'GET /api/auth/reset-password/validate',
        'POST /api/auth/reset-password',
        'POST /api/auth/2fa/verify',
        'POST /api/auth/mfa/backup/generate',
        'DELETE /api/auth/mfa/devices',
        'PUT /api/admin/users/:id/password',
      ]),
    );
    expect(
      t.app.apiRoutes.every((route) => route.access === 'public' || route.access === 'signed-in' || route.access === 'mfa' || Array.isArray(route.access)),
    ).toBe(true);
    expect(restrictedRoutes().length).toBeGreaterThan(0);
  });

  it('opens exactly the second-factor routes to a session that proved only the password', () => {
    const mfaRoutes = t.app.apiRoutes.filter((route) => route.access === 'mfa').map(describeRoute);
    expect(mfaRoutes.sort()).toEqual(
      [
        'GET /api/auth/mfa/status',
        'POST /api/auth/mfa/totp/setup/start',
        'POST /api/auth/mfa/totp/setup/verify',
        'POST /api/auth/mfa/verify',
        'POST /api/auth/mfa/email/request',
        'POST /api/auth/mfa/email/verify',
      ].sort(),
    );
  });

  it('refuses to build an app with an API route that does not say who may call it', async () => {
    const app = await buildApp(
      {
        db: t.db,
        dbKind: t.database.kind,
        config: t.config,
        realtime: createInProcessRealtime(),
        secretsKey: Buffer.alloc(32),
        storage: createLocalStorage(t.blobRoot),
      },
      { logger: false, isEmailDeliveryStarted: false },
    );
    try {
      expect(() => app.get('/api/unguarded', async () => ({ ok: true }))).toThrow(/GET \/api\/unguarded does not declare who may call it/);
      expect(() => app.get('/healthz', async () => ({ ok: true }))).not.toThrow();
    } finally {
      await app.close();
    }
  });
});

describe('the access guard on every route', () => {
  it('answers 401 unauthorized to an anonymous caller on every route that is not public', async () => {
    const guarded = t.app.apiRoutes.filter((route) => route.access !== 'public');
    expect(guarded.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const route of guarded) {
      const res = await call(route);
      const body = res.json();
      if (res.statusCode !== 401 || body.error !== 'unauthorized' || body.message !== 'Please sign in to continue.') {
        failures.push(`${describeRoute(route)} -> ${res.statusCode} ${res.body}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 forbidden to a signed-in signer on every route restricted to other roles', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const headers = await t.signInAs(signer);
    const routes = restrictedRoutes().filter((route) => !route.access.includes('signer'));
    expect(routes.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (const route of routes) {
      const res = await call(route, headers);
      if (res.statusCode !== 403 || res.json().error !== 'forbidden') failures.push(`${describeRoute(route)} -> ${res.statusCode} ${res.body}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 pending_approval to a pending account holding the right role on every restricted route', async () => {
    const headersByRole = new Map<Role, Record<string, string>>();
    const failures: string[] = [];
    for (const route of restrictedRoutes()) {
      const role = route.access[0];
      if (!role) throw new Error(`${describeRoute(route)} allows no role at all`);
      let headers = headersByRole.get(role);
      if (!headers) {
        headers = await t.signInAs(await t.createUser({ roles: [role], status: 'pending' }));
        headersByRole.set(role, headers);
      }
      const res = await call(route, headers);
      const body = res.json();
      if (res.statusCode !== 403 || body.error !== 'pending_approval' || body.message !== 'Your account is awaiting approval by an administrator.') {
        failures.push(`${describeRoute(route)} -> ${res.statusCode} ${res.body}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('lets an active account holding the right role past the guard on every restricted route', async () => {
    const headersByRole = new Map<Role, Record<string, string>>();
    const failures: string[] = [];
    for (const route of restrictedRoutes()) {
      const role = route.access[0] as Role;
      let headers = headersByRole.get(role);
      if (!headers) {
        headers = await t.signInAs(await t.createUser({ roles: [role] }));
        headersByRole.set(role, headers);
      }
      const res = await call(route, headers);
      if (res.statusCode === 401 || res.statusCode === 403 || res.statusCode >= 500) failures.push(`${describeRoute(route)} -> ${res.statusCode} ${res.body}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 401 mfa_required to a session awaiting its second factor on every signed-in route, and lets it reach the MFA routes', async () => {
    const user = await t.createUser({ roles: ['admin'] });
    const full = await t.signInAs(user);
    const { secret } = (await t.app.inject({ method: 'POST', url: '/api/auth/mfa/totp/setup/start', headers: full })).json();
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    expect((await t.app.inject({ method: 'POST', url: '/api/auth/mfa/totp/setup/verify', headers: full, payload: { token: code } })).statusCode).toBe(200);
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
    const pending = { authorization: `Bearer ${login.json().ticket as string}` };

    const failures: string[] = [];
    for (const route of t.app.apiRoutes.filter((candidate) => candidate.access !== 'public')) {
      const res = await call(route, pending);
      const isMfaRoute = route.access === 'mfa';
      const isRefused = res.statusCode === 401 && res.json().error === 'mfa_required';
      if (isMfaRoute ? res.statusCode === 401 || res.statusCode >= 500 : !isRefused) failures.push(`${describeRoute(route)} -> ${res.statusCode} ${res.body}`);
    }
    expect(failures).toEqual([]);
  });

  it('lets a pending account use routes open to any signed-in person', async () => {
    const pending = await t.createUser({ roles: ['notary'], status: 'pending' });
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: await t.signInAs(pending) });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ id: pending.id, status: 'pending', pendingApproval: 'notary' });
  });

  it('checks access before it reads the body, so an anonymous caller learns nothing about the body rules', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/api/notary/approve/not-a-uuid`, payload: 'not json', headers: { 'content-type': 'text/plain' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('guards HEAD requests like the GET route they mirror', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/notary/pending' });
    expect(res.statusCode).toBe(401);
  });
});

describe('session tokens', () => {
  it('answers 401 session_expired to a token past its expiry', async () => {
    const user = await t.createUser();
    const { token } = await signIn(user);
    await t.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.tokenHash, hashToken(token)));
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'session_expired', message: 'Your session has expired. Please sign in again.' });
  });

  it('answers 401 session_expired to a revoked token', async () => {
    const user = await t.createUser();
    const { token } = await signIn(user);
    await t.db
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(eq(sessions.tokenHash, hashToken(token)));
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'session_expired' });
  });

  it.each([
    ['an unknown token', `Bearer ${'x'.repeat(43)}`],
    ['a too-short token', 'Bearer abc'],
    ['an absurdly long token', `Bearer ${'y'.repeat(5000)}`],
  ])('answers 401 session_expired to %s', async (_label, authorization) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'session_expired' });
  });

  it('answers 401 session_expired to an unknown session cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie: `ron_session=${'z'.repeat(43)}` } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'session_expired' });
  });

  it('treats an Authorization header that is not a bearer token as no credential', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: 'unauthorized' });
  });
});

describe('cross-site request refusal', () => {
  let cookie: string;
  let token: string;
  beforeAll(async () => {
    ({ cookie, token } = await signIn(await t.createUser()));
  });

  const me = async () => t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });

  it('refuses a state-changing request that carries the session cookie but no Origin, and changes nothing', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'cross_origin_refused', message: 'This request came from another site and was refused.' });
    expect((await me()).statusCode).toBe(200);
  });

  it.each(['https://evil.example', 'http://localhost:4000', 'null', 'not a url'])('refuses a state-changing cookie request from Origin %s', async (origin) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie, origin } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'cross_origin_refused' });
    expect((await me()).statusCode).toBe(200);
  });

  it('refuses a foreign Origin even with a bearer token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}`, origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'cross_origin_refused' });
    expect((await me()).statusCode).toBe(200);
  });

  it('refuses PUT, PATCH and DELETE from a foreign Origin as well as POST', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/api/auth/me', headers: { cookie, origin: 'https://evil.example' } });
      expect(res.statusCode, method).toBe(403);
      expect(res.json().error, method).toBe('cross_origin_refused');
    }
  });

  it('lets a read with the session cookie through whatever its Origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie, origin: 'https://evil.example' } });
    expect(res.statusCode).toBe(200);
  });

  it('accepts a state-changing request from the public URL origin', async () => {
    const fresh = await signIn(await t.createUser());
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: fresh.cookie, origin: t.config.publicUrl } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('accepts a state-changing request whose Origin matches the Host header, default ports included', async () => {
    for (const [host, origin] of [
      ['ron.example.test', 'https://ron.example.test'],
      ['ron.example.test:8443', 'https://ron.example.test:8443'],
      ['localhost:80', 'http://localhost'],
      ['localhost:80', 'http://localhost:80'],
      ['ron.example.test:443', 'https://ron.example.test'],
    ] as const) {
      const fresh = await signIn(await t.createUser());
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: fresh.cookie, host, origin } });
      expect(res.statusCode, `${origin} on host ${host}`).toBe(200);
    }
  });

  it('accepts a state-changing request with a bearer token and no Origin', async () => {
    const fresh = await signIn(await t.createUser());
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${fresh.token}` } });
    expect(res.statusCode).toBe(200);
    const after = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${fresh.token}` } });
    expect(after.statusCode).toBe(401);
  });

  it('accepts a state-changing request with no credential and no Origin (nothing to forge)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout' });
    expect(res.statusCode).toBe(200);
  });
});

describe('response headers and unknown routes', () => {
  const expectSecurityHeaders = (headers: Record<string, unknown>) => {
    expect(headers['content-security-policy']).toEqual(expect.stringContaining("default-src 'self'"));
    expect(headers['content-security-policy']).toEqual(expect.stringContaining("frame-ancestors 'none'"));
    expect(headers['content-security-policy']).toEqual(expect.stringContaining("object-src 'none'"));
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('same-origin');
  };

  it('sends the security headers and no-store on a successful API response', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/system/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expectSecurityHeaders(res.headers);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('sends the security headers on refusals and on errors', async () => {
    for (const res of [
      await t.app.inject({ method: 'GET', url: '/api/auth/me' }),
      await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: '{', headers: { 'content-type': 'application/json' } }),
      await t.app.inject({ method: 'GET', url: '/api/does-not-exist' }),
    ]) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expectSecurityHeaders(res.headers);
    }
  });

  it('answers an unknown API route with a 404 in the error shape, without the query string', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/does-not-exist?secret=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No route GET /api/does-not-exist.' });
  });

  it('answers an unknown API route with a 404 for other methods too', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/does-not-exist', payload: {} });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No route POST /api/does-not-exist.' });
  });

  it('explains that the web app is not built when a page is asked for without a build', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: 'web_not_built', message: expect.stringContaining('npm run build') });
    expectSecurityHeaders(res.headers);
  });

  it('serves the public configuration to anyone, with the upload limit for documents the drop zones show', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/system/config' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ chatWidgetUrl: null, documentMaxBytes: t.config.documentMaxBytes });
  });
});
