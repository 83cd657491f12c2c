import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { completeNotaryProfile } from '#test/notary-fixtures.ts';
import { findOnlineNotaryIds } from '#server/features/availability/availability.service.ts';

let t: TestApp;
let kit: ReturnType<typeof createJobKit>;
beforeAll(async () => {
  t = await createTestApp({ REGISTRATIONS_PER_ADDRESS_PER_HOUR: '10000', LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t.close());

async function createCompleteNotary() {
  const notary = await kit.createNotary({ name: `Quinn ${randomUUID().slice(0, 4)}` });
  await completeNotaryProfile(t.db, notary.id, {});
  return notary;
}
const putProfile = async (who: TestUser, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers: await kit.headersFor(who), payload });

describe('attacks on the notary profile', () => {
  it('takes an online notary offline when they change their commission number after approval', async () => {
    const notary = await createCompleteNotary();
    const headers = await kit.headersFor(notary);
    const online = await t.app.inject({
      method: 'POST',
      url: '/api/notary-availability/toggle',
      headers,
      payload: { is_available: true, session_id: 'browser-p-0001' },
    });
    expect(online.statusCode, online.body).toBe(200);
    expect((await putProfile(notary, { commissionNumber: 'VA-SWAP-1' })).json()).toMatchObject({ approvalStatus: 'pending' });
    expect(await findOnlineNotaryIds(t, [notary.id])).toEqual([]);
  });

  it('refuses a notary approving themselves through the profile', async () => {
    const notary = await kit.createNotary({ name: 'Pat Pending' });
    const res = await putProfile(notary, { approvalStatus: 'approved', isActive: true });
    expect(res.statusCode).toBe(400);
    const self = await t.app.inject({ method: 'POST', url: `/api/notary/approve/${notary.id}`, headers: await kit.headersFor(notary) });
    expect(self.statusCode).toBe(403);
  });

  it('refuses control characters, negative amounts and a commission that starts after it expires', async () => {
    const notary = await createCompleteNotary();
    for (const payload of [
      { commissionedName: 'Quinn\u0000\u001b[31m Notary' },
      { commissionNumber: 'VA-1\r\nX-Injected: 1' },
      { bondAmountCents: -500 },
      { eoAmountCents: 1.5 },
      { commissionStartsOn: '2035-01-01', commissionExpiresOn: '2031-06-30' },
    ]) {
      const res = await putProfile(notary, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toHaveProperty('message');
    }
  });
});
