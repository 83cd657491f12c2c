import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** A notary approved before the full profile was asked for (decision 027 keeps them working), expiring in `days`. */
async function approvedNotary(days: number) {
  const expiresOn = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const user = await createNotary(t, { commissionExpiresOn: expiresOn });
  return { user, headers: await t.signInAs(user) };
}

describe('an approved notary’s profile', () => {
  it('lists nothing "missing before approval", only what they still need to seal: the approval is behind them', async () => {
    const { headers } = await approvedNotary(400);
    const res = await t.app.inject({ method: 'GET', url: '/api/notary/profile', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ approvalStatus: 'approved', missing: ['No signature is saved.', 'No initials are saved.'], warnings: [] });
  });

  it('still warns about a commission that expires soon', async () => {
    const { headers } = await approvedNotary(10);
    const profile = (await t.app.inject({ method: 'GET', url: '/api/notary/profile', headers })).json();
    expect(profile.missing).not.toContain('The commission start date is missing.');
    expect(profile.warnings).toEqual([expect.objectContaining({ item: 'commission', isExpired: false })]);
  });

  it('shows what is missing again once a new commission sends it back for approval', async () => {
    const { headers } = await approvedNotary(400);
    const res = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { commissionNumber: 'VA-NEW-1' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().approvalStatus).toBe('pending');
    expect(res.json().missing).toContain('The name as commissioned is missing.');
  });
});
