import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, jobs, titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';

/** The mail a job's events send, attacked: floods, the wrong people, injected headers. */

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

const mailTo = (address: string, kind?: string) =>
  t.db
    .select()
    .from(emailOutbox)
    .where(kind ? and(eq(emailOutbox.toAddress, address.toLowerCase()), eq(emailOutbox.kind, kind)) : eq(emailOutbox.toAddress, address.toLowerCase()));

async function createCompany(name: string) {
  const owner = await t.createUser({ roles: ['title'] });
  const agent = await t.createUser({ roles: ['title_agent'] });
  const [company] = await t.db.insert(titleCompanies).values({ name, approvalStatus: 'approved' }).returning();
  await t.db.insert(titleCompanyMembers).values([
    { companyId: company?.id ?? '', userId: owner.id, role: 'title' },
    { companyId: company?.id ?? '', userId: agent.id, role: 'title_agent' },
  ]);
  return { owner, agent, companyId: company?.id ?? '' };
}

describe('replace-notary back and forth', () => {
  it('does not flood a notary with one mail per flip: at most one unsent assignment mail per notary and job', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const nora = await kit.createNotary();
    const ned = await kit.createNotary();
    const job = await kit.createJob(agent, { notaryId: nora.id, signers: [] });
    for (let flip = 0; flip < 10; flip += 1) {
      for (const notary of [ned, nora]) {
        const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: notary.id });
        expect(res.statusCode, res.body).toBe(200);
      }
    }
    const pending = async (notary: TestUser) => (await mailTo(notary.email, 'job_assigned')).filter((mail) => mail.status === 'pending');
    expect((await pending(nora)).length).toBeLessThanOrEqual(1);
    expect((await pending(ned)).length).toBeLessThanOrEqual(1);
  });
});

describe('mail on completion', () => {
  it('goes to the job’s signers and its own company only: not to a removed signer, a witness, an observer or another company’s staff', async () => {
    const { owner, agent } = await createCompany('Acme Title');
    const rival = await createCompany('Rival Title');
    const notary = await kit.createNotary();
    const signer = await t.createUser({ roles: ['signer'] });
    const removed = await t.createUser({ roles: ['signer'] });
    const witness = await t.createUser({ roles: ['witness'] });
    const observer = await t.createUser({ roles: ['observer'] });
    const job = await kit.createJob(agent, {
      notaryId: notary.id,
      signers: [
        { name: signer.name, email: signer.email },
        { name: removed.name, email: removed.email },
        { name: witness.name, email: witness.email, role: 'witness' },
        { name: observer.name, email: observer.email, role: 'observer' },
      ],
    });
    const removedId = job.participants.find((participant) => participant.email === removed.email)?.id ?? '';
    expect((await kit.call(agent, 'DELETE', `/api/jobs/${job.id}/signers/${removedId}`)).statusCode).toBe(200);
    await kit.uploadPdf(agent, job.id);
    await kit.moveJob(agent, job.id, ['ready']);
    await kit.moveJob(notary, job.id, ['in_session']);
    await kit.sealJob(notary, job.id);
    expect(await mailTo(signer.email, 'job_completed')).toHaveLength(1);
    for (const person of [removed, witness, observer, rival.owner, rival.agent, notary]) {
      expect(
        (await mailTo(person.email)).filter((mail) => mail.kind.startsWith('job_completed')),
        person.email,
      ).toEqual([]);
    }
    for (const person of [owner, agent]) expect(await mailTo(person.email, 'job_completed_company'), person.email).toHaveLength(1);
  });
});

describe('headers', () => {
  it('keeps a title stored with line breaks (before the one-line rule) out of the subject’s header lines', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const nora = await kit.createNotary();
    const ned = await kit.createNotary();
    const job = await kit.createJob(agent, { notaryId: nora.id, signers: [] });
    await t.db.update(jobs).set({ title: 'Deed\r\nBcc: victim@example.test\r\n\r\nInjected body' }).where(eq(jobs.id, job.id));
    expect((await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: ned.id })).statusCode).toBe(200);
    const [mail] = await mailTo(ned.email, 'job_assigned');
    expect(mail?.subject).not.toMatch(/[\r\n]/);
    expect(mail?.textBody.split('\n').some((line) => line.startsWith('Bcc:'))).toBe(false);
    for (const title of ['Deed\r\nBcc: x@example.test', 'Deed\u2028Bcc: x', 'Deed\u0000']) {
      const res = await kit.call(agent, 'POST', '/api/jobs', { title, notarizationType: 'acknowledgment', notaryId: nora.id, signers: [] });
      expect(res.statusCode, JSON.stringify(title)).toBe(400);
    }
  });
});
