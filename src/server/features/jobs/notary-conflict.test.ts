import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { emailOutbox, jobParticipants, jobs, notarizedDocuments } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let notary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await kit.createNotary({ name: 'Nora Notary' });
});
afterAll(async () => t?.close());

const conflict = { error: 'notary_is_participant', message: 'The notary of a job cannot also be one of its signers, witnesses or observers.' };
const shout = (address: string) => address.toUpperCase();
const mailCount = async (address: string) => (await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address))).length;
const jobCount = async (user: TestUser) => (await kit.call(user, 'GET', '/api/jobs')).json().total as number;

describe('creating a job whose notary is one of its participants', () => {
  it.each(['signer', 'witness', 'observer'])('refuses a title agent naming the notary as a %s, by email in any case, and creates nothing', async (role) => {
    const before = await jobCount(agent);
    const res = await kit.call(agent, 'POST', '/api/jobs', {
      title: 'Self-dealing',
      notarizationType: 'acknowledgment',
      notaryId: notary.id,
      signers: [
        { name: 'Sam Signer', email: uniqueEmail('sam') },
        { name: 'Nora Herself', email: shout(notary.email), role },
      ],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect(await jobCount(agent)).toBe(before);
  });

  it('refuses a notary creating a job (which makes them its notary) that lists their own email as a signer', async () => {
    const [jobsBefore, mailsBefore] = [await jobCount(notary), await mailCount(notary.email)];
    const res = await kit.call(notary, 'POST', '/api/jobs', {
      title: 'My own deed',
      notarizationType: 'acknowledgment',
      signers: [{ name: 'Me', email: notary.email }],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect(await jobCount(notary)).toBe(jobsBefore);
    expect(await mailCount(notary.email)).toBe(mailsBefore);
  });

  it('lets a notary create a job for their own document when another notary is chosen', async () => {
    const other = await kit.createNotary();
    const job = await kit.createJob(notary, { notaryId: other.id, signers: [{ name: 'Me', email: notary.email }] });
    expect(job).toMatchObject({ notaryId: other.id, participants: [{ email: notary.email, role: 'signer' }] });
  });
});

describe('adding or changing a participant into the notary', () => {
  it('refuses the job’s notary inviting their own email as a signer, and sends no invitation', async () => {
    const job = await kit.createJob(notary, { signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    expect(job.notaryId).toBe(notary.id);
    const mailsBefore = await mailCount(notary.email);
    const res = await kit.call(notary, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Nora Notary', email: shout(notary.email) });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect((await kit.getJob(notary, job.id)).participantCount).toBe(1);
    expect(await mailCount(notary.email)).toBe(mailsBefore);
  });

  it('refuses the creator adding the assigned notary as a witness', async () => {
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/signers`, { name: 'Nora', email: notary.email, role: 'witness' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect((await kit.getJob(agent, job.id)).version).toBe(job.version);
  });

  it('refuses changing a participant’s email to the notary’s and keeps the old one', async () => {
    const original = uniqueEmail('sam');
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: 'Sam Signer', email: original }] });
    const participant = job.participants[0] as Job['participants'][number];
    const res = await kit.call(agent, 'PATCH', `/api/jobs/${job.id}/signers/${participant.id}`, { email: shout(notary.email) });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect((await kit.getJob(agent, job.id)).participants[0]).toMatchObject({ id: participant.id, email: original });
  });
});

describe('assigning a notary who is one of the participants', () => {
  it('refuses assigning a notary whose email is on the job, in any case', async () => {
    const colleague = await kit.createNotary();
    const job = await kit.createJob(agent, { signers: [{ name: 'Col League', email: shout(colleague.email), role: 'witness' }] });
    const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: colleague.id });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect(await kit.getJob(agent, job.id)).toMatchObject({ notaryId: null, version: job.version });
    expect((await kit.call(colleague, 'GET', `/api/jobs/${job.id}`)).statusCode).toBe(404);
  });

  it('refuses assigning a notary who accepted an invitation to sign the job', async () => {
    const signingNotary = await kit.createNotary();
    const job = await kit.createJob(agent, { signers: [{ name: 'Sig Notary', email: signingNotary.email }] });
    expect((await kit.acceptInvitation(signingNotary)).statusCode).toBe(200);
    const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: signingNotary.id });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect((await kit.getJob(agent, job.id)).notaryId).toBeNull();
  });
});

describe('rows written before the rule existed', () => {
  it('refuses the job’s notary accepting an invitation sent to their own email, and leaves it unused', async () => {
    const invited = await kit.createNotary();
    const job = await kit.createJob(agent, { signers: [{ name: 'Ina Invited', email: invited.email }] });
    await t.db.update(jobs).set({ notaryId: invited.id }).where(eq(jobs.id, job.id));
    const token = await kit.invitationTokenFor(invited.email);
    const res = await kit.call(invited, 'POST', `/api/invites/${token}/accept`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    const [participant] = await t.db.select().from(jobParticipants).where(eq(jobParticipants.jobId, job.id));
    expect(participant?.userId).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: `/api/invites/${token}` })).statusCode).toBe(200);
  });

  it('refuses to start the session of a job whose notary is one of its signers', async () => {
    const job = await kit.createJob(notary, { signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    await kit.uploadPdf(notary, job.id);
    const ready = await kit.moveJob(notary, job.id, ['ready']);
    await t.db.insert(jobParticipants).values({ jobId: job.id, name: 'Nora Herself', email: notary.email, role: 'witness', position: 1 });
    const res = await kit.call(notary, 'PATCH', `/api/jobs/${job.id}`, { status: 'in_session', version: ready.version });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect(await kit.getJob(notary, job.id)).toMatchObject({ status: 'ready', version: ready.version });
  });

  it('refuses to seal a job whose notary is one of its signers, and leaves it in session', async () => {
    const job = await kit.createJob(notary, { signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    const documentId = await kit.uploadPdf(notary, job.id);
    await kit.moveJob(notary, job.id, ['ready', 'in_session']);
    expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`)).statusCode).toBe(200);
    await t.db.insert(jobParticipants).values({ jobId: job.id, name: 'Nora Herself', email: shout(notary.email), role: 'signer', position: 1 });

    const res = await kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(conflict);
    expect((await kit.getJob(notary, job.id)).status).toBe('in_session');
    expect(await t.db.select().from(notarizedDocuments).where(eq(notarizedDocuments.jobId, job.id))).toEqual([]);
  });
});
