import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { sessionCookieName } from '#server/lib/http.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
});
afterAll(async () => t?.close());

describe('attack round 1: which principal a key request is', () => {
  it('never lets a key borrow the cookie of a person, nor a lowercase scheme pass as a key, nor a key reach the calendar or a live channel', async () => {
    const company = await kit.createCompany();
    const made = await kit.expectStatus(
      kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/api-keys`, { name: 'Sync', scopes: ['jobs:read'] }),
      201,
    );
    const key = (made.json() as { key: string }).key;
    // The staff member's own session, as a browser would send it.
    const session = await t.signInAs(company.staff);
    const token = session.authorization?.replace(/^Bearer /, '') ?? '';
    expect(token).not.toBe('');
    const cookie = `${sessionCookieName}=${token}`;

    const calendarUrl = '/api/calendar?from=2026-12-01T00:00:00Z&to=2026-12-31T00:00:00Z';
    expect((await t.app.inject({ method: 'GET', url: calendarUrl, headers: { cookie } })).statusCode).toBe(200);
    // Key plus someone's cookie: the key is the principal, and the key may not read the calendar.
    const calendar = await t.app.inject({
      method: 'GET',
      url: calendarUrl,
      headers: { authorization: `Bearer ${key}`, cookie },
    });
    expect(calendar.statusCode).toBe(403);
    expect(calendar.json().error).toBe('api_key_not_allowed');
    for (const url of ['/api/calendar/feed', '/api/google/events', '/api/notifications/live', '/api/calendar/feed/abc.ics']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode, url).toBe(403);
    }
    // "bearer" in lower case is no key and no session: signed out.
    const lower = await t.app.inject({ method: 'GET', url: '/api/jobs', headers: { authorization: `bearer ${key}` } });
    expect(lower.statusCode).toBe(401);
  });
});
