import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { notaryProfiles, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { findOnlineNotaryIds, isNotaryOnline } from './availability.service.ts';
import { createNotary as createNotaryFixture } from '#test/notary-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());
afterEach(() => {
  vi.useRealTimers();
});

type Approval = 'approved' | 'pending' | 'rejected' | 'deactivated' | 'none';
let counter = 0;

/** A notary account with a commission on file in the given approval state (approved by default). */
async function createNotary(approval: Approval = 'approved', commissionExpiresOn = '2031-06-30'): Promise<TestUser & { headers: Record<string, string> }> {
  counter += 1;
  if (approval === 'none') {
    const user = await t.createUser({ roles: ['notary'], name: `Nia Notary ${counter}` });
    return { ...user, headers: await t.headersFor(user) };
  }
  const approvalStatus = approval === 'deactivated' ? 'approved' : approval;
  const user = await createNotaryFixture(t, {
    name: `Nia Notary ${counter}`,
    state: 'TX',
    county: 'Travis',
    approvalStatus,
    isActive: approval !== 'deactivated',
    commissionExpiresOn,
  });
  return { ...user, headers: await t.headersFor(user) };
}

const browserA = 'browser-a-0001';
const browserB = 'browser-b-0002';
const status = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/api/notary-availability/status', headers });
const toggle = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/notary-availability/toggle', headers, payload: payload as Record<string, unknown> });
const heartbeat = (headers: Record<string, string>, sessionId = browserA) =>
  t.app.inject({ method: 'POST', url: '/api/notary-availability/heartbeat', headers, payload: { session_id: sessionId } });
const isAvailable = async (headers: Record<string, string>) => {
  const res = await status(headers);
  expect(res.statusCode).toBe(200);
  return res.json().is_available as boolean;
};

describe('live availability', () => {
  it('shows a notary who never went online as offline and able to go online', async () => {
    const notary = await createNotary();
    const res = await status(notary.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      is_available: false,
      session_id: null,
      last_heartbeat_at: null,
      expires_at: null,
      heartbeat_interval_seconds: 30,
      can_go_online: true,
      reason: null,
    });
  });

  it('keeps a notary online across reloads once they turn availability on, and offline once they turn it off', async () => {
    const notary = await createNotary();
    const on = await toggle(notary.headers, { is_available: true, session_id: browserA });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ is_available: true, session_id: browserA, can_go_online: true });
    const reloaded = (await status(notary.headers)).json();
    expect(reloaded).toMatchObject({ is_available: true, session_id: browserA });
    expect(Date.parse(reloaded.expires_at) - Date.parse(reloaded.last_heartbeat_at)).toBe(90_000);
    expect(await isNotaryOnline(t, notary.id)).toBe(true);

    const off = await toggle(notary.headers, { is_available: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ is_available: false, session_id: null, expires_at: null });
    expect(await isAvailable(notary.headers)).toBe(false);
    expect(await isNotaryOnline(t, notary.id)).toBe(false);
  });

  it('refuses everyone but notaries and witnesses (decision 051) on every live-availability route', async () => {
    for (const roles of [['signer'], ['admin'], ['title']] as const) {
      const user = await t.createUser({ roles: [...roles] });
      const headers = await t.signInAs(user);
      for (const res of [await status(headers), await toggle(headers, { is_available: true, session_id: browserA }), await heartbeat(headers)]) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
      }
    }
    const pending = await t.createUser({ roles: ['notary'], status: 'pending' });
    const pendingStatus = await status(await t.signInAs(pending));
    expect(pendingStatus.statusCode).toBe(403);
    expect(pendingStatus.json()).toMatchObject({ error: 'pending_approval' });
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/notary-availability/status' });
    expect(anonymous.statusCode).toBe(401);
  });

  it.each([
    ['pending', '2031-06-30', 'Your notary profile is waiting for an administrator’s approval. Until that changes, you cannot go online.'],
    ['rejected', '2031-06-30', 'Your notary application was not approved. Until that changes, you cannot go online.'],
    ['none', '2031-06-30', 'Your notary commission is not on file yet, so you cannot go online. Complete your notary profile first.'],
    ['approved', '2020-01-31', 'Your notary commission expired on 2020-01-31; update it in your profile. Until that changes, you cannot go online.'],
    ['deactivated', '2031-06-30', 'An administrator deactivated your notary account; you take no new work. Until that changes, you cannot go online.'],
  ] as const)('refuses to put a notary whose application is %s (commission to %s) online, with the reason', async (approval, expiresOn, reason) => {
    const notary = await createNotary(approval, expiresOn);
    const res = await toggle(notary.headers, { is_available: true, session_id: browserA });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'cannot_go_online', message: reason });
    expect((await status(notary.headers)).json()).toMatchObject({ is_available: false, can_go_online: false, reason });
    expect(await isNotaryOnline(t, notary.id)).toBe(false);
  });

  it('counts a notary whose heartbeats stop as offline after 90 seconds, with nothing running, and a late heartbeat does not bring them back', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const notary = await createNotary();
    await toggle(notary.headers, { is_available: true, session_id: browserA });
    vi.setSystemTime(Date.now() + 89_000);
    expect(await isAvailable(notary.headers)).toBe(true);
    expect(await findOnlineNotaryIds(t, [notary.id])).toEqual([notary.id]);
    vi.setSystemTime(Date.now() + 2_000);
    expect(await isAvailable(notary.headers)).toBe(false);
    expect(await findOnlineNotaryIds(t, [notary.id])).toEqual([]);

    const late = await heartbeat(notary.headers);
    expect(late.statusCode).toBe(200);
    expect(late.json()).toMatchObject({ is_available: false, can_go_online: true });
    expect(await isAvailable(notary.headers)).toBe(false);
    // Turning the switch on again is what brings them back.
    expect((await toggle(notary.headers, { is_available: true, session_id: browserA })).json().is_available).toBe(true);
  });

  it('keeps a notary online for as long as their browser sends a heartbeat every 30 seconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const notary = await createNotary();
    await toggle(notary.headers, { is_available: true, session_id: browserA });
    for (let beat = 0; beat < 6; beat += 1) {
      vi.setSystemTime(Date.now() + 30_000);
      const res = await heartbeat(notary.headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ is_available: true, session_id: browserA });
    }
    vi.setSystemTime(Date.now() + 80_000);
    expect(await isAvailable(notary.headers)).toBe(true);
  });

  it('counts only the heartbeats of the browser that went online, and lets another browser take over by going online', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const notary = await createNotary();
    await toggle(notary.headers, { is_available: true, session_id: browserA });
    vi.setSystemTime(Date.now() + 60_000);
    const other = await heartbeat(notary.headers, browserB);
    expect(other.json()).toMatchObject({ is_available: true, session_id: browserA });
    vi.setSystemTime(Date.now() + 31_000);
    expect(await isAvailable(notary.headers)).toBe(false);

    const takeover = await toggle(notary.headers, { is_available: true, session_id: browserB });
    expect(takeover.json()).toMatchObject({ is_available: true, session_id: browserB });
    vi.setSystemTime(Date.now() + 60_000);
    await heartbeat(notary.headers, browserA);
    await heartbeat(notary.headers, browserB);
    vi.setSystemTime(Date.now() + 60_000);
    expect((await status(notary.headers)).json()).toMatchObject({ is_available: true, session_id: browserB });
  });

  it('takes a notary offline as soon as their approval is withdrawn or their account disabled, whatever the heartbeats', async () => {
    const withdrawn = await createNotary();
    const disabled = await createNotary();
    const stays = await createNotary();
    for (const notary of [withdrawn, disabled, stays]) await toggle(notary.headers, { is_available: true, session_id: browserA });
    await t.db.update(notaryProfiles).set({ approvalStatus: 'rejected' }).where(eq(notaryProfiles.userId, withdrawn.id));
    await t.db.update(users).set({ status: 'disabled' }).where(eq(users.id, disabled.id));
    expect((await findOnlineNotaryIds(t, [withdrawn.id, disabled.id, stays.id])).sort()).toEqual([stays.id]);
    expect(await isAvailable(withdrawn.headers)).toBe(false);
  });

  it('lists every online notary and no one else', async () => {
    const online = await createNotary();
    const offline = await createNotary();
    await createNotary();
    await toggle(online.headers, { is_available: true, session_id: browserA });
    await toggle(offline.headers, { is_available: true, session_id: browserA });
    await toggle(offline.headers, { is_available: false, session_id: browserA });
    const ids = await findOnlineNotaryIds(t);
    expect(ids).toContain(online.id);
    expect(ids).not.toContain(offline.id);
  });

  it.each([
    [{ is_available: true }, 'Send the session_id of the browser going online.'],
    [{ is_available: 'yes', session_id: browserA }, 'Send is_available as true (online) or false (offline).'],
    [{ is_available: true, session_id: 'short' }, 'The session_id must be 8 to 100 letters, digits, dashes or underscores.'],
    [{ is_available: true, session_id: 'has spaces in it' }, 'The session_id must be 8 to 100 letters, digits, dashes or underscores.'],
  ])('refuses the toggle %j with a sentence', async (payload, message) => {
    const notary = await createNotary();
    const res = await toggle(notary.headers, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    expect(await isAvailable(notary.headers)).toBe(false);
  });

  it('refuses a heartbeat that does not say which browser sends it', async () => {
    const notary = await createNotary();
    const res = await t.app.inject({ method: 'POST', url: '/api/notary-availability/heartbeat', headers: notary.headers, payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Send the session_id of the browser that went online.' });
  });
});
