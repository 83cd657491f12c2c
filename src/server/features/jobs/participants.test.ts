import { randomUUID } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, Participant } from '#shared/jobs.ts';
import { emailOutbox, jobParticipants } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';

let t: TestApp;
let agent: TestUser;
let notary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await createNotary(t);
});
afterAll(async () => t?.close());

const headersFor = (user: TestUser) => t.headersFor(user);

async function call(user: TestUser, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({ method, url, headers: await headersFor(user), ...(payload ? { payload } : {}) });
}

const email = (prefix = 'person') => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

async function createJob(signers: Array<{ name: string; email: string; role?: string }> = [{ name: 'Sam Signer', email: email('sam') }]): Promise<Job> {
  const res = await call(agent, 'POST', '/api/jobs', {
    title: `Closing ${randomUUID().slice(0, 6)}`,
    notarizationType: 'acknowledgment',
    signers,
    notaryId: notary.id,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

const getJob = async (id: string) => (await call(agent, 'GET', `/api/jobs/${id}`)).json() as Job;
const lastAuditEvent = async (id: string) => (await call(agent, 'GET', `/api/jobs/${id}/audit`)).json().events.at(-1);

async function mailsTo(address: string) {
  return t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address)).orderBy(desc(emailOutbox.createdAt));
}

function tokenIn(text: string | undefined): string {
  const token = text?.match(new RegExp(`${t.config.publicUrl}/claim/([\\w-]+)`))?.[1];
  if (!token) throw new Error('no claim link in the email');
  return token;
}

const inviteStatus = async (token: string) => (await t.app.inject({ method: 'GET', url: `/api/invites/${token}` })).statusCode;

/** Moves the participant's last email ten minutes and a bit into the past, as if time passed. */
async function letTenMinutesPass(participantId: string) {
  const earlier = new Date(Date.now() - 11 * 60_000);
  await t.db.update(jobParticipants).set({ invitedAt: earlier, lastRemindedAt: null }).where(eq(jobParticipants.id, participantId));
}

describe('POST /api/jobs/:id/signers', () => {
  it('adds a participant at the end, invites them and records it', async () => {
    const job = await createJob();
    const address = email('new');
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: '  Nina New ', email: address.toUpperCase(), role: 'observer' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.any(String),
      name: 'Nina New',
      email: address,
      role: 'observer',
      position: 1,
      hasAccount: false,
      isIdBypassed: false,
      idBypassReason: null,
      idBypassMethod: null,
      invitedAt: expect.any(String),
      lastRemindedAt: null,
    });
    const [mail] = await mailsTo(address);
    expect(mail).toMatchObject({ kind: 'job_invite', subject: `You are invited to observe "${job.title}"` });
    expect(await inviteStatus(tokenIn(mail?.textBody))).toBe(200);
    expect(await lastAuditEvent(job.id)).toMatchObject({
      action: 'participant.added',
      data: { participantId: res.json().id, email: address, role: 'observer' },
    });
    expect((await getJob(job.id)).participantCount).toBe(2);
  });

  it('adds a participant after the last one, also once someone earlier was removed', async () => {
    const job = await createJob([
      { name: 'First', email: email() },
      { name: 'Second', email: email() },
    ]);
    expect((await call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}`)).statusCode).toBe(200);
    const added = await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Third', email: email() });
    expect(added.statusCode).toBe(201);
    expect((await getJob(job.id)).participants.map((participant) => [participant.name, participant.position])).toEqual([
      ['Second', 1],
      ['Third', 2],
    ]);
  });

  it('refuses a person already on the job', async () => {
    const job = await createJob();
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Twin', email: job.participants[0]?.email });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'conflict', message: 'This person is already on the job.' });
    expect((await getJob(job.id)).participantCount).toBe(1);
  });

  it('refuses an eleventh participant', async () => {
    const job = await createJob(Array.from({ length: 10 }, (_, index) => ({ name: `Person ${index}`, email: email(`p${index}`) })));
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'One too many', email: email() });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'A job has at most 10 participants.' });
  });

  it('refuses a bad email or role with 400 and says what is wrong', async () => {
    const job = await createJob();
    const badEmail = await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Al', email: 'al@' });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json()).toMatchObject({ error: 'validation_failed', message: 'Enter a valid email address.' });
    const badRole = await call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Al', email: email(), role: 'notary' });
    expect(badRole.statusCode).toBe(400);
    expect(badRole.json()).toMatchObject({ error: 'validation_failed', detail: [{ path: 'role' }] });
  });
});

describe('PATCH and DELETE /api/jobs/:id/signers/:sid', () => {
  it('renames a participant without sending anything', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    const res = await call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${participant.id}`, { name: 'Samantha Signer' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: participant.id, name: 'Samantha Signer', email: participant.email });
    expect(await mailsTo(participant.email)).toHaveLength(1);
    expect(await lastAuditEvent(job.id)).toMatchObject({
      action: 'participant.updated',
      data: { participantId: participant.id, changes: { name: 'Samantha Signer' } },
    });
  });

  it('sends a new link to a changed address and stops the old one working', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    const oldToken = tokenIn((await mailsTo(participant.email))[0]?.textBody);
    const address = email('moved');
    const res = await call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${participant.id}`, { email: address });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: address, hasAccount: false });
    expect(await inviteStatus(oldToken)).toBe(404);
    const newToken = tokenIn((await mailsTo(address))[0]?.textBody);
    const invite = await t.app.inject({ method: 'GET', url: `/api/invites/${newToken}` });
    expect(invite.json()).toMatchObject({ email: address, jobId: job.id });
  });

  it('refuses to give a participant the address of another one', async () => {
    const job = await createJob([
      { name: 'One', email: email() },
      { name: 'Two', email: email() },
    ]);
    const [first, second] = job.participants as [Participant, Participant];
    const res = await call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${second.id}`, { email: first.email });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'This person is already on the job.' });
  });

  it('answers 400 to an empty change and 404 to a participant of another job', async () => {
    const job = await createJob();
    const other = await createJob();
    const empty = await call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'validation_failed', message: 'Nothing to change.' });
    const foreign = await call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${other.participants[0]?.id}`, { name: 'Nope' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ error: 'not_found', message: 'No participant with that id on this job.' });
    const deleteForeign = await call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${other.participants[0]?.id}`);
    expect(deleteForeign.statusCode).toBe(404);
    expect((await getJob(other.id)).participantCount).toBe(1);
  });

  it('removes a participant, whose invitation link then stops working', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    const token = tokenIn((await mailsTo(participant.email))[0]?.textBody);
    const res = await call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${participant.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(await getJob(job.id)).toMatchObject({ participantCount: 0, participants: [] });
    expect(await inviteStatus(token)).toBe(404);
    expect(await lastAuditEvent(job.id)).toMatchObject({ action: 'participant.removed', data: { participantId: participant.id, email: participant.email } });
  });
});

describe('POST /api/jobs/:id/signers/:sid/remind', () => {
  it('refuses a reminder within ten minutes of the last email with 429 and the wait', async () => {
    const job = await createJob();
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}/remind`, {});
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      error: 'reminder_too_soon',
      message: expect.stringMatching(/^Sam Signer was emailed less than 10 minutes ago\. Try again in (9|10) minutes\.$/),
      detail: { retryAfterSeconds: expect.any(Number) },
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(500);
    expect(await mailsTo(job.participants[0]?.email ?? '')).toHaveLength(1);
  });

  it('sends a fresh link once ten minutes have passed, and the previous link stops working', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    const firstToken = tokenIn((await mailsTo(participant.email))[0]?.textBody);
    await letTenMinutesPass(participant.id);
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/remind`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: participant.id, lastRemindedAt: expect.any(String) });
    const [reminder] = await mailsTo(participant.email);
    expect(reminder).toMatchObject({ kind: 'job_invite_reminder', subject: `Reminder: You are invited to sign "${job.title}"` });
    expect(await inviteStatus(firstToken)).toBe(404);
    expect(await inviteStatus(tokenIn(reminder?.textBody))).toBe(200);
    expect(await lastAuditEvent(job.id)).toMatchObject({ action: 'participant.reminded', data: { participantId: participant.id, sentTo: participant.email } });

    const again = await call(agent, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/remind`, {});
    expect(again.statusCode).toBe(429);
  });

  it('sends the reminder to another address when asked, for the same participant', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    await letTenMinutesPass(participant.id);
    const override = email('work');
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/remind`, { emailOverride: override.toUpperCase() });
    expect(res.statusCode).toBe(200);
    expect(res.json().email).toBe(participant.email);
    const [mail] = await mailsTo(override);
    expect(mail?.kind).toBe('job_invite_reminder');
    const invite = await t.app.inject({ method: 'GET', url: `/api/invites/${tokenIn(mail?.textBody)}` });
    expect(invite.json()).toMatchObject({ email: participant.email, jobId: job.id });
    expect(await lastAuditEvent(job.id)).toMatchObject({ action: 'participant.reminded', data: { sentTo: override } });
  });

  it('refuses a bad override address', async () => {
    const job = await createJob();
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}/remind`, { emailOverride: 'nobody' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Enter a valid email address.' });
  });

  it('has nothing to remind about on a cancelled job', async () => {
    const job = await createJob();
    await call(agent, 'PATCH', `/api/jobs/${job.id}`, { status: 'cancelled', version: job.version });
    await letTenMinutesPass(job.participants[0]?.id ?? '');
    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}/remind`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'conflict', message: 'The job is cancelled; there is nothing to remind about.' });
  });
});

describe('POST /api/jobs/:id/signers/remind', () => {
  it('reminds only those who have not accepted and were not emailed in the last ten minutes', async () => {
    const accepted = await t.createUser({ roles: ['signer'] });
    const job = await createJob([
      { name: 'Due', email: email('due') },
      { name: 'Recent', email: email('recent') },
      { name: accepted.name, email: accepted.email },
    ]);
    const [due, recent, member] = job.participants as [Participant, Participant, Participant];
    const token = tokenIn((await mailsTo(member.email))[0]?.textBody);
    expect((await call(accepted, 'POST', `/api/invites/${token}/accept`)).statusCode).toBe(200);
    await letTenMinutesPass(due.id);
    await letTenMinutesPass(member.id);

    const res = await call(agent, 'POST', `/api/jobs/${job.id}/signers/remind`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ reminded: 1, skipped: 2 });
    expect((await mailsTo(due.email)).map((mail) => mail.kind)).toContain('job_invite_reminder');
    expect((await mailsTo(recent.email)).map((mail) => mail.kind)).toEqual(['job_invite']);
    expect((await mailsTo(member.email)).map((mail) => mail.kind)).toEqual(['job_invite']);
    expect(await lastAuditEvent(job.id)).toMatchObject({ action: 'participants.reminded', data: { reminded: 1, skipped: 2 } });

    expect((await call(agent, 'POST', `/api/jobs/${job.id}/signers/remind`)).json()).toEqual({ reminded: 0, skipped: 3 });
  });
});

describe('POST /api/jobs/:id/signers/:sid/id-bypass', () => {
  it('lets the job’s notary waive identity verification with a reason, on the record', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    const res = await call(notary, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/id-bypass`, {
      enabled: true,
      reason: 'Personally known to the notary',
      method: 'personal_knowledge',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: participant.id, isIdBypassed: true, idBypassReason: 'Personally known to the notary' });
    expect(await lastAuditEvent(job.id)).toMatchObject({
      action: 'participant.id_bypass_changed',
      actorId: notary.id,
      data: { participantId: participant.id, enabled: true, reason: 'Personally known to the notary' },
    });
  });

  it('lets an administrator turn the waiver off again, which clears the reason', async () => {
    const job = await createJob();
    const participant = job.participants[0] as Participant;
    const admin = await t.createUser({ roles: ['admin'] });
    await call(admin, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/id-bypass`, { enabled: true, reason: 'Known', method: 'personal_knowledge' });
    const res = await call(admin, 'POST', `/api/jobs/${job.id}/signers/${participant.id}/id-bypass`, { enabled: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ isIdBypassed: false, idBypassReason: null });
  });

  it('needs a reason to waive verification', async () => {
    const job = await createJob();
    for (const reason of [undefined, '', '  ok ']) {
      const res = await call(notary, 'POST', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}/id-bypass`, {
        enabled: true,
        method: 'personal_knowledge',
        ...(reason === undefined ? {} : { reason }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'validation_failed',
        message: 'Give a reason for bypassing identity verification.',
        detail: [{ path: 'reason' }],
      });
    }
    expect((await getJob(job.id)).participants[0]?.isIdBypassed).toBe(false);
  });

  it('refuses the job’s own title agent and a signer on the job with 403, and records nothing', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await createJob([{ name: signer.name, email: signer.email }]);
    const token = tokenIn((await mailsTo(signer.email))[0]?.textBody);
    expect((await call(signer, 'POST', `/api/invites/${token}/accept`)).statusCode).toBe(200);
    const auditBefore = (await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json().events.length;
    for (const user of [agent, signer]) {
      const res = await call(user, 'POST', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}/id-bypass`, {
        enabled: true,
        reason: 'I say so',
        method: 'personal_knowledge',
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden' });
    }
    expect((await getJob(job.id)).participants[0]?.isIdBypassed).toBe(false);
    expect((await call(agent, 'GET', `/api/jobs/${job.id}/audit`)).json().events).toHaveLength(auditBefore);
  });

  it('hides the job from a notary who is not on it', async () => {
    const job = await createJob();
    const other = await t.createUser({ roles: ['notary'] });
    const res = await call(other, 'POST', `/api/jobs/${job.id}/signers/${job.participants[0]?.id}/id-bypass`, {
      enabled: true,
      reason: 'Looks fine',
      method: 'personal_knowledge',
    });
    expect(res.statusCode).toBe(404);
  });
});
