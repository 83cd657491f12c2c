import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailOutbox, titleCompanies, titleCompanyMembers } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

const mailTo = (address: string, kind: string) =>
  t.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, address.toLowerCase()), eq(emailOutbox.kind, kind)));

const jobLink = (jobId: string) => `${t.config.publicUrl}/jobs/detail?jobId=${jobId}`;

/** A title company with its owner (role title) and an agent who creates the jobs. */
async function createCompany(): Promise<{ owner: TestUser; agent: TestUser }> {
  const owner = await t.createUser({ roles: ['title'] });
  const agent = await t.createUser({ roles: ['title_agent'] });
  const [company] = await t.db.insert(titleCompanies).values({ name: 'Acme Title', approvalStatus: 'approved' }).returning();
  await t.db.insert(titleCompanyMembers).values([
    { companyId: company?.id ?? '', userId: owner.id, role: 'title' },
    { companyId: company?.id ?? '', userId: agent.id, role: 'title_agent' },
  ]);
  return { owner, agent };
}

describe('mail to the notary when a job becomes theirs', () => {
  it('emails the notary a link to the job when a job is created with them as its notary', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await kit.createNotary();
    const job = await kit.createJob(agent, { title: 'Deed for Nora', notaryId: notary.id, signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    const [mail, ...more] = await mailTo(notary.email, 'job_assigned');
    expect(more).toHaveLength(0);
    expect(mail?.subject).toBe('You were assigned "Deed for Nora"');
    expect(mail?.textBody).toContain(jobLink(job.id));
  });

  it('does not email a notary about a job they created themselves', async () => {
    const notary = await kit.createNotary();
    await kit.createJob(notary, { signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    expect(await mailTo(notary.email, 'job_assigned')).toHaveLength(0);
  });

  it('emails the new notary, and only them, when replace-notary changes the notary', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const [first, second] = [await kit.createNotary(), await kit.createNotary()];
    const job = await kit.createJob(agent, { title: 'Changing hands', notaryId: first.id, signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    const res = await kit.call(agent, 'POST', `/api/jobs/${job.id}/replace-notary`, { notaryId: second.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(await mailTo(first.email, 'job_assigned')).toHaveLength(1);
    const [mail] = await mailTo(second.email, 'job_assigned');
    expect(mail?.textBody).toContain(jobLink(job.id));
  });

  it('emails the notary when someone else makes their job ready, and not when the change is refused', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await kit.createNotary();
    const job = await kit.createJob(agent, { title: 'Ready deed', notaryId: notary.id, signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    const refused = await kit.call(agent, 'PATCH', `/api/jobs/${job.id}`, { status: 'ready', version: job.version });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(await mailTo(notary.email, 'job_ready')).toHaveLength(0);

    await kit.uploadPdf(agent, job.id);
    await kit.moveJob(agent, job.id, ['ready']);
    const [mail, ...more] = await mailTo(notary.email, 'job_ready');
    expect(more).toHaveLength(0);
    expect(mail?.subject).toBe('Ready for you: "Ready deed"');
    expect(mail?.textBody).toContain(jobLink(job.id));
  });

  it('does not email the notary about a job they made ready themselves', async () => {
    const notary = await kit.createNotary();
    const job = await kit.createJob(notary, { signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    await kit.uploadPdf(notary, job.id);
    await kit.moveJob(notary, job.id, ['ready']);
    expect(await mailTo(notary.email, 'job_ready')).toHaveLength(0);
  });
});

describe('mail when a job is completed', () => {
  it('emails each signer a link to the job page with the notarized documents, and the title company a link to the job', async () => {
    const { owner, agent } = await createCompany();
    const notary = await kit.createNotary();
    const signer = await t.createUser({ roles: ['signer'] });
    const witnessEmail = uniqueEmail('witness');
    const job = await kit.createJob(agent, {
      title: 'Sealed deed',
      notarizationType: 'acknowledgment',
      notaryId: notary.id,
      signers: [
        { name: signer.name, email: signer.email },
        { name: 'Wendy Witness', email: witnessEmail, role: 'witness' },
      ],
    });
    expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
    await kit.uploadPdf(agent, job.id);
    await kit.moveJob(agent, job.id, ['ready']);
    await kit.moveJob(notary, job.id, ['in_session']);
    expect(await mailTo(signer.email, 'job_completed')).toHaveLength(0);

    await kit.sealJob(notary, job.id);

    const [signerMail, ...moreToSigner] = await mailTo(signer.email, 'job_completed');
    expect(moreToSigner).toHaveLength(0);
    expect(signerMail?.subject).toBe('Your notarized documents are ready: "Sealed deed"');
    expect(signerMail?.textBody).toContain(jobLink(job.id));
    // a link to the job page, where downloads check who asks: never a link to a file
    expect(signerMail?.textBody).not.toContain('/notarized/');
    expect(await mailTo(witnessEmail, 'job_completed')).toHaveLength(0);
    for (const member of [owner, agent]) {
      const [companyMail, ...more] = await mailTo(member.email, 'job_completed_company');
      expect(more).toHaveLength(0);
      expect(companyMail?.subject).toBe('Completed: "Sealed deed"');
      expect(companyMail?.textBody).toContain(jobLink(job.id));
    }
    expect(await mailTo(notary.email, 'job_completed')).toHaveLength(0);
  });

  it('sends no completion mail when sealing is refused', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const notary = await kit.createNotary();
    const signerEmail = uniqueEmail('signer');
    const job = await kit.createJob(agent, { notaryId: notary.id, signers: [{ name: 'Sam Signer', email: signerEmail }] });
    await kit.uploadPdf(agent, job.id);
    await kit.moveJob(agent, job.id, ['ready']);
    const refused = await kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
    expect(refused.statusCode).toBe(409);
    expect(await mailTo(signerEmail, 'job_completed')).toHaveLength(0);
    expect(await mailTo(agent.email, 'job_completed_company')).toHaveLength(0);
  });
});
