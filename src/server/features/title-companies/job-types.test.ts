import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createCompanyKit(t);
  admin = await t.createUser({ roles: ['admin'] });
});
afterAll(async () => t?.close());

const refinance = {
  name: 'Refinance closing',
  notarizationType: 'acknowledgment',
  documentTags: ['signing', 'identification'],
  witnessCount: 1,
  instructions: 'Check both IDs.\nThe lender’s pages are initialled.',
};

async function createType(company: TestCompany, input: Record<string, unknown> = refinance, by: TestUser = company.staff) {
  const res = await kit.expectStatus(kit.call(by, 'POST', `/api/title-companies/${company.id}/job-types`, input), 201);
  return res.json() as { id: string; name: string };
}
const typesOf = async (company: TestCompany, by: TestUser = company.agent) =>
  (await kit.expectStatus(kit.call(by, 'GET', `/api/title-companies/${company.id}/job-types`), 200)).json().items as Array<{ id: string; name: string }>;

async function createJobAs(user: TestUser, payload: Record<string, unknown>) {
  return kit.call(user, 'POST', '/api/jobs', { title: 'Deed of trust', notarizationType: 'jurat', ...payload });
}

/** Uploads one PDF to a job, with a tag field only when one is given; answers the tag the document got. */
async function uploadTagged(user: TestUser, jobId: string, fields: Record<string, string> = {}): Promise<string> {
  const body = buildMultipart([{ name: 'deed.pdf', content: await makePdf(1, 'Deed') }], fields);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${jobId}/documents/batch`,
    headers: { ...(await t.headersFor(user)), ...body.headers },
    payload: body.payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().items[0].tag as string;
}

describe('a company’s job types', () => {
  it('are created by its title staff and read by its agents, by name', async () => {
    const company = await kit.createCompany();
    const created = await createType(company);
    expect(created).toEqual({
      id: expect.any(String),
      companyId: company.id,
      ...refinance,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await createType(company, { name: 'a purchase', notarizationType: 'jurat' });
    expect(await typesOf(company)).toEqual([
      expect.objectContaining({ name: 'a purchase', documentTags: [], witnessCount: 0, instructions: '' }),
      expect.objectContaining({ id: created.id, name: 'Refinance closing' }),
    ]);
    const [event] = await kit.auditOf('title_company.job_type_created', company.id);
    expect(event).toMatchObject({ actorId: company.staff.id, data: { jobTypeId: created.id, jobTypeName: 'Refinance closing', after: { witnessCount: 1 } } });
    // An administrator manages any company's job types.
    await createType(company, { name: 'Admin made', notarizationType: 'jurat' }, admin);
  });

  it('answers 409 with a sentence for a name the company already has, in any case, and frees a deleted one', async () => {
    const company = await kit.createCompany();
    const first = await createType(company);
    const res = await kit.expectStatus(
      kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/job-types`, { ...refinance, name: 'REFINANCE CLOSING' }),
      409,
    );
    expect(res.json()).toEqual({ error: 'conflict', message: `${company.name} already has a job type named “REFINANCE CLOSING”. Choose another name.` });
    const other = await kit.createCompany();
    await createType(other);
    const second = await createType(company, { name: 'Purchase', notarizationType: 'jurat' });
    const rename = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/job-types/${second.id}`, { name: 'refinance closing' }), 409);
    expect(rename.json().message).toBe(`${company.name} already has a job type named “refinance closing”. Choose another name.`);
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/job-types/${first.id}`), 200);
    await createType(company);
  });

  it.each([
    ['no name', { ...refinance, name: ' ' }, 'Name the job type.'],
    ['too many witnesses', { ...refinance, witnessCount: 5 }, 'A job type asks for at most 4 witnesses.'],
    ['a fractional witness', { ...refinance, witnessCount: 1.5 }, 'Give the number of witnesses as a whole number.'],
    ['an unknown notarization type', { ...refinance, notarizationType: 'blessing' }, 'Choose a notarization type.'],
    ['an unknown document tag', { ...refinance, documentTags: ['secret'] }, 'Choose a document tag.'],
    ['instructions with a text-direction override', { ...refinance, instructions: 'ok \u202Eevil' }, 'The instructions for the notary must be plain text'],
  ])('answers 400 with a sentence for %s', async (_case, payload, message) => {
    const company = await kit.createCompany();
    const res = await kit.expectStatus(kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/job-types`, payload), 400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: expect.stringContaining(message) });
    expect(await typesOf(company)).toEqual([]);
  });

  it('change with PUT, recording before and after, and answer 400 for nothing to change', async () => {
    const company = await kit.createCompany();
    const type = await createType(company);
    const res = await kit.expectStatus(
      kit.call(company.staff, 'PUT', `/api/title-companies/job-types/${type.id}`, { witnessCount: 2, instructions: 'Two witnesses.' }),
      200,
    );
    expect(res.json()).toMatchObject({ id: type.id, name: 'Refinance closing', witnessCount: 2, instructions: 'Two witnesses.' });
    const [event] = await kit.auditOf('title_company.job_type_updated', company.id);
    expect(event?.data).toMatchObject({
      jobTypeId: type.id,
      before: { witnessCount: 1, instructions: refinance.instructions },
      after: { witnessCount: 2, instructions: 'Two witnesses.' },
    });
    const empty = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/job-types/${type.id}`, {}), 400);
    expect(empty.json()).toMatchObject({ error: 'validation_failed', message: 'Nothing to change.' });
  });

  it('are deleted softly: no longer offered, no longer changed, kept in the audit', async () => {
    const company = await kit.createCompany();
    const type = await createType(company);
    const res = await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/job-types/${type.id}`), 200);
    expect(res.json()).toEqual({ ok: true, message: 'The job type “Refinance closing” is deleted; jobs made from it keep their instructions.' });
    expect(await typesOf(company)).toEqual([]);
    const again = await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/job-types/${type.id}`, { witnessCount: 0 }), 404);
    expect(again.json()).toEqual({ error: 'not_found', message: 'No job type with that id, or you may not see it.' });
    expect((await kit.call(company.staff, 'DELETE', `/api/title-companies/job-types/${type.id}`)).statusCode).toBe(404);
    const [event] = await kit.auditOf('title_company.job_type_deleted', company.id);
    expect(event).toMatchObject({ actorId: company.staff.id, data: { jobTypeName: 'Refinance closing', before: { witnessCount: 1 } } });
  });

  it('are managed by no one else: agents 403, another company’s staff 404, other roles 403, anonymous 401', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const type = await createType(company);
    const calls: Array<['GET' | 'POST' | 'PUT' | 'DELETE', string, Record<string, unknown> | undefined]> = [
      ['POST', `/api/title-companies/${company.id}/job-types`, { ...refinance, name: 'Sneaky' }],
      ['PUT', `/api/title-companies/job-types/${type.id}`, { name: 'Sneaky' }],
      ['DELETE', `/api/title-companies/job-types/${type.id}`, undefined],
    ];
    const others = await kit.onePerRole(['signer', 'notary', 'billing', 'finance', 'observer']);
    for (const [method, url, payload] of calls) {
      expect((await kit.call(company.agent, method, url, payload)).statusCode, `agent ${method}`).toBe(403);
      expect((await kit.call(other.staff, method, url, payload)).statusCode, `other staff ${method}`).toBe(404);
      for (const [role, user] of others) expect((await kit.call(user, method, url, payload)).statusCode, `${role} ${method}`).toBe(403);
      expect((await kit.call(null, method, url, payload)).statusCode).toBe(401);
    }
    expect((await kit.call(other.agent, 'GET', `/api/title-companies/${company.id}/job-types`)).statusCode).toBe(404);
    expect((await kit.call(others[0]?.[1] ?? admin, 'GET', `/api/title-companies/${company.id}/job-types`)).statusCode).toBe(403);
    expect((await typesOf(company)).map((item) => item.name)).toEqual(['Refinance closing']);
    expect((await kit.call(admin, 'PUT', `/api/title-companies/job-types/${randomUUID()}`, { name: 'x' })).statusCode).toBe(404);
    const malformed = await kit.expectStatus(kit.call(admin, 'PUT', '/api/title-companies/job-types/nope', { name: 'x' }), 400);
    expect(malformed.json()).toMatchObject({ message: 'Job type id must be a UUID.' });
  });
});

describe('a job made from a job type', () => {
  it('carries the type’s name and its instructions as they were when the job was made', async () => {
    const company = await kit.createCompany();
    const notary = await createNotary(t);
    await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/${company.id}`, { defaultNotaryId: notary.id }), 200);
    const type = await createType(company);
    const created = await createJobAs(company.agent, { jobTypeId: type.id });
    expect(created.statusCode, created.body).toBe(201);
    const job = created.json();
    expect(job).toMatchObject({ companyId: company.id, notaryId: notary.id, jobTypeName: 'Refinance closing', notaryInstructions: refinance.instructions });
    await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/job-types/${type.id}`, { name: 'Refi', instructions: 'New rules.' }), 200);
    const later = await kit.expectStatus(createJobAs(company.staff, { jobTypeId: type.id }), 201);
    expect(later.json()).toMatchObject({ jobTypeName: 'Refi', notaryInstructions: 'New rules.' });
    // The older job keeps the instructions it was given; its type's name is the type's name now.
    const seen = await kit.expectStatus(kit.call(notary, 'GET', `/api/jobs/${job.id}`), 200);
    expect(seen.json()).toMatchObject({ jobTypeName: 'Refi', notaryInstructions: refinance.instructions });
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/job-types/${type.id}`), 200);
    expect((await kit.call(company.agent, 'GET', `/api/jobs/${job.id}`)).json()).toMatchObject({
      jobTypeName: 'Refi',
      notaryInstructions: refinance.instructions,
    });
    const plain = await kit.expectStatus(createJobAs(company.agent, {}), 201);
    expect(plain.json()).toMatchObject({ jobTypeName: null, notaryInstructions: null });
  });

  it('gives a document uploaded without a tag the first of the type’s document tags as the type lists them now; a tag sent wins', async () => {
    const company = await kit.createCompany();
    const type = await createType(company, { ...refinance, name: 'ID check', documentTags: ['identification', 'signing'] });
    const job = (await kit.expectStatus(createJobAs(company.agent, { jobTypeId: type.id }), 201)).json();
    expect(job.jobTypeDocumentTags).toEqual(['identification', 'signing']);
    expect(await uploadTagged(company.agent, job.id)).toBe('identification');
    expect(await uploadTagged(company.agent, job.id, { tag: 'signing' })).toBe('signing');
    const trail = (await kit.expectStatus(kit.call(company.agent, 'GET', `/api/jobs/${job.id}/audit`), 200)).json().events as Array<{
      action: string;
      data: { tag?: string };
    }>;
    expect(trail.filter((event) => event.action === 'document.uploaded').map((event) => event.data.tag)).toEqual(['identification', 'signing']);
    // The type changed: the job's later uploads follow it, those already made keep their tag.
    await kit.expectStatus(kit.call(company.staff, 'PUT', `/api/title-companies/job-types/${type.id}`, { documentTags: ['reference'] }), 200);
    expect((await kit.expectStatus(kit.call(company.agent, 'GET', `/api/jobs/${job.id}`), 200)).json().jobTypeDocumentTags).toEqual(['reference']);
    expect(await uploadTagged(company.staff, job.id)).toBe('reference');
    const documents = (await kit.expectStatus(kit.call(company.agent, 'GET', `/api/jobs/${job.id}/documents`), 200)).json().items;
    expect(documents.map((document: { tag: string }) => document.tag)).toEqual(['identification', 'signing', 'reference']);
    // A deleted type still gives the jobs made from it their tags.
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/job-types/${type.id}`), 200);
    expect(await uploadTagged(company.agent, job.id)).toBe('reference');
  });

  it('uploads as a document to be signed when the type lists no tags, or the job has no type', async () => {
    const company = await kit.createCompany();
    const untagged = await createType(company, { name: 'Plain', notarizationType: 'jurat' });
    const fromType = (await kit.expectStatus(createJobAs(company.agent, { jobTypeId: untagged.id }), 201)).json();
    const plain = (await kit.expectStatus(createJobAs(company.agent, {}), 201)).json();
    expect(fromType.jobTypeDocumentTags).toEqual([]);
    expect(plain.jobTypeDocumentTags).toEqual([]);
    expect(await uploadTagged(company.agent, fromType.id)).toBe('signing');
    expect(await uploadTagged(company.agent, plain.id)).toBe('signing');
  });

  it('still needs its notarization type from the caller: the server fills neither the act nor the witnesses from the type', async () => {
    const company = await kit.createCompany();
    const type = await createType(company);
    const res = await kit.expectStatus(kit.call(company.agent, 'POST', '/api/jobs', { title: 'Deed of trust', jobTypeId: type.id, signers: [] }), 400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: 'Choose a notarization type.' });
    // The type's act and witness rows are the form's to fill: what the caller sends is what the job gets.
    const job = (await kit.expectStatus(createJobAs(company.agent, { jobTypeId: type.id, notarizationType: 'jurat' }), 201)).json();
    expect(job).toMatchObject({ notarizationType: 'jurat', participants: [] });
  });

  it('answers 400 with a sentence for a type of another company, a deleted type, or a creator of no company', async () => {
    const company = await kit.createCompany();
    const other = await kit.createCompany();
    const foreign = await createType(other);
    const deleted = await createType(company);
    await kit.expectStatus(kit.call(company.staff, 'DELETE', `/api/title-companies/job-types/${deleted.id}`), 200);
    const own = await createType(company, { name: 'Purchase', notarizationType: 'jurat' });
    const signer = await t.createUser({ roles: ['signer'] });
    for (const [user, jobTypeId] of [
      [company.agent, foreign.id],
      [company.agent, deleted.id],
      [company.agent, randomUUID()],
      [signer, own.id],
      [admin, own.id],
    ] as const) {
      const res = await kit.expectStatus(createJobAs(user, { jobTypeId }), 400);
      expect(res.json()).toEqual({ error: 'bad_request', message: 'Choose one of your company’s job types.' });
    }
    const malformed = await kit.expectStatus(createJobAs(company.agent, { jobTypeId: 'purchase' }), 400);
    expect(malformed.json()).toMatchObject({ error: 'validation_failed', message: 'Choose one of the company’s job types.' });
  });
});
