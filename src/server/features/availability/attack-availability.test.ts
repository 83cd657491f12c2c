import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCalendarDay } from '#shared/dates.ts';
import { notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { findOnlineNotaryIds } from './availability.service.ts';
import { createNotary as createNotaryFixture } from '#test/notary-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

type Approval = 'approved' | 'pending' | 'rejected' | 'deactivated';
let counter = 0;

/** A notary account with a commission on file in the given approval state. */
async function createNotary(approval: Approval = 'approved', commissionExpiresOn = '2031-06-30'): Promise<TestUser & { headers: Record<string, string> }> {
  counter += 1;
  const approvalStatus = approval === 'deactivated' ? 'approved' : approval;
  const user = await createNotaryFixture(t, {
    name: `Ada Attacker ${counter}`,
    state: 'TX',
    county: 'Travis',
    approvalStatus,
    isActive: approval !== 'deactivated',
    commissionExpiresOn,
  });
  return { ...user, headers: await t.headersFor(user) };
}

const toggle = (headers: Record<string, string>, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/notary-availability/toggle', headers, payload });

describe('attacks on live availability', () => {
  it('never counts a pending, rejected, deactivated or expired notary as online, whatever they send', async () => {
    const blocked = [
      await createNotary('pending'),
      await createNotary('rejected'),
      await createNotary('deactivated'),
      await createNotary('approved', '2020-01-01'),
    ];
    for (const notary of blocked) {
      const res = await toggle(notary.headers, { is_available: true, session_id: 'browser-x-0001' });
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
    expect(
      await findOnlineNotaryIds(
        t,
        blocked.map((notary) => notary.id),
      ),
    ).toEqual([]);
  });

  it('never counts a notary whose commission has not begun yet, and tells them when it begins', async () => {
    const notary = await createNotary();
    const tomorrow = new Date(Date.now() + 36 * 3600_000).toISOString().slice(0, 10);
    await t.db.update(notaryProfiles).set({ commissionStartsOn: tomorrow }).where(eq(notaryProfiles.userId, notary.id));
    const res = await toggle(notary.headers, { is_available: true, session_id: 'browser-w-0001' });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toBe(`Your notary commission begins on ${formatCalendarDay(tomorrow)}. Until that changes, you cannot go online.`);
    // Switched on before the date was known: still never counted.
    const { notaryPresence } = await import('#server/db/schema/index.ts');
    await t.db
      .insert(notaryPresence)
      .values({ notaryId: notary.id, isAvailable: true, lastHeartbeatAt: new Date(), sessionId: 'browser-w-0001' })
      .onConflictDoUpdate({ target: notaryPresence.notaryId, set: { isAvailable: true, lastHeartbeatAt: new Date() } });
    expect(await findOnlineNotaryIds(t, [notary.id])).toEqual([]);
  });

  it('takes a notary offline when their commission number changes after approval and the profile goes back to pending', async () => {
    const notary = await createNotary();
    expect((await toggle(notary.headers, { is_available: true, session_id: 'browser-y-0001' })).statusCode).toBe(200);
    await t.db.update(notaryProfiles).set({ approvalStatus: 'pending' }).where(eq(notaryProfiles.userId, notary.id));
    expect(await findOnlineNotaryIds(t, [notary.id])).toEqual([]);
  });

  it('refuses a signer going online as a notary', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const res = await toggle(await t.signInAs(signer), { is_available: true, session_id: 'browser-z-0001' });
    expect(res.statusCode).toBe(403);
  });
});
