import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp();
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

describe('GET /api/invites/jobs/:jobId, asked by every job page', () => {
  it('answers 200 with null to someone who sees the job and has no invitation to it: not an error', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await kit.createJob(agent, { signers: [{ name: signer.name, email: signer.email }] });
    expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
    for (const person of [agent, signer]) {
      const res = await kit.call(person, 'GET', `/api/invites/jobs/${job.id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toBeNull();
    }
  });

  it('still answers 404 to someone who may not see the job, so it tells nothing of it', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await kit.createJob(agent, { signers: [{ name: 'Sam Signer', email: uniqueEmail() }] });
    const stranger = await t.createUser({ isEmailVerified: true });
    const res = await kit.call(stranger, 'GET', `/api/invites/jobs/${job.id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'invite_invalid' });
  });
});
