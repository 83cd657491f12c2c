import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyFor } from '#shared/identity-policies.ts';
import { notarizationTypes, type JobNotarizationTypes } from '#shared/jobs.ts';
import { AppError } from '#server/lib/errors.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { actsUnderPolicy, assertActAllowed, identificationUnderPolicy } from './job-notarization-types.ts';

let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let texasNotary: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  texasNotary = await createNotary(t, { state: 'TX', name: 'Tessa Texas' });
});
afterAll(async () => t?.close());

const typesOf = async (user: TestUser, jobId: string) => {
  const res = await kit.call(user, 'GET', `/api/jobs/${jobId}/notarization-types`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as JobNotarizationTypes;
};
const method = (body: JobNotarizationTypes, name: string) => body.identification.find((row) => row.method === name);

describe('GET /api/jobs/{id}/notarization-types', () => {
  it('answers from the row of the notary’s commissioning state: every act with no recorded restriction, each way of identifying with its citation', async () => {
    const job = await kit.createJob(agent, {
      notaryId: texasNotary.id,
      notarizationType: 'jurat',
      signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }],
    });
    const body = await typesOf(agent, job.id);
    const texas = policyFor('TX');
    expect(body.policy).toEqual({ code: 'TX', name: 'Texas', isDefault: false });
    expect(body.current).toBe('jurat');
    expect(body.items.map((item) => [item.key, item.allowed, item.reason])).toEqual(notarizationTypes.map((type) => [type.key, true, null]));
    expect(method(body, 'identity_step')).toEqual(expect.objectContaining({ allowed: true, citation: `${texas.credentialCitation}; ${texas.kba.citation}` }));
    expect(method(body, 'personal_knowledge')).toEqual(expect.objectContaining({ allowed: true, reason: null, citation: texas.bypassCitation }));
    expect(method(body, 'credible_witness')).toEqual(
      expect.objectContaining({
        allowed: false,
        reason: 'Add a witness to the job first: a credible witness must take part in the session.',
        citation: texas.bypassCitation,
      }),
    );
  });

  it('opens the credible witness once the job has a witness', async () => {
    const job = await kit.createJob(agent, {
      notaryId: texasNotary.id,
      signers: [
        { name: 'Sam Signer', email: uniqueEmail('sam') },
        { name: 'Wes Witness', email: uniqueEmail('wes'), role: 'witness' },
      ],
    });
    expect(method(await typesOf(agent, job.id), 'credible_witness')).toEqual(expect.objectContaining({ allowed: true, reason: null }));
  });

  it('uses the RULONA default row, and says so, while the job has no notary', async () => {
    const job = await kit.createJob(agent, { signers: [{ name: 'Sam Signer', email: uniqueEmail('sam') }] });
    const body = await typesOf(agent, job.id);
    expect(body.policy).toEqual({ code: 'RULONA', name: policyFor(null).name, isDefault: true });
  });

  it('answers the job’s own signer and notary, 404 to people not on the job, 401 to anonymous callers, and 400 for an id that is none', async () => {
    const signer = await t.createUser({ roles: ['signer'] });
    const job = await kit.createJob(agent, { notaryId: texasNotary.id, signers: [{ name: signer.name, email: signer.email }] });
    await kit.call(agent, 'POST', `/api/jobs/${job.id}/notify`);
    for (const user of [texasNotary]) expect((await kit.call(user, 'GET', `/api/jobs/${job.id}/notarization-types`)).statusCode).toBe(200);
    const stranger = await t.createUser({ roles: ['title_agent'] });
    const otherNotary = await createNotary(t);
    for (const user of [stranger, otherNotary]) {
      const res = await kit.call(user, 'GET', `/api/jobs/${job.id}/notarization-types`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toHaveProperty('message');
    }
    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/notarization-types` })).statusCode).toBe(401);
    expect((await kit.call(agent, 'GET', '/api/jobs/not-a-job/notarization-types')).statusCode).toBe(400);
  });
});

describe('a state row that keeps an act or a way of identifying off online notarization', () => {
  const strict = {
    ...policyFor('VA'),
    code: 'ZZ',
    name: 'Testland',
    bypassMethods: ['personal_knowledge' as const],
    actsNotPerformedOnline: [{ act: 'copy_certification', citation: 'Testland Code § 1' }],
  };

  it('marks the act not allowed with the citation, and the job refuses it with a sentence', () => {
    const copy = actsUnderPolicy(strict).find((item) => item.key === 'copy_certification');
    expect(copy).toEqual(
      expect.objectContaining({ allowed: false, citation: 'Testland Code § 1', reason: 'The rules of Testland do not let an online notary perform this act.' }),
    );
    expect(() => assertActAllowed(strict, 'jurat')).not.toThrow();
    const refusal = (() => {
      try {
        assertActAllowed(strict, 'copy_certification');
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      statusCode: 409,
      message:
        'The rules of Testland do not let an online notary perform this act (Copy certification; Testland Code § 1). Choose another act or another notary.',
    });
  });

  it('refuses the credible witness under a row that does not allow it, even with a witness on the job', () => {
    const rows = identificationUnderPolicy(strict, [{ role: 'signer' }, { role: 'witness' }]);
    expect(rows.find((row) => row.method === 'credible_witness')).toEqual(
      expect.objectContaining({ allowed: false, reason: 'The rules of Testland do not allow it.' }),
    );
  });
});
