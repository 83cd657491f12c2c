import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/**
 * A notary whose profile says which zone they work in (or none). The profile is inserted by hand, not
 * with createNotary, because createNotary cannot set the profile's time zone.
 */
async function notaryIn(timeZone: string | null): Promise<Record<string, string>> {
  const user = await t.createUser({ roles: ['notary'] });
  await t.db.insert(notaryProfiles).values({
    userId: user.id,
    commissionState: 'IL',
    commissionNumber: `IL-${randomUUID().slice(0, 6)}`,
    commissionExpiresOn: '2031-06-30',
    county: 'Cook',
    approvalStatus: 'approved',
    timeZone,
  });
  return t.signInAs(user);
}

/** The calendar day `days` from today (UTC), e.g. "2026-12-03". */
const dayFromNow = (days: number) => new Date(Date.now() + days * 24 * 3600 * 1000).toISOString().slice(0, 10);
const post = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/availability', headers, payload: payload as Record<string, unknown> });

describe('POST /api/availability with a body of just { slots }', () => {
  it('takes ISO instants without a time zone and shows them in the zone of the notary’s profile', async () => {
    const day = dayFromNow(20);
    const res = await post(await notaryIn('America/Chicago'), { slots: [{ start: `${day}T15:00:00Z`, end: `${day}T17:00:00Z` }] });
    expect(res.statusCode, res.body).toBe(201);
    const [slot] = res.json().items;
    expect(slot).toMatchObject({ startsAt: `${day}T15:00:00.000Z`, endsAt: `${day}T17:00:00.000Z`, timeZone: 'America/Chicago' });
    expect(slot.localStart).toMatch(/T(09|10):00$/);
  });

  it('takes instants with an offset, and keeps UTC for a notary whose profile names no zone', async () => {
    const day = dayFromNow(21);
    const res = await post(await notaryIn(null), { slots: [{ start: `${day}T09:00:00+05:30`, end: `${day}T10:00:00.000+05:30` }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().items[0]).toMatchObject({
      startsAt: `${day}T03:30:00.000Z`,
      endsAt: `${day}T04:30:00.000Z`,
      timeZone: 'UTC',
      localStart: `${day}T03:30`,
    });
  });

  it('reads local times in the zone of the notary’s profile when the body names none', async () => {
    const day = dayFromNow(22);
    const res = await post(await notaryIn('Asia/Kolkata'), { slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().items[0]).toMatchObject({ startsAt: `${day}T03:30:00.000Z`, timeZone: 'Asia/Kolkata' });
  });

  it('still takes local times with a timeZone, which wins over the profile’s', async () => {
    const day = dayFromNow(23);
    const res = await post(await notaryIn('America/Chicago'), { timeZone: 'Asia/Kolkata', slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().items[0]).toMatchObject({ startsAt: `${day}T03:30:00.000Z`, timeZone: 'Asia/Kolkata' });
  });

  it('asks for a zone when local times come with none in the body or the profile', async () => {
    const day = dayFromNow(24);
    const res = await post(await notaryIn(null), { slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.stringMatching(/time zone/) });
  });

  it('still checks the slots’ rules on instants: an end before the start is refused', async () => {
    const day = dayFromNow(25);
    const res = await post(await notaryIn(null), { slots: [{ start: `${day}T17:00:00Z`, end: `${day}T15:00:00Z` }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('must end after it starts');
  });
});

describe('the time zone on the notary’s profile', () => {
  it('is set with PUT /api/notary/profile, shown in the profile, and refused when unknown', async () => {
    const headers = await notaryIn(null);
    const refused = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { timeZone: 'Mars/Olympus_Mons' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'validation_failed', message: 'Send a time zone such as America/Chicago; that one is not known.' });
    const saved = await t.app.inject({ method: 'PUT', url: '/api/notary/profile', headers, payload: { timeZone: 'Asia/Kolkata' } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ timeZone: 'Asia/Kolkata' });
    const day = dayFromNow(26);
    const res = await post(headers, { slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] });
    expect(res.json().items[0]).toMatchObject({ startsAt: `${day}T03:30:00.000Z`, timeZone: 'Asia/Kolkata' });
  });
});
