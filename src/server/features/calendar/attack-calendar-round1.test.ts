import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Calendar, CalendarFeed } from '#shared/calendar.ts';
import { redactUrlForLog } from '#server/lib/request-log.ts';
import { createCompanyKit } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail } from '#test/job-fixtures.ts';

describe('attack round 1: the feed address in the request log', () => {
  it('redacts the secret of a feed address (its last segment ends in .ics)', () => {
    const token = randomBytes(32).toString('base64url');
    // Logged for every feed read that is refused (429 when an office polls from one network) or slow.
    expect(redactUrlForLog(`/api/calendar/feed/${token}.ics`)).not.toContain(token);
  });
});

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let jobs: ReturnType<typeof createJobKit>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  jobs = createJobKit(t);
});
afterAll(async () => t?.close());

describe('attack round 1: a removed agent', () => {
  it('no longer sees the company’s sessions in the calendar or the feed once removed from the company', async () => {
    const company = await kit.createCompany();
    const job = await jobs.createJob(company.staff, {
      title: 'Company closing',
      scheduledAt: '2026-12-10T15:00:00Z',
      signers: [{ name: 'Sam Signer', email: uniqueEmail() }],
    });
    // Out of draft, so its time is on the calendars (decision 052).
    await jobs.uploadPdf(company.staff, job.id);
    const ready = await jobs.call(company.staff, 'PATCH', `/api/jobs/${job.id}`, {
      status: 'ready',
      version: (await jobs.getJob(company.staff, job.id)).version,
    });
    expect(ready.statusCode, ready.body).toBe(200);
    const range = 'from=2026-12-01T00:00:00Z&to=2027-01-01T00:00:00Z';
    const before = (await jobs.call(company.agent, 'GET', `/api/calendar?${range}`)).json() as Calendar;
    expect(before.items.map((item) => item.id)).toContain(`session-${job.id}`);
    const feed = (await jobs.call(company.agent, 'POST', '/api/calendar/feed')).json() as CalendarFeed;

    const removed = await kit.call(company.staff, 'DELETE', `/api/title-companies/agents/${await kit.membershipId(company.id, company.agent.id)}`);
    expect(removed.statusCode, removed.body).toBe(200);

    const after = await jobs.call(company.agent, 'GET', `/api/calendar?${range}`);
    if (after.statusCode === 200) expect((after.json() as Calendar).items).toEqual([]);
    const ics = await t.app.inject({ method: 'GET', url: new URL(feed.url!).pathname });
    expect(ics.body).not.toContain('Company closing');
  });
});
