import ICAL from 'ical.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Calendar, CalendarEvent, CalendarFeed } from '#shared/calendar.ts';
import { toLocalDateTime } from '#shared/availability.ts';
import { auditEvents, availabilitySlots, sessionBookings, users } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';

let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let notary: TestUser;
let signer: TestUser;
let bookedJobId: string;
let loneJobId: string;
const sessionStart = new Date('2026-12-03T15:00:00Z');
const sessionEnd = new Date('2026-12-03T15:30:00Z');

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await createNotary(t, { name: 'Nora Notary' });
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer', isEmailVerified: true });
  const booked = await kit.createJob(agent, { title: 'Deed of trust', notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
  bookedJobId = booked.id;
  await readyAt(booked.id, sessionStart.toISOString());
  await t.db
    .insert(sessionBookings)
    .values({ jobId: booked.id, notaryId: notary.id, startsAt: sessionStart, endsAt: sessionEnd, timeZone: 'America/Chicago', sequence: 2 });
  const lone = await kit.createJob(agent, { title: 'Affidavit', notaryId: notary.id, signers: [{ name: 'Other Person', email: uniqueEmail('other') }] });
  loneJobId = lone.id;
  await readyAt(lone.id, '2026-12-04T16:00:00Z');
  // A draft's time is not announced yet: it stays off every calendar.
  const draft = await kit.createJob(agent, { title: 'Still a draft', notaryId: notary.id, signers: [{ name: 'Other Person', email: uniqueEmail('other') }] });
  expect((await kit.call(agent, 'PATCH', `/api/jobs/${draft.id}`, { scheduledAt: '2026-12-04T18:00:00Z', version: draft.version })).statusCode).toBe(200);
  await t.db
    .insert(availabilitySlots)
    .values({ notaryId: notary.id, startsAt: new Date('2026-12-05T14:00:00Z'), endsAt: new Date('2026-12-05T18:00:00Z'), timeZone: 'America/New_York' });
});
afterAll(async () => t?.close());

/** A job out of draft with its session at `at`: a document, the time, then ready. */
async function readyAt(jobId: string, at: string) {
  await kit.uploadPdf(agent, jobId);
  const job = await kit.getJob(agent, jobId);
  expect((await kit.call(agent, 'PATCH', `/api/jobs/${jobId}`, { scheduledAt: at, version: job.version })).statusCode).toBe(200);
  const timed = await kit.getJob(agent, jobId);
  const ready = await kit.call(agent, 'PATCH', `/api/jobs/${jobId}`, { status: 'ready', version: timed.version });
  expect(ready.statusCode, ready.body).toBe(200);
}

const december = 'from=2026-12-01T00:00:00Z&to=2027-01-01T00:00:00Z';
const calendarOf = async (user: TestUser, query = december) => {
  const res = await kit.call(user, 'GET', `/api/calendar?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Calendar;
};
const createEvent = async (user: TestUser, body: Record<string, unknown>) => {
  const res = await kit.call(user, 'POST', '/api/google/events', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as CalendarEvent;
};

describe('GET /api/calendar', () => {
  it('merges the notary’s sessions, slots and own events in the asked zone, each with a link to what it is about', async () => {
    const event = await createEvent(notary, {
      title: 'Dentist',
      start: '2026-12-03T08:00',
      end: '2026-12-03T09:00',
      timeZone: 'America/Chicago',
      notes: 'Bring the card',
    });
    const body = await calendarOf(notary, `${december}&timeZone=America/Chicago`);
    expect(body.timeZone).toBe('America/Chicago');
    expect(body.items.map((item) => [item.kind, item.title, item.localStart, item.localEnd, item.link])).toEqual([
      ['event', 'Dentist', '2026-12-03T08:00', '2026-12-03T09:00', null],
      ['session', 'Deed of trust', '2026-12-03T09:00', '2026-12-03T09:30', `/jobs/detail?jobId=${bookedJobId}`],
      ['session', 'Affidavit', '2026-12-04T10:00', null, `/jobs/detail?jobId=${loneJobId}`],
      ['availability', 'Available for notarizations', '2026-12-05T08:00', '2026-12-05T12:00', '/dashboard?tab=availability'],
    ]);
    expect(body.items[0]).toMatchObject({ id: event.id, notes: 'Bring the card', timeZone: 'America/Chicago' });
  });

  it('shows a signer the session of their job and nothing of the notary’s; a cancelled job leaves the calendar', async () => {
    expect((await calendarOf(signer)).items.map((item) => item.title)).toEqual(['Deed of trust']);
    const stranger = await t.createUser({ roles: ['title_agent'] });
    expect((await calendarOf(stranger)).items).toEqual([]);
    const lone = await kit.getJob(agent, loneJobId);
    const cancel = await kit.call(agent, 'PATCH', `/api/jobs/${loneJobId}`, { status: 'cancelled', version: lone.version });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect((await calendarOf(agent)).items.map((item) => item.title)).toEqual(['Deed of trust']);
  });

  it.each([
    ['', 'from must be an instant such as 2026-12-01T00:00:00Z.'],
    ['from=2026-12-05T00:00:00Z&to=2026-12-01T00:00:00Z', 'to must be after from.'],
    ['from=2026-01-01T00:00:00Z&to=2026-12-01T00:00:00Z', 'Ask for at most 62 days at a time.'],
    [`${december}&timeZone=Mars/Olympus`, 'Send a time zone such as America/Chicago; that one is not known.'],
    ['from=2026-02-30T00:00:00Z&to=2026-03-02T00:00:00Z', 'from must be an instant such as 2026-12-01T00:00:00Z.'],
  ])('refuses the range %j with a sentence', async (query, message) => {
    const res = await kit.call(notary, 'GET', `/api/calendar?${query}`);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain(message);
  });

  it('is for signed-in people only', async () => {
    expect((await t.app.inject({ method: 'GET', url: `/api/calendar?${december}` })).statusCode).toBe(401);
  });
});

describe('/api/google/events', () => {
  it('creates, lists, changes and deletes the person’s own events; each change raises the sequence the feed carries', async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const event = await createEvent(person, { title: 'Closing call', start: '2026-12-10T09:00', end: '2026-12-10T09:45', timeZone: 'America/Denver' });
    expect(event).toMatchObject({ startsAt: '2026-12-10T16:00:00.000Z', endsAt: '2026-12-10T16:45:00.000Z', timeZone: 'America/Denver', notes: null });
    const moved = await kit.call(person, 'PATCH', `/api/google/events/${event.id}`, { start: '2026-12-10T10:00', end: '2026-12-10T10:45', notes: 'Moved' });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({ startsAt: '2026-12-10T17:00:00.000Z', notes: 'Moved' });
    const list = await kit.call(person, 'GET', '/api/google/events?from=2026-12-01T00:00:00Z&to=2026-12-31T00:00:00Z');
    expect(list.json().items.map((item: CalendarEvent) => item.title)).toEqual(['Closing call']);
    expect((await kit.call(person, 'DELETE', `/api/google/events/${event.id}`)).statusCode).toBe(204);
    expect((await kit.call(person, 'GET', '/api/google/events')).json().items).toEqual([]);
  });

  it('answers 404 to anyone but the owner and changes nothing; 401 to anonymous callers', async () => {
    const owner = await t.createUser({ roles: ['notary'] });
    const event = await createEvent(owner, { title: 'Private', start: '2026-12-11T09:00', end: '2026-12-11T10:00', timeZone: 'UTC' });
    const admin = await t.createUser({ roles: ['admin'] });
    for (const other of [admin, signer]) {
      expect((await kit.call(other, 'PATCH', `/api/google/events/${event.id}`, { title: 'Mine now' })).statusCode).toBe(404);
      expect((await kit.call(other, 'DELETE', `/api/google/events/${event.id}`)).statusCode).toBe(404);
      expect((await kit.call(other, 'GET', '/api/google/events')).json().items.map((item: CalendarEvent) => item.id)).not.toContain(event.id);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/google/events', payload: { title: 'x' } })).statusCode).toBe(401);
    expect((await kit.call(owner, 'GET', '/api/google/events')).json().items).toEqual([expect.objectContaining({ title: 'Private' })]);
  });

  it.each([
    [
      { title: 'Skipped', start: '2027-03-14T02:30', end: '2027-03-14T03:30', timeZone: 'America/New_York' },
      '2027-03-14 02:30 does not exist in America/New_York (the clocks skip that hour).',
    ],
    [{ title: 'Backwards', start: '2026-12-10T10:00', end: '2026-12-10T09:00', timeZone: 'UTC' }, 'The event must end after it starts.'],
    [{ title: 'Too long', start: '2026-12-01T10:00', end: '2027-01-01T10:00', timeZone: 'UTC' }, 'An event may last at most 14 days.'],
    [{ title: 'Nul\u0000here', start: '2026-12-10T09:00', end: '2026-12-10T10:00', timeZone: 'UTC' }, 'one line'],
    [
      { title: 'Long notes', start: '2026-12-10T09:00', end: '2026-12-10T10:00', timeZone: 'UTC', notes: 'x'.repeat(2001) },
      'The notes must be at most 2000 characters.',
    ],
    [{ title: '', start: '2026-12-10T09:00', end: '2026-12-10T10:00', timeZone: 'UTC' }, 'Give the event a title.'],
    [{ title: 'No zone', start: '2026-12-10T09:00', end: '2026-12-10T10:00' }, 'time zone'],
  ])('refuses %j with a sentence and stores nothing', async (body, message) => {
    const person = await t.createUser({ roles: ['signer'] });
    const res = await kit.call(person, 'POST', '/api/google/events', body);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain(message);
    expect((await kit.call(person, 'GET', '/api/google/events')).json().items).toEqual([]);
  });
});

describe('the secret calendar feed', () => {
  const feedPath = (url: string) => new URL(url).pathname;
  const readIcs = (path: string) => t.app.inject({ method: 'GET', url: path });

  it('is shown once, parses as iCalendar, and keeps each event’s local time in its zone across the end of daylight saving time', async () => {
    const person = await t.createUser({ roles: ['notary'] });
    await createEvent(person, { title: 'Before the change', start: '2026-10-31T09:00', end: '2026-10-31T10:00', timeZone: 'America/New_York' });
    await createEvent(person, {
      title: 'After the change',
      start: '2026-11-02T09:00',
      end: '2026-11-02T10:00',
      timeZone: 'America/New_York',
      notes: 'Line one\nline two; with, commas',
    });
    const made = await kit.call(person, 'POST', '/api/calendar/feed');
    expect(made.statusCode).toBe(201);
    const feed = made.json() as CalendarFeed;
    expect(feed.url).toMatch(/^http:\/\/localhost:\d+\/api\/calendar\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
    expect((await kit.call(person, 'GET', '/api/calendar/feed')).json()).toEqual({ isActive: true, createdAt: feed.createdAt, lastReadAt: null });

    const res = await readIcs(feedPath(feed.url!));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    const calendar = new ICAL.Component(ICAL.parse(res.body));
    const events = calendar.getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
    const byTitle = new Map(events.map((event) => [event.summary, event]));
    const before = byTitle.get('Before the change')!;
    const after = byTitle.get('After the change')!;
    expect(before.startDate.toJSDate().toISOString()).toBe('2026-10-31T13:00:00.000Z');
    expect(after.startDate.toJSDate().toISOString()).toBe('2026-11-02T14:00:00.000Z');
    expect(toLocalDateTime(before.startDate.toJSDate(), 'America/New_York')).toBe('2026-10-31T09:00');
    expect(toLocalDateTime(after.startDate.toJSDate(), 'America/New_York')).toBe('2026-11-02T09:00');
    expect(after.description).toBe('Line one\nline two; with, commas');
    expect(new Set(events.map((event) => event.uid)).size).toBe(events.length);
    expect((await kit.call(person, 'GET', '/api/calendar/feed')).json().lastReadAt).not.toBeNull();
  });

  it('carries the notary’s booked session under the booking’s UID and SEQUENCE, and a session with no booked end as a start only', async () => {
    const made = (await kit.call(notary, 'POST', '/api/calendar/feed')).json() as CalendarFeed;
    const body = (await readIcs(feedPath(made.url!))).body;
    const events = new ICAL.Component(ICAL.parse(body)).getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
    const session = events.find((event) => event.summary === 'Notarization session: Deed of trust')!;
    const [booking] = await t.db.select().from(sessionBookings).where(eq(sessionBookings.jobId, bookedJobId));
    expect(session.uid).toBe(`booking-${booking!.id}@localhost`);
    expect(session.sequence).toBe(2);
    expect(session.endDate.toJSDate().toISOString()).toBe(sessionEnd.toISOString());
    const slot = events.find((event) => event.summary === 'Available for notarizations')!;
    expect(slot.component.getFirstPropertyValue('transp')).toBe('TRANSPARENT');
  });

  it('stops the old address when a new one is made or the feed is turned off, and answers an unknown or malformed address with 404', async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const first = (await kit.call(person, 'POST', '/api/calendar/feed')).json() as CalendarFeed;
    const second = (await kit.call(person, 'POST', '/api/calendar/feed')).json() as CalendarFeed;
    expect((await readIcs(feedPath(first.url!))).statusCode).toBe(404);
    expect((await readIcs(feedPath(second.url!))).statusCode).toBe(200);
    expect((await kit.call(person, 'DELETE', '/api/calendar/feed')).json()).toMatchObject({ isActive: false });
    const gone = await readIcs(feedPath(second.url!));
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('This calendar feed address is not in use. Make a new one on the Calendar page.');
    expect((await kit.call(person, 'DELETE', '/api/calendar/feed')).statusCode).toBe(404);
    for (const path of [
      '/api/calendar/feed/short.ics',
      `/api/calendar/feed/${'A'.repeat(43)}.ics`,
      `/api/calendar/feed/${'%00'.repeat(20)}`,
      `/api/calendar/feed/${'a'.repeat(200)}`,
    ]) {
      const res = await readIcs(path);
      expect([400, 404, 414]).toContain(res.statusCode);
      expect(res.json()).toHaveProperty('message');
    }
    const actions = (await t.db.select().from(auditEvents))
      .filter((event) => (event.data as { userId?: string }).userId === person.id)
      .map((event) => event.action);
    expect(actions).toEqual(['calendar.feed_created', 'calendar.feed_created', 'calendar.feed_revoked']);
  });

  it('stops answering for a deactivated account, and two people racing to make a feed leave one live address each', async () => {
    const person = await t.createUser({ roles: ['signer'] });
    const results = await Promise.all([kit.call(person, 'POST', '/api/calendar/feed'), kit.call(person, 'POST', '/api/calendar/feed')]);
    expect(results.map((res) => res.statusCode)).toEqual([201, 201]);
    const live = await Promise.all(results.map(async (res) => (await readIcs(feedPath((res.json() as CalendarFeed).url!))).statusCode));
    expect([...live].sort()).toEqual([200, 404]);
    const url = (results.find((_, index) => live[index] === 200) ?? results[0]!).json().url as string;
    await t.db.update(users).set({ status: 'disabled' }).where(eq(users.id, person.id));
    expect((await readIcs(feedPath(url))).statusCode).toBe(404);
  });
});
