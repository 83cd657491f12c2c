import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job, Participant } from '#shared/jobs.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, uniqueEmail, type JobKit } from '#test/job-fixtures.ts';

let t: TestApp;
let kit: JobKit;
let agent: TestUser;
let notary: TestUser;
let sam: TestUser;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  agent = await t.createUser({ roles: ['title_agent'] });
  notary = await kit.createNotary({ name: 'Nora Notary' });
  sam = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  await kit.saveSignature(notary);
  await kit.saveSignature(sam);
});
afterAll(async () => t?.close());

interface SignedJob {
  job: Job;
  documentId: string;
  signed: Participant;
  unsigned: Participant;
  signedFieldId: string;
  openFieldId: string;
}

/**
 * The defect's set-up: Sam signs in a live session, Olga has not signed yet, the notary pauses the
 * session (back to ready), and the creator could edit the job again.
 */
async function signThenPause(options: { isNotarySigned?: boolean } = {}): Promise<SignedJob> {
  const created = await kit.createJob(agent, {
    notaryId: notary.id,
    signers: [
      { name: sam.name, email: sam.email },
      { name: 'Olga Other', email: uniqueEmail('olga') },
    ],
  });
  expect((await kit.acceptInvitation(sam)).statusCode).toBe(200);
  const documentId = await kit.uploadPdf(agent, created.id);
  await kit.moveJob(agent, created.id, ['ready']);
  await kit.startRecordedSession(notary, created.id, [sam]);
  const [signed, unsigned] = created.participants as [Participant, Participant];
  const base = `/api/jobs/${created.id}/documents/${documentId}/fields`;
  const place = async (payload: Record<string, unknown>) => {
    const res = await kit.call(notary, 'POST', base, { page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.06, ...payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const signedFieldId = await place({ type: 'signature', participantId: signed.id });
  const openFieldId = await place({ type: 'signature', participantId: unsigned.id, y: 0.5 });
  expect((await kit.call(sam, 'POST', `${base}/${signedFieldId}/fill`, { version: 1 })).statusCode).toBe(200);
  if (options.isNotarySigned) {
    const notaryFieldId = await place({ type: 'notary_signature', y: 0.8 });
    expect((await kit.call(notary, 'POST', `${base}/${notaryFieldId}/fill`, { version: 1 })).statusCode).toBe(200);
  }
  const job = await kit.moveJob(notary, created.id, ['ready']);
  return { job, documentId, signed, unsigned, signedFieldId, openFieldId };
}

const auditLength = async (jobId: string) => (await kit.call(agent, 'GET', `/api/jobs/${jobId}/audit`)).json().events.length as number;

describe('a participant who has signed', () => {
  let scene: SignedJob;
  beforeAll(async () => {
    scene = await signThenPause();
  });

  it.each([
    ['renamed', { name: 'Ivan Impostor' }],
    ['re-addressed', { email: 'impostor@example.test' }],
    ['renamed and re-addressed at once', { name: 'Ivan Impostor', email: 'impostor@example.test' }],
    ['turned into an observer', { role: 'observer' }],
  ])('cannot be %s, and nothing changes', async (_case, changes) => {
    const before = await auditLength(scene.job.id);
    const res = await kit.call(agent, 'PATCH', `/api/jobs/${scene.job.id}/signers/${scene.signed.id}`, changes);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'participant_signed',
      message: 'Sam Signer has already filled fields on this job, so their name, email and role can no longer change.',
    });
    const after = await kit.getJob(agent, scene.job.id);
    expect(after.participants.find((participant) => participant.id === scene.signed.id)).toMatchObject({
      name: sam.name,
      email: sam.email,
      role: 'signer',
      hasAccount: true,
    });
    expect(await auditLength(scene.job.id)).toBe(before);
  });

  it('cannot be removed from the job', async () => {
    const res = await kit.call(agent, 'DELETE', `/api/jobs/${scene.job.id}/signers/${scene.signed.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'participant_signed',
      message: 'Sam Signer has already filled fields on this job, so they cannot be removed from it.',
    });
    expect((await kit.getJob(agent, scene.job.id)).participantCount).toBe(2);
  });

  it('still lets a participant who has not signed be corrected', async () => {
    const res = await kit.call(agent, 'PATCH', `/api/jobs/${scene.job.id}/signers/${scene.unsigned.id}`, { name: 'Olga Otherova' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Olga Otherova' });
  });
});

describe('a filled field', () => {
  let scene: SignedJob;
  let fields: string;
  beforeAll(async () => {
    scene = await signThenPause();
    fields = `/api/jobs/${scene.job.id}/documents/${scene.documentId}/fields`;
  });

  const filledField = async () =>
    ((await kit.call(agent, 'GET', fields)).json().items as Array<Record<string, unknown>>).find((field) => field.id === scene.signedFieldId);

  it('cannot be deleted', async () => {
    const res = await kit.call(agent, 'DELETE', `${fields}/${scene.signedFieldId}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'field_filled', message: 'A filled field cannot be removed: it holds what was signed.' });
    expect(await filledField()).toMatchObject({ filledAt: expect.any(String) });
  });

  it.each([
    ['moved', () => ({ x: 0.5 })],
    ['moved to another page', () => ({ page: 2 })],
    ['resized', () => ({ width: 0.5 })],
    ['reassigned to another participant', () => ({ participantId: scene.unsigned.id })],
  ])('cannot be %s', async (_case, changes) => {
    const before = await filledField();
    const payload = { ...changes(), version: before?.version };
    const res = await kit.call(agent, 'PATCH', `${fields}/${scene.signedFieldId}`, payload);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'field_filled', message: 'A filled field cannot be moved, resized or reassigned: it holds what was signed.' });
    expect(await filledField()).toEqual(before);
  });

  it('keeps its document, which cannot be deleted while it holds filled fields', async () => {
    const [document] = (await kit.call(agent, 'GET', `/api/jobs/${scene.job.id}/documents`)).json().items as Array<{ id: string; version: number }>;
    const res = await kit.call(agent, 'DELETE', `/api/jobs/${scene.job.id}/documents/${scene.documentId}`, undefined, {
      'if-match': String(document?.version),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'field_filled', message: 'This document holds filled fields and cannot be removed.' });
    expect((await kit.getJob(agent, scene.job.id)).documentCount).toBe(1);
  });

  it.each([
    ['re-tagged out of the signing documents', { tag: 'reference' }],
    ['renamed', { name: 'Loan forgiveness.pdf' }],
  ])('keeps its document, which cannot be %s while it holds filled fields', async (_case, changes) => {
    const documentUrl = `/api/jobs/${scene.job.id}/documents/${scene.documentId}`;
    const [before] = (await kit.call(agent, 'GET', `/api/jobs/${scene.job.id}/documents`)).json().items as Array<{ version: number }>;
    for (const url of [documentUrl, `${documentUrl}/flush`]) {
      const res = await kit.call(
        agent,
        url.endsWith('flush') ? 'POST' : 'PATCH',
        url,
        { ...changes, clientSnapshotVersion: before?.version },
        { 'if-match': String(before?.version) },
      );
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'field_filled', message: 'This document holds filled fields, so its name and tag can no longer change.' });
    }
    const [after] = (await kit.call(agent, 'GET', `/api/jobs/${scene.job.id}/documents`)).json().items as Array<Record<string, unknown>>;
    expect(after).toEqual(before);
  });

  it('leaves an open field free to move and remove', async () => {
    const moved = await kit.call(agent, 'PATCH', `${fields}/${scene.openFieldId}`, { x: 0.4, version: 1 });
    expect(moved.statusCode).toBe(200);
    expect((await kit.call(agent, 'DELETE', `${fields}/${scene.openFieldId}`)).statusCode).toBe(200);
  });
});

describe('the notary of a session in which someone signed', () => {
  it('cannot be replaced, so no other notary seals signatures made before someone else', async () => {
    const scene = await signThenPause();
    for (const notaryId of [(await kit.createNotary()).id, null]) {
      const res = await kit.call(agent, 'POST', `/api/jobs/${scene.job.id}/replace-notary`, { notaryId });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        error: 'notary_signed',
        message:
          'Fields were already filled in front of this job’s notary, so the notary can no longer change. Cancel the job and start a new one to use another notary.',
      });
    }
    expect(await kit.getJob(agent, scene.job.id)).toMatchObject({ notaryId: notary.id, version: scene.job.version });
  });
});

describe('a notary who has signed', () => {
  it('cannot be replaced, so the seal never carries another notary’s signature', async () => {
    const scene = await signThenPause({ isNotarySigned: true });
    const res = await kit.call(agent, 'POST', `/api/jobs/${scene.job.id}/replace-notary`, { notaryId: (await kit.createNotary()).id });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'notary_signed',
      message: 'The notary has already filled notary fields on this job, so the notary can no longer change.',
    });
    expect(await kit.getJob(agent, scene.job.id)).toMatchObject({ notaryId: notary.id, version: scene.job.version });
  });
});
