import ICAL from 'ical.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { emailOutbox, notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { scheduleMailOf } from './session-invites.ts';

let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let notary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await createNotary(t, { name: 'Nora Notary' });
  await t.db.update(notaryProfiles).set({ timeZone: 'America/Chicago' }).where(eq(notaryProfiles.userId, notary.id));
});
afterAll(async () => t?.close());

const scheduleMail = (address: string) =>
  t.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, address), eq(emailOutbox.kind, 'session_scheduled')))
    .orderBy(emailOutbox.createdAt);
const eventOf = (mail: { attachments: Array<{ content: string }> | null }) => {
  const calendar = new ICAL.Component(ICAL.parse(mail.attachments![0]!.content));
  return { method: calendar.getFirstPropertyValue('method'), event: new ICAL.Event(calendar.getFirstSubcomponent('vevent')!) };
};
const patch = async (job: Job, body: Record<string, unknown>) => {
  const current = await kit.getJob(agent, job.id);
  const res = await kit.call(agent, 'PATCH', `/api/jobs/${job.id}`, { ...body, version: current.version });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Job;
};

describe('the calendar mail of a job’s session', () => {
  it('invites the notary and every participant once the job is out of draft, updates them when it moves, and cancels it, one UID throughout', async () => {
    const signerEmail = uniqueEmail('sam');
    const job = await kit.createJob(agent, { title: 'Deed of trust', notaryId: notary.id, signers: [{ name: 'Sam Signer', email: signerEmail }] });
    await patch(job, { scheduledAt: '2026-12-03T15:00:00Z' });
    expect(await scheduleMail(signerEmail)).toEqual([]);
    await kit.uploadPdf(agent, job.id);
    await patch(job, { status: 'ready' });
    await patch(job, { scheduledAt: '2026-12-03T16:00:00Z' });
    await patch(job, { status: 'cancelled' });

    const signerMail = await scheduleMail(signerEmail);
    expect(signerMail.map((mail) => mail.subject)).toEqual([
      'Scheduled: the session of Deed of trust on Thursday, December 3, 3:00 PM UTC',
      'Moved: the session of Deed of trust is now Thursday, December 3, 4:00 PM UTC',
      'Called off: the session of Deed of trust',
    ]);
    const events = signerMail.map(eventOf);
    expect(events.map(({ method }) => method)).toEqual(['REQUEST', 'REQUEST', 'CANCEL']);
    expect(new Set(events.map(({ event }) => event.uid))).toEqual(new Set([`job-${job.id}@localhost`]));
    const sequences = events.map(({ event }) => event.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    expect(new Set(sequences).size).toBe(3);
    expect(events[1]!.event.startDate.toJSDate().toISOString()).toBe('2026-12-03T16:00:00.000Z');
    // Each invitation names only its own recipient: nobody learns another person's address from it.
    expect(events[1]!.event.attendees.map((attendee) => attendee.getFirstValue())).toEqual([`mailto:${signerEmail}`]);
    // The notary reads the time in the zone of their profile.
    expect((await scheduleMail(notary.email)).filter((mail) => mail.subject.includes('Deed of trust')).map((mail) => mail.subject)[0]).toBe(
      'Scheduled: the session of Deed of trust on Thursday, December 3, 9:00 AM CST',
    );
  });

  it('invites a participant added to an announced session, cancels the copy of one removed, and moves it from a replaced notary to the next', async () => {
    const job = await kit.createJob(agent, { title: 'Lease', notaryId: notary.id, signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    await kit.uploadPdf(agent, job.id);
    await patch(job, { scheduledAt: '2026-12-05T15:00:00Z' });
    await patch(job, { status: 'ready' });
    const witnessEmail = uniqueEmail('wes');
    const added = await kit.call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Wes Witness', email: witnessEmail, role: 'witness' });
    expect(added.statusCode, added.body).toBe(201);
    const removed = await kit.call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${(added.json() as { id: string }).id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    const witnessMail = (await scheduleMail(witnessEmail)).map(eventOf);
    expect(witnessMail.map(({ method }) => method)).toEqual(['REQUEST', 'CANCEL']);
    expect(new Set(witnessMail.map(({ event }) => event.uid))).toEqual(new Set([`job-${job.id}@localhost`]));

    const next = await createNotary(t, { name: 'Nia Next' });
    const replaced = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: next.id });
    expect(replaced.statusCode, replaced.body).toBe(200);
    const lease = (mail: Array<{ subject: string }>) => mail.filter((item) => item.subject.includes('Lease')).map((item) => item.subject);
    expect(lease(await scheduleMail(notary.email))).toEqual([
      'Scheduled: the session of Lease on Saturday, December 5, 9:00 AM CST',
      'Called off: the session of Lease',
    ]);
    expect(lease(await scheduleMail(next.email))).toEqual(['Scheduled: the session of Lease on Saturday, December 5, 3:00 PM UTC']);
  });

  it('sends nothing for a change that is no calendar news', () => {
    const at = new Date('2026-12-03T15:00:00Z');
    const job = { id: 'x', title: 'x', notaryId: null };
    expect(scheduleMailOf({ job, version: 2, before: { scheduledAt: null, status: 'draft' }, after: { scheduledAt: at, status: 'draft' } })).toBeNull();
    expect(scheduleMailOf({ job, version: 2, before: { scheduledAt: at, status: 'scheduled' }, after: { scheduledAt: at, status: 'in_session' } })).toBeNull();
    expect(scheduleMailOf({ job, version: 2, before: { scheduledAt: at, status: 'ready' }, after: { scheduledAt: at, status: 'scheduled' } })).toBeNull();
    expect(scheduleMailOf({ job, version: 2, before: { scheduledAt: at, status: 'ready' }, after: { scheduledAt: null, status: 'ready' } })).toMatchObject({
      method: 'CANCEL',
    });
    expect(scheduleMailOf({ job, version: 2, before: { scheduledAt: at, status: 'ready' }, after: { scheduledAt: at, status: 'draft' } })).toMatchObject({
      method: 'CANCEL',
    });
  });
});
