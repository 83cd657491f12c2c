import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availabilitySlots } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';

let t: TestApp;
let notary: TestUser & { headers: Record<string, string> };
let otherNotary: TestUser & { headers: Record<string, string> };
let adminHeaders: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  const create = async (roles: TestUser['roles']) => {
    const user = await t.createUser({ roles });
    return { ...user, headers: await t.signInAs(user) };
  };
  notary = await create(['notary']);
  otherNotary = await create(['notary']);
  adminHeaders = (await create(['admin'])).headers;
});
afterAll(async () => t.close());

/** Kolkata is UTC+05:30 all year, so a local time's instant is plain arithmetic. */
const zone = 'Asia/Kolkata';
/** The calendar day `days` from today (UTC), e.g. "2026-12-03". */
function dayFromNow(days: number): string {
  return new Date(Date.now() + days * 24 * 3600 * 1000).toISOString().slice(0, 10);
}
const post = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/availability', headers, payload: payload as Record<string, unknown> });
const list = (headers: Record<string, string>, query = '') => t.app.inject({ method: 'GET', url: `/api/availability${query}`, headers });
const remove = (headers: Record<string, string>, id: string) => t.app.inject({ method: 'DELETE', url: `/api/availability/${id}`, headers });
const idsOf = async (headers: Record<string, string>, query = '') =>
  ((await list(headers, query)).json().items as Array<{ id: string }>).map((slot) => slot.id);

describe('scheduled availability', () => {
  it('stores slots given as local times in the notary’s zone as instants and lists them soonest first', async () => {
    const day = dayFromNow(10);
    const earlier = dayFromNow(9);
    const res = await post(notary.headers, {
      timeZone: zone,
      slots: [
        { start: `${day}T09:00`, end: `${day}T12:30` },
        { start: `${earlier}T14:00`, end: `${earlier}T15:00` },
      ],
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().items;
    expect(created).toEqual([
      {
        id: expect.any(String),
        notaryId: notary.id,
        startsAt: `${earlier}T08:30:00.000Z`,
        endsAt: `${earlier}T09:30:00.000Z`,
        timeZone: zone,
        localStart: `${earlier}T14:00`,
        localEnd: `${earlier}T15:00`,
        isPast: false,
      },
      {
        id: expect.any(String),
        notaryId: notary.id,
        startsAt: `${day}T03:30:00.000Z`,
        endsAt: `${day}T07:00:00.000Z`,
        timeZone: zone,
        localStart: `${day}T09:00`,
        localEnd: `${day}T12:30`,
        isPast: false,
      },
    ]);
    const listed = await list(notary.headers);
    expect(listed.statusCode).toBe(200);
    const items = listed.json().items as Array<{ id: string; startsAt: string }>;
    const ours = items.filter((slot) => created.some((c: { id: string }) => c.id === slot.id));
    expect(ours.map((slot) => slot.id)).toEqual(created.map((c: { id: string }) => c.id));
    const starts = items.map((slot) => slot.startsAt);
    expect(starts).toEqual([...starts].sort());
  });

  it('lists upcoming slots before past ones, which come latest first and marked past', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const headers = await t.signInAs(user);
    const hour = 3600 * 1000;
    const now = Date.now();
    await t.db.insert(availabilitySlots).values([
      { notaryId: user.id, startsAt: new Date(now - 48 * hour), endsAt: new Date(now - 47 * hour), timeZone: 'UTC' },
      { notaryId: user.id, startsAt: new Date(now - 24 * hour), endsAt: new Date(now - 23 * hour), timeZone: 'UTC' },
      { notaryId: user.id, startsAt: new Date(now + 48 * hour), endsAt: new Date(now + 49 * hour), timeZone: 'UTC' },
      { notaryId: user.id, startsAt: new Date(now + 24 * hour), endsAt: new Date(now + 25 * hour), timeZone: 'UTC' },
    ]);
    const items = (await list(headers)).json().items as Array<{ startsAt: string; isPast: boolean }>;
    expect(items.map((slot) => [Date.parse(slot.startsAt) - now, slot.isPast])).toEqual([
      [24 * hour, false],
      [48 * hour, false],
      [-24 * hour, true],
      [-48 * hour, true],
    ]);
  });

  it('accepts a slot that begins where another ends', async () => {
    const day = dayFromNow(20);
    expect((await post(notary.headers, { timeZone: zone, slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] })).statusCode).toBe(201);
    expect((await post(notary.headers, { timeZone: zone, slots: [{ start: `${day}T10:00`, end: `${day}T11:00` }] })).statusCode).toBe(201);
  });

  it('refuses a slot overlapping one the notary already holds, naming it, and adds none of the request', async () => {
    const day = dayFromNow(30);
    const first = await post(notary.headers, { timeZone: zone, slots: [{ start: `${day}T09:00`, end: `${day}T12:00` }] });
    expect(first.statusCode).toBe(201);
    const before = await idsOf(notary.headers);
    const res = await post(notary.headers, {
      timeZone: zone,
      slots: [
        { start: `${day}T13:00`, end: `${day}T14:00` },
        { start: `${day}T11:00`, end: `${day}T13:00` },
      ],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: `Slot 2 overlaps your slot ${day} 09:00–12:00 (${zone}).` });
    expect(await idsOf(notary.headers)).toEqual(before);
  });

  it('adds only one of two overlapping slots sent at the same moment', async () => {
    const day = dayFromNow(32);
    const results = await Promise.all([
      post(notary.headers, { timeZone: zone, slots: [{ start: `${day}T09:00`, end: `${day}T11:00` }] }),
      post(notary.headers, { timeZone: zone, slots: [{ start: `${day}T10:00`, end: `${day}T12:00` }] }),
    ]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 409]);
  });

  it('lets two notaries hold the same hours', async () => {
    const day = dayFromNow(31);
    const slot = { start: `${day}T09:00`, end: `${day}T12:00` };
    expect((await post(notary.headers, { timeZone: zone, slots: [slot] })).statusCode).toBe(201);
    expect((await post(otherNotary.headers, { timeZone: zone, slots: [slot] })).statusCode).toBe(201);
  });

  const day = dayFromNow(40);
  it.each([
    [
      'slots that overlap each other',
      {
        timeZone: zone,
        slots: [
          { start: `${day}T09:00`, end: `${day}T11:00` },
          { start: `${day}T10:00`, end: `${day}T12:00` },
        ],
      },
      'Slots 1 and 2 overlap.',
    ],
    ['an end before the start', { timeZone: zone, slots: [{ start: `${day}T12:00`, end: `${day}T09:00` }] }, 'The slot must end after it starts.'],
    ['an end equal to the start', { timeZone: zone, slots: [{ start: `${day}T12:00`, end: `${day}T12:00` }] }, 'The slot must end after it starts.'],
    ['a slot of ten minutes', { timeZone: zone, slots: [{ start: `${day}T12:00`, end: `${day}T12:10` }] }, 'The slot must last at least 15 minutes.'],
    ['a slot of thirteen hours', { timeZone: zone, slots: [{ start: `${day}T06:00`, end: `${day}T19:00` }] }, 'The slot may last at most 12 hours.'],
    [
      'an unknown time zone',
      { timeZone: 'Mars/Olympus_Mons', slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] },
      'Send a time zone such as America/Chicago; that one is not known.',
    ],
    [
      'local times with no time zone in the request or the profile',
      { slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] },
      'Local times need a time zone: send timeZone (such as America/Chicago), set your time zone in your profile, or send instants such as 2026-12-01T15:00:00Z.',
    ],
    [
      'a start that is neither a local time nor an instant',
      { timeZone: zone, slots: [{ start: `${day} 9am`, end: `${day}T10:00` }] },
      'Send the slot’s start as a local date and time such as 2026-12-01T09:00, or an instant such as 2026-12-01T15:00:00Z.',
    ],
    [
      'a day that does not exist',
      { timeZone: zone, slots: [{ start: '2027-02-30T09:00', end: '2027-02-30T10:00' }] },
      'The slot’s start is not a real date and time.',
    ],
    [
      'a time the clocks skip',
      { timeZone: 'America/Chicago', slots: [{ start: '2027-03-14T02:30', end: '2027-03-14T04:00' }] },
      'The slot: 2027-03-14 02:30 does not exist in America/Chicago (the clocks skip that hour).',
    ],
    ['no slots', { timeZone: zone, slots: [] }, 'Add at least one slot.'],
    [
      'twenty-one slots at once',
      {
        timeZone: zone,
        slots: Array.from({ length: 21 }, (_, index) => ({ start: `${dayFromNow(50 + index)}T09:00`, end: `${dayFromNow(50 + index)}T10:00` })),
      },
      'Add at most 20 slots at a time.',
    ],
  ])('refuses %s with a sentence', async (_case, payload, message) => {
    const before = await idsOf(notary.headers);
    const res = await post(notary.headers, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message });
    expect(await idsOf(notary.headers)).toEqual(before);
  });

  it('refuses a slot that starts in the past', async () => {
    const yesterday = dayFromNow(-1);
    const res = await post(notary.headers, { timeZone: 'UTC', slots: [{ start: `${yesterday}T09:00`, end: `${yesterday}T10:00` }] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'bad_request', message: `The slot starts in the past (${yesterday} 09:00–10:00 (UTC)); choose a time from now on.` });
  });

  it('refuses a slot more than a year ahead', async () => {
    const far = dayFromNow(400);
    const res = await post(notary.headers, { timeZone: 'UTC', slots: [{ start: `${far}T09:00`, end: `${far}T10:00` }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('The slot starts more than 366 days from now; add slots up to a year ahead.');
  });

  it('refuses slots beyond 200 upcoming ones', async () => {
    const user = await t.createUser({ roles: ['notary'] });
    const headers = await t.signInAs(user);
    const hour = 3600 * 1000;
    const base = Date.now() + 24 * hour;
    await t.db.insert(availabilitySlots).values(
      Array.from({ length: 199 }, (_, index) => ({
        notaryId: user.id,
        startsAt: new Date(base + index * hour),
        endsAt: new Date(base + index * hour + 30 * 60_000),
        timeZone: 'UTC',
      })),
    );
    const later = dayFromNow(300);
    const res = await post(headers, {
      timeZone: 'UTC',
      slots: [
        { start: `${later}T09:00`, end: `${later}T10:00` },
        { start: `${later}T11:00`, end: `${later}T12:00` },
      ],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'too_many_slots', message: 'You may hold at most 200 upcoming slots; you have 199. Remove some before adding more.' });
    expect((await post(headers, { timeZone: 'UTC', slots: [{ start: `${later}T09:00`, end: `${later}T10:00` }] })).statusCode).toBe(201);
  });

  it('deletes the notary’s own slot and answers 404 for someone else’s, which stays', async () => {
    const day = dayFromNow(60);
    const mine = (await post(notary.headers, { timeZone: zone, slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] })).json().items[0].id as string;
    const theirs = (await post(otherNotary.headers, { timeZone: zone, slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] })).json().items[0].id as string;

    const refused = await remove(notary.headers, theirs);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual({ error: 'not_found', message: 'No availability slot of yours with that id.' });
    expect(await idsOf(otherNotary.headers)).toContain(theirs);

    const deleted = await remove(notary.headers, mine);
    expect(deleted.statusCode).toBe(200);
    expect(await idsOf(notary.headers)).not.toContain(mine);
    expect((await remove(notary.headers, mine)).statusCode).toBe(404);
    expect((await remove(notary.headers, 'not-a-uuid')).json()).toMatchObject({ error: 'validation_failed', message: 'The slot id must be a UUID.' });
  });

  it('never shows a notary another notary’s slots', async () => {
    const theirs = await idsOf(otherNotary.headers);
    expect(theirs.length).toBeGreaterThan(0);
    const mine = await idsOf(notary.headers);
    expect(mine.some((id) => theirs.includes(id))).toBe(false);
    const res = await list(notary.headers, `?notaryId=${otherNotary.id}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', message: 'You can see only your own availability.' });
  });

  it('lets an administrator read a notary’s slots but not change them', async () => {
    const res = await list(adminHeaders, `?notaryId=${otherNotary.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((slot: { id: string }) => slot.id)).toEqual(await idsOf(otherNotary.headers));
    expect((await list(adminHeaders)).json()).toMatchObject({
      error: 'bad_request',
      message: 'Name the notary whose availability you want to see with ?notaryId=.',
    });
    const signer = await t.createUser({ roles: ['signer'] });
    expect((await list(adminHeaders, `?notaryId=${signer.id}`)).statusCode).toBe(404);
    expect((await list(adminHeaders, `?notaryId=${randomUUID()}`)).statusCode).toBe(404);
    const day = dayFromNow(70);
    expect((await post(adminHeaders, { timeZone: zone, slots: [{ start: `${day}T09:00`, end: `${day}T10:00` }] })).statusCode).toBe(403);
    const slotId = (await idsOf(otherNotary.headers))[0] ?? '';
    expect((await remove(adminHeaders, slotId)).statusCode).toBe(403);
  });

  it('refuses signers, title companies and signed-out callers', async () => {
    for (const roles of [['signer'], ['title'], ['witness']] as const) {
      const headers = await t.signInAs(await t.createUser({ roles: [...roles] }));
      for (const res of [await list(headers), await post(headers, { timeZone: zone, slots: [] }), await remove(headers, randomUUID())]) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
      }
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/availability' })).statusCode).toBe(401);
  });
});
