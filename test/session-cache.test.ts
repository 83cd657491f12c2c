import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sessions } from '#server/db/schema/index.ts';
import { hashToken } from '#server/lib/crypto.ts';
import { createInProcessRealtime, type RealtimeProvider } from '#server/providers/realtime/realtime.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { completeNotaryProfile } from '#test/notary-fixtures.ts';

/**
 * Two instances of one deployment: one database, session caches kept coherent by the realtime
 * provider. With TEST_REDIS_URL each instance has its own Redis connections, as separate processes
 * would, so every invalidation below travels through Redis; otherwise they share one in-process bus.
 */
const isRedis = Boolean(process.env.TEST_REDIS_URL);
let sharedRealtime: RealtimeProvider | undefined;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  sharedRealtime = isRedis ? undefined : createInProcessRealtime();
  a = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000' }, { realtime: sharedRealtime });
  b = await createTestApp({}, { realtime: sharedRealtime, databaseOf: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await sharedRealtime?.close();
});

/**
 * How long another instance may take to hear a broadcast: a network hop through Redis (about a
 * millisecond), far below the 30-second cache lifetime it must beat. In-process it is instant.
 */
const propagationBoundMs = 1000;

/** Polls `check` until it passes or the propagation bound is over, and returns how long it took. */
async function within<T>(check: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await vi.waitFor(check, { timeout: propagationBoundMs, interval: 2 });
  return performance.now() - started;
}

const me = (app: TestApp, token: string) => app.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });

async function signIn(app: TestApp): Promise<string> {
  const user = await a.createUser();
  const res = await app.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
  return res.json().sessionToken as string;
}

describe('session cache across app instances', () => {
  it('runs the instances on the realtime provider the environment asks for', () => {
    expect(a.realtime.kind).toBe(isRedis ? 'redis' : 'in-process');
    expect(b.realtime.kind).toBe(a.realtime.kind);
    if (isRedis) expect(b.realtime).not.toBe(a.realtime);
    expect(b.db).toBe(a.db);
  });

  it('accepts on one instance a session created on the other', async () => {
    const token = await signIn(a);
    expect((await me(b, token)).statusCode).toBe(200);
  });

  it('serves a cached session for a while when a change bypasses the broadcast, which is why every change broadcasts', async () => {
    const token = await signIn(a);
    expect((await me(b, token)).statusCode).toBe(200);
    await a.db
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(eq(sessions.tokenHash, hashToken(token)));
    expect((await me(b, token)).statusCode).toBe(200);
    expect((await me(a, token)).statusCode).toBe(401);
  });

  it('refuses a token on instance B within moments of its logout on instance A, although B had it cached', async () => {
    const token = await signIn(a);
    expect((await me(b, token)).statusCode).toBe(200);
    expect((await me(a, token)).statusCode).toBe(200);
    const logout = await a.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { authorization: `Bearer ${token}` } });
    expect(logout.statusCode).toBe(200);
    expect((await me(a, token)).statusCode).toBe(401);
    const elapsed = await within(async () => {
      const onB = await me(b, token);
      expect(onB.statusCode).toBe(401);
      expect(onB.json()).toMatchObject({ error: 'session_expired' });
    });
    expect(elapsed).toBeLessThan(propagationBoundMs);
  });

  it('shows an approval made on instance A in /me on instance B within moments', async () => {
    const admin = await a.signInAs(await a.createUser({ roles: ['admin'] }));
    const registered = await a.app.inject({
      method: 'POST',
      url: '/api/auth/register/notary',
      payload: {
        name: 'Nia Notary',
        email: `nia-${Date.now()}@example.test`,
        password: 'notary password',
        commissionState: 'TX',
        commissionNumber: 'TX-9',
        commissionExpiresOn: '2030-01-31',
        county: 'Travis',
      },
    });
    const { user, sessionToken } = registered.json() as { user: { id: string }; sessionToken: string };
    expect((await me(b, sessionToken)).json().user.status).toBe('pending');
    await completeNotaryProfile(a.db, user.id);
    expect((await a.app.inject({ method: 'POST', url: `/api/notary/approve/${user.id}`, headers: admin })).statusCode).toBe(200);
    await within(async () => expect((await me(b, sessionToken)).json().user).toMatchObject({ status: 'active', pendingApproval: null }));
  });
});
