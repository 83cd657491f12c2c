import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availabilitySlots, notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';

/** POST /api/availability with just {slots}, no timeZone and ISO instants, attacked. */

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

const post = (person: TestUser, payload: Record<string, unknown>) => kit.call(person, 'POST', '/api/availability', payload);
const slotsOf = async (notary: TestUser) => t.db.select().from(availabilitySlots).where(eq(availabilitySlots.notaryId, notary.id));
const inDays = (days: number, hour = 15) => {
  const date = new Date(Date.now() + days * 86_400_000);
  date.setUTCHours(hour, 0, 0, 0);
  return date;
};
const iso = (date: Date) => date.toISOString();

function expectRefused(res: { statusCode: number; body: string }, label: string) {
  expect([400, 409, 413], `${label}: ${res.body.slice(0, 300)}`).toContain(res.statusCode);
  expect(typeof JSON.parse(res.body).message, label).toBe('string');
}

describe('bad zones and times', () => {
  it('answers 400 with a sentence, never 500, to unknown, hostile and huge zones', async () => {
    const notary = await kit.createNotary();
    const slot = { start: '2027-01-05T09:00', end: '2027-01-05T10:00' };
    for (const timeZone of ['Mars/Olympus', '../../etc/passwd', 'America/Chicago\u0000', 'UTC\r\nX: y', 'a'.repeat(10_000), '', ' ', 'localtime', 42, null]) {
      expectRefused(await post(notary, { timeZone, slots: [slot] }), JSON.stringify(timeZone).slice(0, 30));
    }
    expect(await slotsOf(notary)).toEqual([]);
  });

  it('refuses a skipped local hour, an end before its start, overlaps, the past, far futures and impossible dates, with or without a zone', async () => {
    const notary = await kit.createNotary();
    const start = inDays(10);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['DST gap', { timeZone: 'America/New_York', slots: [{ start: '2027-03-14T02:30', end: '2027-03-14T03:30' }] }],
      ['end before start', { slots: [{ start: iso(new Date(start.getTime() + 3600_000)), end: iso(start) }] }],
      ['zero length', { slots: [{ start: iso(start), end: iso(start) }] }],
      [
        'overlapping',
        {
          slots: [
            { start: iso(start), end: iso(new Date(start.getTime() + 3600_000)) },
            { start: iso(new Date(start.getTime() + 1800_000)), end: iso(new Date(start.getTime() + 5400_000)) },
          ],
        },
      ],
      ['past', { slots: [{ start: '2001-01-01T00:00:00Z', end: '2001-01-01T01:00:00Z' }] }],
      ['year 0000', { slots: [{ start: '0000-01-01T00:00:00Z', end: '0000-01-01T01:00:00Z' }] }],
      ['far future', { slots: [{ start: '9999-12-31T22:00:00Z', end: '9999-12-31T23:00:00Z' }] }],
      ['30 February', { slots: [{ start: '2027-02-30T09:00:00Z', end: '2027-02-30T10:00:00Z' }] }],
      ['offset out of range', { slots: [{ start: '2027-01-05T09:00:00+99:99', end: '2027-01-05T10:00:00+99:99' }] }],
      ['hour 24', { slots: [{ start: '2027-01-05T24:00:00Z', end: '2027-01-05T25:00:00Z' }] }],
      ['local without any zone', { slots: [{ start: '2027-01-05T09:00', end: '2027-01-05T10:00' }] }],
      ['mixed local and instant without a zone', { slots: [{ start: '2027-01-05T09:00', end: '2027-01-05T10:00:00Z' }] }],
      ['seconds as numbers', { slots: [{ start: start.getTime(), end: start.getTime() + 3600_000 }] }],
      ['NUL inside', { slots: [{ start: `${iso(start)}\u0000`, end: iso(new Date(start.getTime() + 3600_000)) }] }],
      ['slots not a list', { slots: { start: iso(start) } }],
    ];
    for (const [label, payload] of cases) expectRefused(await post(notary, payload), label);
    expect(await slotsOf(notary)).toEqual([]);
  });

  it('refuses a huge array quickly (past the body limit or past the per-request limit), adding nothing', async () => {
    const notary = await kit.createNotary();
    for (const length of [20_000, 5_000]) {
      const many = Array.from({ length }, (_, index) => ({
        start: iso(new Date(inDays(2).getTime() + index * 7200_000)),
        end: iso(new Date(inDays(2).getTime() + index * 7200_000 + 3600_000)),
      }));
      const started = performance.now();
      expectRefused(await post(notary, { slots: many }), `${length} slots`);
      expect(performance.now() - started).toBeLessThan(5_000);
    }
    expect(await slotsOf(notary)).toEqual([]);
  });

  it('reads local times in the profile’s zone, and a profile zone that is no zone at all is not used', async () => {
    const notary = await kit.createNotary();
    await t.db.update(notaryProfiles).set({ timeZone: 'Not/AZone' }).where(eq(notaryProfiles.userId, notary.id));
    const start = inDays(5);
    const local = { start: `${iso(start).slice(0, 10)}T09:00`, end: `${iso(start).slice(0, 10)}T10:00` };
    expectRefused(await post(notary, { slots: [local] }), 'bad profile zone');
    await t.db.update(notaryProfiles).set({ timeZone: 'America/Chicago' }).where(eq(notaryProfiles.userId, notary.id));
    const res = await post(notary, { slots: [local] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().items[0]).toMatchObject({ timeZone: 'America/Chicago', localStart: local.start });
  });
});

describe('whose slots', () => {
  it('adds to the caller’s own slots whatever notaryId the body names, and refuses non-notaries', async () => {
    const notary = await kit.createNotary();
    const other = await kit.createNotary();
    const start = inDays(20);
    const res = await post(notary, {
      notaryId: other.id,
      userId: other.id,
      slots: [{ start: iso(start), end: iso(new Date(start.getTime() + 3600_000)), notaryId: other.id }],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await slotsOf(other)).toEqual([]);
    expect(await slotsOf(notary)).toHaveLength(1);
    for (const person of [await t.createUser({ roles: ['signer'] }), await t.createUser({ roles: ['title_agent'] })]) {
      expect((await post(person, { slots: [{ start: iso(start), end: iso(new Date(start.getTime() + 3600_000)) }] })).statusCode).toBe(403);
    }
    const slotId = (await slotsOf(notary))[0]?.id ?? '';
    expect((await kit.call(other, 'DELETE', `/api/availability/${slotId}`)).statusCode).toBe(404);
    expect((await kit.call(other, 'GET', `/api/availability?notaryId=${notary.id}`)).statusCode).toBe(403);
  });

  it('never lets two racing requests hold overlapping slots', async () => {
    const notary = await kit.createNotary();
    const start = inDays(30);
    const slot = (offsetMinutes: number) => ({
      start: iso(new Date(start.getTime() + offsetMinutes * 60_000)),
      end: iso(new Date(start.getTime() + (offsetMinutes + 60) * 60_000)),
    });
    const results = await Promise.all([post(notary, { slots: [slot(0)] }), post(notary, { slots: [slot(30)] }), post(notary, { slots: [slot(15)] })]);
    expect(results.filter((res) => res.statusCode === 201)).toHaveLength(1);
    expect(await slotsOf(notary)).toHaveLength(1);
  });
});
