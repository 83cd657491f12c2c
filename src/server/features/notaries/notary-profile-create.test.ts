import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { completeNotaryProfile } from '#test/notary-fixtures.ts';

let t: TestApp;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
});
afterAll(async () => t.close());

const commission = { commissionState: 'TX', commissionNumber: 'TX-778812', county: 'Travis', commissionExpiresOn: '2030-03-31' };

/** A signer an administrator made a notary through the Users page: the role, and no commission on file. */
async function makeNotaryByRole(name: string): Promise<{ user: TestUser; headers: Record<string, string> }> {
  const user = await t.createUser({ roles: ['signer'], name });
  const given = await t.app.inject({
    method: 'POST',
    url: `/api/admin/users/${user.id}/roles`,
    headers: await t.headersFor(admin),
    payload: { role: 'notary' },
  });
  expect(given.statusCode, given.body).toBe(200);
  // A fresh sign-in, so the session carries the new role.
  return { user: { ...user, roles: ['signer', 'notary'] }, headers: await t.signInAs(user) };
}

describe('a notary whose role an administrator gave, without a commission on file', () => {
  it('reads a 404 the web can tell apart, then puts the commission on file, pending approval and in the pending list', async () => {
    const { user, headers } = await makeNotaryByRole('Rosa Role');
    const before = await t.app.inject({ method: 'GET', url: '/api/notary/profile', headers });
    expect(before.statusCode).toBe(404);
    expect(before.json()).toEqual({ error: 'notary_profile_missing', message: 'Enter your commission details to ask for approval.' });

    const created = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { ...commission, timeZone: 'America/Chicago' } });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({
      userId: user.id,
      name: 'Rosa Role',
      ...commission,
      timeZone: 'America/Chicago',
      approvalStatus: 'pending',
      isActive: true,
      commissionedName: null,
      bondAmountCents: null,
    });
    expect(created.json().missing).toContain('The name as commissioned is missing.');

    const after = await t.app.inject({ method: 'GET', url: '/api/notary/profile', headers });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ ...commission, approvalStatus: 'pending' });

    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'notary.profile_created'), eq(auditEvents.actorId, user.id)));
    expect(audit?.data).toMatchObject({
      notaryId: user.id,
      notaryName: 'Rosa Role',
      fields: expect.arrayContaining(['commissionState', 'commissionNumber', 'county', 'commissionExpiresOn', 'timeZone']),
    });

    const pending = await t.app.inject({ method: 'GET', url: '/api/notary/pending', headers: await t.headersFor(admin) });
    expect(pending.statusCode).toBe(200);
    expect(pending.json().items).toContainEqual(expect.objectContaining({ userId: user.id, name: 'Rosa Role', ...commission, approvalStatus: 'pending' }));

    // Saving again edits the row now on file: no second creation, no conflict.
    const edited = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { county: 'Hays' } });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json()).toMatchObject({ county: 'Hays', commissionNumber: 'TX-778812', approvalStatus: 'pending' });
    const rows = await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, user.id));
    expect(rows).toHaveLength(1);

    // Approved as any applicant is, once the rest of the profile is complete.
    await completeNotaryProfile(t.db, user.id);
    const approved = await t.app.inject({ method: 'POST', url: `/api/notary/approve/${user.id}`, headers: await t.headersFor(admin) });
    expect(approved.statusCode, approved.body).toBe(200);
    const mine = await t.app.inject({ method: 'GET', url: '/api/notary/profile', headers });
    expect(mine.json()).toMatchObject({ approvalStatus: 'approved', missing: [] });
  });

  it('refuses a commission without all four required fields, naming those missing, and keeps nothing', async () => {
    const { user, headers } = await makeNotaryByRole('Paula Partial');
    const none = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { timeZone: 'America/Chicago' } });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({
      error: 'bad_request',
      message: 'The commission details are not on file yet: enter the commissioning state, the commission number, the county and the commission expiry date.',
    });
    const some = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { commissionState: 'TX', commissionNumber: 'TX-1' } });
    expect(some.statusCode).toBe(400);
    expect(some.json().message).toBe('The commission details are not on file yet: enter the county and the commission expiry date.');
    expect(await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, user.id))).toHaveLength(0);
  });

  it('checks a new commission as an edit is checked: field rules and sensible dates', async () => {
    const { user, headers } = await makeNotaryByRole('Dora Dates');
    const badState = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { ...commission, commissionState: 'ZZ' } });
    expect(badState.statusCode).toBe(400);
    expect(badState.json().message).toContain('Choose the state of your commission.');
    const backwards = await t.app.inject({
      method: 'PUT',
      url: '/api/notary/profile',
      headers,
      payload: { ...commission, commissionStartsOn: '2031-01-01' },
    });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json().message).toBe('The commission must start before it expires.');
    const farOff = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { ...commission, commissionExpiresOn: '2200-01-01' } });
    expect(farOff.statusCode).toBe(400);
    expect(await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, user.id))).toHaveLength(0);
  });

  it('refuses a signer: 403 on reading or saving a notary profile, and nothing is created', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const headers = await t.headersFor(signer);
    const read = await t.app.inject({ method: 'GET', url: '/api/notary/profile', headers });
    expect(read.statusCode).toBe(403);
    const save = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: commission });
    expect(save.statusCode).toBe(403);
    expect(save.json().error).toBe('forbidden');
    expect(await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, signer.id))).toHaveLength(0);
    const anonymous = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', payload: commission });
    expect(anonymous.statusCode).toBe(401);
  });

  it('lets an administrator put the commission on file under the same rule, and no one else’s id', async () => {
    const { user } = await makeNotaryByRole('Ines Byadmin');
    const headers = await t.headersFor(admin);
    const read = await t.app.inject({ method: 'GET', url: `/api/notary/profile/${user.id}`, headers });
    expect(read.statusCode).toBe(404);
    expect(read.json()).toEqual({ error: 'notary_profile_missing', message: 'Ines Byadmin has not entered commission details yet.' });

    const partial = await t.app.inject({ method: 'PUT', url: `/api/notary/profile/${user.id}`, headers, payload: { commissionNumber: 'TX-5' } });
    expect(partial.statusCode).toBe(400);
    expect(partial.json().message).toBe(
      'The commission details are not on file yet: enter the commissioning state, the county and the commission expiry date.',
    );

    const created = await t.app.inject({ method: 'PUT', url: `/api/notary/profile/${user.id}`, headers, payload: commission });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json()).toMatchObject({ userId: user.id, ...commission, approvalStatus: 'pending' });
    const [audit] = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'notary.profile_created'), eq(auditEvents.actorId, admin.id)));
    expect(audit?.data).toMatchObject({ notaryId: user.id, notaryName: 'Ines Byadmin' });

    // An account without the notary role, or no account at all, has no profile to create.
    const signer = await t.createUser({ roles: ['signer'] });
    const notNotary = await t.app.inject({ method: 'PUT', url: `/api/notary/profile/${signer.id}`, headers, payload: commission });
    expect(notNotary.statusCode).toBe(404);
    expect(notNotary.json()).toEqual({ error: 'not_found', message: 'No notary with that id.' });
    const readSigner = await t.app.inject({ method: 'GET', url: `/api/notary/profile/${signer.id}`, headers });
    expect(readSigner.json()).toEqual({ error: 'not_found', message: 'No notary with that id.' });
    expect(await t.db.select().from(notaryProfiles).where(eq(notaryProfiles.userId, signer.id))).toHaveLength(0);
  });
});
