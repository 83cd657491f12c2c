import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import type { IdentityCheck, KbaQuestions } from '#shared/identity.ts';
import {
  auditEvents,
  emailOutbox,
  identityChecks,
  identityImages,
  identityKbaAttempts,
  jobs,
  notaryProfiles,
  titleCompanies,
  webhookDeliveries,
  webhookEndpoints,
} from '#server/db/schema/index.ts';
import { createLocalStorage } from '#server/providers/storage/storage.ts';
import { encryptSecret } from '#server/lib/secrets.ts';
import { readPdfText } from '#test/pdf-fixtures.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { makePng } from '#test/png-fixtures.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import { makeAamvaText, makeLicenceBack, makeLicenceFront } from '#test/id-documents.ts';
import { recordMedia } from '#test/live-session.ts';
import { purgeExpiredIdentityEvidence } from '#server/tasks/identity-purger.ts';

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

const statement = (name: string) => ({
  legalName: name,
  birthDate: '1984-07-09',
  address: { street: '1208 Maple Avenue', city: 'Richmond', state: 'VA', postalCode: '23220' },
});

async function cast(): Promise<VideoCast> {
  return castVideoJob(t, kit, { identity: 'unproven' });
}

async function start(c: VideoCast, person: TestUser = c.signer): Promise<IdentityCheck> {
  const res = await kit.call(person, 'POST', `/api/jobs/${c.job.id}/identity/start`, statement(person.name));
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as IdentityCheck;
}

/** The quiz's key, read from the database as only the server knows it. */
async function keyOf(attemptId: string): Promise<Map<string, string>> {
  const [row] = await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.id, attemptId));
  return new Map((row?.quiz ?? []).map((question) => [question.key, question.correctChoiceId]));
}

async function quiz(person: TestUser, checkId: string) {
  const res = await kit.call(person, 'GET', `/api/identity/${checkId}/kba/questions`);
  return { res, questions: res.statusCode === 200 ? (res.json() as KbaQuestions) : null };
}

/** Answers `right` questions correctly and the rest wrongly. */
async function answer(person: TestUser, checkId: string, questions: KbaQuestions, right: number) {
  const key = await keyOf(questions.attemptId);
  const answers = questions.questions.map((question, index) => {
    const correct = key.get(question.id) ?? '';
    const wrong = question.choices.find((choice) => choice.id !== correct)?.id ?? '';
    return { questionId: question.id, choiceId: index < right ? correct : wrong };
  });
  return kit.call(person, 'POST', `/api/identity/${checkId}/kba/answers`, { attemptId: questions.attemptId, answers });
}

async function upload(
  person: TestUser | null,
  url: string,
  files: Array<{ field: string; name: string; content: Buffer; type?: string }>,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const boundary = `----ron${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'image/png'}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const multipart = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  const auth = person ? await t.signInAs(person) : {};
  return t.app.inject({ method: 'POST', url, headers: { ...auth, ...headers, ...multipart }, payload: Buffer.concat(parts) });
}

const selfie = () => makePng(64, 64, { color: [180, 140, 120] });

/** Sam Signer's Virginia licence: its barcode and its printed front carry the same data. */
const samLicence = { state: 'VA', issuerNumber: '636000', firstName: 'SAM', lastName: 'SIGNER', birthDate: '1984-07-09' };

/** Every step of a check, passed: a Virginia licence matching 'Sam Signer', a selfie, five right answers. */
async function passEveryStep(c: VideoCast, person: TestUser = c.signer): Promise<IdentityCheck> {
  const started = await kit.call(person, 'POST', `/api/jobs/${c.job.id}/identity/start`, statement('Sam Signer'));
  const checkId = started.json().checkId as string;
  const back = await makeLicenceBack({ text: makeAamvaText(samLicence) });
  const credential = await upload(
    person,
    `/api/identity/${checkId}/credential`,
    [
      { field: 'front', name: 'f.png', content: await makeLicenceFront(samLicence) },
      { field: 'back', name: 'b.png', content: back },
    ],
    { documentType: 'drivers_license' },
  );
  expect(credential.json().credential.status, credential.body).toBe('passed');
  await upload(person, `/api/identity/${checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }]);
  const { questions } = await quiz(person, checkId);
  const passed = await answer(person, checkId, questions as KbaQuestions, 5);
  expect(passed.json().check.status).toBe('ready');
  return passed.json().check as IdentityCheck;
}

/** The text of a sealed PDF (pdftotext), spaces collapsed. */
async function pdfText(jobKit: JobKit, person: TestUser, downloadUrl: string): Promise<string> {
  return readPdfText((await jobKit.call(person, 'GET', downloadUrl)).rawPayload);
}

describe('starting the identity step', () => {
  it('gives a signer a check under the notary’s state rules, and the same one again; refuses others', async () => {
    const c = await cast();
    const url = `/api/jobs/${c.job.id}/identity/start`;
    const first = await start(c);
    expect(first).toMatchObject({ status: 'in_progress', policyCode: 'VA', personName: c.signer.name, images: [] });
    expect(first.kba).toMatchObject({ status: 'pending', attempts: 0, attemptsAllowed: 3, isDevelopmentProvider: true });
    expect(first.nextStep).toBe('Take photos of your government photo ID.');
    expect((await start(c)).checkId).toBe(first.checkId);

    expect((await t.app.inject({ method: 'POST', url, payload: statement('Anyone') })).statusCode).toBe(401);
    expect((await kit.call(c.stranger, 'POST', url, statement(c.stranger.name))).statusCode).toBe(404);
    const observer = await kit.call(c.observer, 'POST', url, statement(c.observer.name));
    expect(observer.statusCode).toBe(403);
    expect(observer.json().message).toBe('Observers do not take the identity step.');
    expect((await kit.call(c.notary, 'POST', url, statement(c.notary.name))).statusCode).toBe(403);
    const bad = await kit.call(c.signer, 'POST', url, { ...statement(c.signer.name), birthDate: '09/07/1984' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('birthDate must be a date as YYYY-MM-DD.');
  });

  it('keeps the signer out of the session until the step is done, saying why', async () => {
    const c = await cast();
    const canEnter = (await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json();
    expect(canEnter.identity).toEqual({ required: true, satisfied: false, checkId: null, status: null, policyCode: 'VA' });
    expect(canEnter.reasons).toContain('Prove your identity first: photos of your ID, a photo of your face and a few questions.');
    expect((await kit.call(c.observer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json().identity).toMatchObject({ required: false, satisfied: true });
    await kit.call(c.notary, 'POST', '/api/video/session', { jobId: c.job.id });
    await kit.call(c.notary, 'POST', `/api/jobs/${c.job.id}/session/join`, { consentToRecording: true, deviceGroupId: 'desk' });
    const refused = await kit.call(c.signer, 'POST', `/api/jobs/${c.job.id}/session/join`, { consentToRecording: true, deviceGroupId: 'laptop' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: 'cannot_enter',
      message: 'Prove your identity first: photos of your ID, a photo of your face and a few questions.',
    });
  });
});

describe('knowledge-based questions', () => {
  it('asks five questions of five choices, keeps the clock on a reload, passes at four right and records no answer', async () => {
    const c = await cast();
    const check = await start(c);
    const { questions } = await quiz(c.signer, check.checkId);
    expect(questions?.questions).toHaveLength(5);
    for (const question of questions?.questions ?? []) expect(question.choices.length).toBeGreaterThanOrEqual(5);
    expect(questions?.providerNotice).toContain('development provider');
    expect(questions?.timeLimitSeconds).toBe(120);
    const again = (await quiz(c.signer, check.checkId)).questions;
    expect(again?.attemptId).toBe(questions?.attemptId);
    expect(again?.deadlineAt).toBe(questions?.deadlineAt);

    const res = await answer(c.signer, check.checkId, questions as KbaQuestions, 4);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ passed: true, correct: 4, total: 5, timedOut: false });
    expect(res.json().check.kba).toMatchObject({ status: 'passed', lastCorrect: 4, lastTotal: 5 });
    const [row] = await t.db
      .select()
      .from(identityKbaAttempts)
      .where(eq(identityKbaAttempts.id, questions?.attemptId ?? ''));
    expect(row?.quiz).toBeNull();
    const sent = (questions?.questions ?? []).map((question) => ({ questionId: question.id, choiceId: question.choices[0]?.id ?? '' }));
    const twice = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, { attemptId: questions?.attemptId, answers: sent });
    expect(twice.statusCode).toBe(409);
    const more = await quiz(c.signer, check.checkId);
    expect(more.res.statusCode).toBe(409);
  });

  it('fails at three right, allows Virginia’s two retakes with new questions, then locks the check', async () => {
    const c = await cast();
    const check = await start(c);
    const seen: string[][] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const { res: shown, questions } = await quiz(c.signer, check.checkId);
      expect(shown.statusCode, shown.body).toBe(200);
      expect(questions?.attempt).toBe(attempt);
      seen.push((questions?.questions ?? []).map((question) => question.id));
      const res = await answer(c.signer, check.checkId, questions as KbaQuestions, 3);
      expect(res.json()).toMatchObject({ passed: false, correct: 3, total: 5 });
    }
    // No more than 60% of the first quiz's questions come back.
    for (const later of seen.slice(1)) expect(later.filter((key) => seen[0]?.includes(key)).length).toBeLessThanOrEqual(3);
    const after = (await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json() as IdentityCheck;
    expect(after.status).toBe('locked');
    const refused = await quiz(c.signer, check.checkId);
    expect(refused.res.statusCode).toBe(409);
    const canEnter = (await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json();
    expect(canEnter.reasons).toContain('Your identity could not be proven with the questions; ask the notary about another way.');
  });

  it('counts answers sent after the time limit as a failure', async () => {
    const c = await cast();
    const check = await start(c);
    const { questions } = await quiz(c.signer, check.checkId);
    await t.db
      .update(identityKbaAttempts)
      .set({ deadlineAt: new Date(Date.now() - 1000) })
      .where(eq(identityKbaAttempts.id, questions?.attemptId ?? ''));
    const res = await answer(c.signer, check.checkId, questions as KbaQuestions, 5);
    expect(res.json()).toMatchObject({ passed: false, timedOut: true });
  });

  it('refuses the development provider in production unless it is allowed', async () => {
    const production = await createTestApp({ NODE_ENV: 'production', COOKIE_SECURE: 'false' });
    try {
      const productionKit = createJobKit(production);
      const c = await castVideoJob(production, productionKit, { identity: 'unproven' });
      const started = await productionKit.call(c.signer, 'POST', `/api/jobs/${c.job.id}/identity/start`, statement(c.signer.name));
      expect(started.statusCode, started.body).toBe(200);
      const refused = await productionKit.call(c.signer, 'GET', `/api/identity/${started.json().checkId}/kba/questions`);
      expect(refused.statusCode).toBe(503);
      expect(refused.json().message).toContain('IDENTITY_DEV_PROVIDER');
    } finally {
      await production.close();
    }
  });
});

describe('the selfie and the ID images', () => {
  it('keeps images encrypted at rest and shows them to the job’s notary and admins only', async () => {
    const c = await cast();
    const check = await start(c);
    const image = selfie();
    const url = `/api/identity/${check.checkId}/selfie`;
    expect((await upload(c.signer, url, [{ field: 'selfie', name: 'me.txt', content: Buffer.from('not an image'), type: 'image/png' }])).statusCode).toBe(415);
    expect((await upload(c.signer, url, [])).statusCode).toBe(400);
    expect((await upload(c.stranger, url, [{ field: 'selfie', name: 'me.png', content: image }])).statusCode).toBe(404);
    const saved = await upload(c.signer, url, [{ field: 'selfie', name: 'me.png', content: image }]);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().selfie.status).toBe('received');

    const [row] = await t.db
      .select()
      .from(identityImages)
      .where(and(eq(identityImages.checkId, check.checkId), eq(identityImages.kind, 'selfie')));
    const stored = await createLocalStorage(t.blobRoot).read(row?.storageKey ?? '');
    expect(stored.includes(image.subarray(0, 8))).toBe(false);
    expect(stored.length).toBe(image.length + 28);

    const imageUrl = `/api/identity/${check.checkId}/images/selfie`;
    const shown = await kit.call(c.notary, 'GET', imageUrl);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['cache-control']).toBe('private, no-store');
    expect(shown.rawPayload.equals(image)).toBe(true);
    const admin = await t.createUser({ roles: ['admin'] });
    expect((await kit.call(admin, 'GET', imageUrl)).statusCode).toBe(200);
    expect((await kit.call(c.signer, 'GET', imageUrl)).statusCode).toBe(403);
    const otherNotary = await kit.createNotary();
    expect((await kit.call(otherNotary, 'GET', imageUrl)).statusCode).toBe(404);
    expect((await kit.call(c.agent, 'GET', imageUrl)).statusCode).toBe(404);
    expect((await kit.call(c.notary, 'GET', `/api/identity/${check.checkId}`)).json().images).toEqual([{ kind: 'selfie', url: imageUrl }]);
    expect((await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json().images).toEqual([]);
  });

  it('refuses a credential without its images or with a wrong kind of ID', async () => {
    const c = await cast();
    const check = await start(c);
    const url = `/api/identity/${check.checkId}/credential`;
    const missing = await upload(c.signer, url, [{ field: 'front', name: 'front.png', content: selfie() }], { documentType: 'drivers_license' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe('Send the back of your driver’s licence.');
    const kind = await upload(c.signer, url, [{ field: 'passport', name: 'p.png', content: selfie() }], { documentType: 'library_card' });
    expect(kind.statusCode).toBe(400);
    const notJson = await kit.call(c.signer, 'POST', url, { documentType: 'passport' });
    expect(notJson.statusCode).toBe(415);
  });
});

describe('the notary’s judgement, bypasses and resets', () => {
  it('lets only the job’s notary confirm, and only once every step passed', async () => {
    const c = await cast();
    const check = await start(c);
    const review = (person: TestUser, body: Record<string, unknown>) => kit.call(person, 'POST', `/api/identity/${check.checkId}/review`, body);
    expect((await review(c.notary, { decision: 'confirmed', reason: 'Looks right' })).statusCode).toBe(409);
    expect((await review(c.signer, { decision: 'confirmed', reason: 'It is me' })).statusCode).toBe(403);
    expect((await review(c.notary, { decision: 'confirmed' })).statusCode).toBe(400);
    const rejected = await review(c.notary, { decision: 'rejected', reason: 'The face on camera is not the ID photo' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({ status: 'rejected', review: { decision: 'rejected', reviewerName: c.notary.name } });
    expect((await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json().reasons).toContain('The notary did not accept your identity proof.');
    const list = (await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}/identity`)).json();
    expect(list.items.map((item: { name: string; check: IdentityCheck | null }) => [item.name, item.check?.status ?? null])).toEqual([
      [c.signer.name, 'rejected'],
      [c.witness.name, null],
    ]);
    expect((await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/identity`)).statusCode).toBe(403);
    expect((await kit.call(c.stranger, 'GET', `/api/jobs/${c.job.id}/identity`)).statusCode).toBe(404);
  });

  it('takes a bypass only from the notary or an admin, with a reason and a method the state allows', async () => {
    const c = await cast();
    const url = `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}/id-bypass`;
    expect((await kit.call(c.signer, 'POST', url, { enabled: true, reason: 'I am me', method: 'personal_knowledge' })).statusCode).toBe(403);
    expect((await kit.call(c.notary, 'POST', url, { enabled: true, method: 'personal_knowledge' })).statusCode).toBe(400);
    expect((await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'Known to me', method: 'a_hunch' })).statusCode).toBe(400);
    const done = await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'My neighbour of ten years', method: 'personal_knowledge' });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ isIdBypassed: true, idBypassMethod: 'personal_knowledge' });
    expect((await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json().identity).toMatchObject({ required: true, satisfied: true });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, c.job.id), eq(auditEvents.action, 'participant.id_bypass_changed')));
    expect(trail.map((event) => describeAuditEvent({ ...event, actorName: c.notary.name } as never))).toContain(
      `${c.notary.name} identified ${c.signer.name} by personal knowledge instead of the identity step. Reason: My neighbour of ten years.`,
    );
  });

  it('lets an admin restart a person’s step on every job', async () => {
    const c = await cast();
    const check = await start(c);
    const admin = await t.createUser({ roles: ['admin'] });
    expect((await kit.call(c.notary, 'POST', `/api/admin/users/${c.signer.id}/reset-id`)).statusCode).toBe(403);
    expect((await kit.call(admin, 'POST', `/api/admin/users/00000000-0000-4000-8000-000000000000/reset-id`)).statusCode).toBe(404);
    const reset = await kit.call(admin, 'POST', `/api/admin/users/${c.signer.id}/reset-id`);
    expect(reset.json()).toEqual({ ok: true, checksEnded: 1, signaturesCleared: 0 });
    expect((await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json().status).toBe('expired');
    expect((await start(c)).checkId).not.toBe(check.checkId);
    await kit.saveSignature(c.signer);
    const cleared = await kit.call(admin, 'POST', `/api/admin/users/${c.signer.id}/clear-signature-id`);
    expect(cleared.json()).toEqual({ ok: true, checksEnded: 1, signaturesCleared: 1 });
    expect((await kit.call(c.signer, 'GET', '/api/signature/me')).statusCode).toBe(404);
  });
});

describe('continuing on a phone', () => {
  it('mails a link whose token stands for this check only, until it expires', async () => {
    const c = await cast();
    const check = await start(c);
    const link = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/resume-link`);
    expect(link.statusCode, link.body).toBe(200);
    const token = String(link.json().url).split('/').pop() ?? '';
    const mails = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, c.signer.email));
    expect(mails.some((mail) => mail.textBody.includes(`/verify/resume/${token}`))).toBe(true);
    expect((await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/resume-link`)).statusCode).toBe(403);

    const phone = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = { 'x-identity-resume': token }) =>
      t.app.inject({ method, url, headers });
    expect((await phone('GET', `/api/identity/resume/${token}`, {})).json().checkId).toBe(check.checkId);
    expect((await phone('GET', `/api/identity/${check.checkId}`)).statusCode).toBe(200);
    expect(
      (
        await upload(
          null,
          `/api/identity/${check.checkId}/selfie`,
          [{ field: 'selfie', name: 'me.png', content: selfie() }],
          {},
          { 'x-identity-resume': token },
        )
      ).statusCode,
    ).toBe(200);
    expect((await phone('GET', `/api/identity/${check.checkId}/images/selfie`)).statusCode).toBe(401);
    expect((await phone('GET', `/api/identity/${check.checkId}`, { 'x-identity-resume': 'x'.repeat(43) })).statusCode).toBe(404);
    const other = await cast();
    const otherCheck = await start(other);
    expect((await phone('GET', `/api/identity/${otherCheck.checkId}`)).statusCode).toBe(404);

    await t.db
      .update(identityChecks)
      .set({ resumeExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(identityChecks.id, check.checkId));
    const expired = await phone('GET', `/api/identity/resume/${token}`, {});
    expect(expired.statusCode).toBe(410);
    expect(expired.json().message).toBe('This link has expired. Open a new one from your computer.');
  });
});

describe('retention', () => {
  it('purges images and stated details when the state’s retention ends, keeping the outcome', async () => {
    const c = await cast();
    const check = await start(c);
    await upload(c.signer, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }]);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    const [image] = await t.db.select().from(identityImages).where(eq(identityImages.checkId, check.checkId));
    const storage = createLocalStorage(t.blobRoot);
    expect(await storage.has(image?.storageKey ?? '')).toBe(true);
    // Virginia keeps five years: a day before nothing goes, the day after everything does.
    const deps = { db: t.db, storage, secretsKey: t.secretsKey };
    const purgeAfter = row?.purgeAfter ?? new Date();
    expect(purgeAfter.getUTCFullYear()).toBe((row?.createdAt ?? new Date()).getUTCFullYear() + 5);
    expect(await purgeExpiredIdentityEvidence(deps, new Date(purgeAfter.getTime() - 86_400_000))).toBe(0);
    expect(await purgeExpiredIdentityEvidence(deps, new Date(purgeAfter.getTime() + 86_400_000))).toBeGreaterThanOrEqual(1);
    expect(await storage.has(image?.storageKey ?? '')).toBe(false);
    const [purged] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(purged).toMatchObject({ statementSealed: '', credentialFields: null, documentNumberSealed: null });
    expect(purged?.purgedAt).not.toBeNull();
    expect((await kit.call(c.notary, 'GET', `/api/identity/${check.checkId}/images/selfie`)).statusCode).toBe(404);
    const events = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, c.job.id), eq(auditEvents.action, 'identity.purged')));
    expect(events).toHaveLength(1);
  });
});

// Texas uses its own row: one retake, then 24 hours locked.
describe('the state of the notary’s commission picks the rules', () => {
  it('applies Texas: one retake, then locked for 24 hours', async () => {
    const c = await cast();
    await t.db.update(notaryProfiles).set({ commissionState: 'TX' }).where(eq(notaryProfiles.userId, c.notary.id));
    const check = await start(c);
    expect(check.policyCode).toBe('TX');
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const { questions } = await quiz(c.signer, check.checkId);
      await answer(c.signer, check.checkId, questions as KbaQuestions, 2);
    }
    const after = (await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json() as IdentityCheck;
    expect(after.status).toBe('locked');
    expect(Date.parse(after.kba.lockedUntil ?? '') - Date.now()).toBeGreaterThan(23 * 3600_000);
  });
});

describe('credential analysis through the API', () => {
  it('reads a licence’s barcode, shows what failed in sentences, and accepts a retake that matches', { timeout: 90_000 }, async () => {
    const c = await cast();
    const check = await start(c);
    const url = `/api/identity/${check.checkId}/credential`;
    const front = await makeLicenceFront();
    // The person states a name the licence does not carry: the analysis says so and asks again.
    const mismatched = await upload(
      c.signer,
      url,
      [
        { field: 'front', name: 'front.png', content: front },
        { field: 'back', name: 'back.png', content: await makeLicenceBack() },
      ],
      { documentType: 'drivers_license' },
    );
    expect(mismatched.statusCode, mismatched.body).toBe(200);
    const failed = mismatched.json() as IdentityCheck;
    expect(failed.credential.status).toBe('failed');
    expect(failed.credential.checks.find((item) => item.id === 'name_matches')).toMatchObject({ passed: false });
    expect(failed.credential.fields).toMatchObject({ lastName: 'SAMPLE', documentNumberLast4: '5678' });
    expect(JSON.stringify(failed)).not.toContain('12345678');
    expect(failed.nextStep).toBe('Your ID could not be accepted. Take new photos of it.');

    const expired = { firstName: 'SAM', lastName: 'SIGNER', birthDate: '1984-07-09', expiryDate: '2024-03-01' };
    const old = await upload(
      c.signer,
      url,
      [
        { field: 'front', name: 'f.png', content: await makeLicenceFront(expired) },
        { field: 'back', name: 'b.png', content: await makeLicenceBack({ text: makeAamvaText(expired) }) },
      ],
      { documentType: 'drivers_license' },
    );
    expect(old.json().credential.checks.find((item: { id: string }) => item.id === 'not_expired')).toMatchObject({
      passed: false,
      sentence: 'This ID expired on Mar 1, 2024.',
    });

    const good = { firstName: 'SAM', lastName: 'SIGNER', birthDate: '1984-07-09' };
    const res = await kit.call(c.signer, 'POST', `/api/jobs/${c.job.id}/identity/start`, { ...statement('Sam Signer') });
    expect(res.json().checkId).toBe(check.checkId);
    // The statement cannot change once something was checked against it: the name stays the first one.
    const retake = await upload(
      c.signer,
      url,
      [
        { field: 'front', name: 'f.png', content: await makeLicenceFront(good) },
        { field: 'back', name: 'b.png', content: await makeLicenceBack({ text: makeAamvaText(good) }) },
      ],
      { documentType: 'drivers_license' },
    );
    expect(retake.json().credential.checks.find((item: { id: string }) => item.id === 'name_matches')).toMatchObject({ passed: false });
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, c.job.id), eq(auditEvents.action, 'identity.credential_checked')));
    expect(trail).toHaveLength(3);
    expect(describeAuditEvent({ ...trail[1], actorName: c.signer.name } as never)).toBe(
      `${c.signer.name}’s driver’s licence failed credential analysis (expired, name does not match).`,
    );
  });
});

describe('the act rests on the identity outcome', () => {
  it('refuses to seal until the notary confirms a finished step, then seals a notarial act naming how identity was proven', async () => {
    const notary = await kit.createNotary({ name: 'Nora Notary' });
    const signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
    await kit.saveSignature(signer);
    const job = await kit.createJob(notary, { notaryId: notary.id, signers: [{ name: signer.name, email: signer.email }] });
    expect((await kit.acceptInvitation(signer)).statusCode).toBe(200);
    const documentId = await kit.uploadPdf(notary, job.id);
    await kit.moveJob(notary, job.id, ['ready']);
    const participantId = job.participants[0]?.id ?? '';

    // The signer's step: licence, selfie, questions.
    const started = await kit.call(signer, 'POST', `/api/jobs/${job.id}/identity/start`, statement('Sam Q. Signer'));
    const checkId = started.json().checkId as string;
    const back = await makeLicenceBack({ text: makeAamvaText(samLicence) });
    const credential = await upload(
      signer,
      `/api/identity/${checkId}/credential`,
      [
        { field: 'front', name: 'f.png', content: await makeLicenceFront(samLicence) },
        { field: 'back', name: 'b.png', content: back },
      ],
      { documentType: 'drivers_license' },
    );
    expect(credential.json().credential, credential.body).toMatchObject({ status: 'passed' });
    await upload(signer, `/api/identity/${checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }]);
    const { questions } = await quiz(signer, checkId);
    const passed = await answer(signer, checkId, questions as KbaQuestions, 5);
    expect(passed.json().check.status).toBe('ready');
    expect((await kit.call(signer, 'GET', `/api/jobs/${job.id}/can-enter`)).json().identity).toMatchObject({ satisfied: true, status: 'ready' });

    const recording = await kit.startRecordedSession(notary, job.id, [signer]);
    // startRecordedSession let the signer past with a bypass; take it back so the check decides.
    expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/signers/${participantId}/id-bypass`, { enabled: false })).statusCode).toBe(200);
    const base = `/api/jobs/${job.id}/documents/${documentId}/fields`;
    const placed = await kit.call(notary, 'POST', base, { type: 'signature', participantId, page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 });
    expect((await kit.call(signer, 'POST', `${base}/${placed.json().id}/fill`, { version: 1 })).statusCode).toBe(200);
    expect((await kit.call(notary, 'POST', `/api/jobs/${job.id}/documents/${documentId}/complete`)).statusCode).toBe(200);
    await recordMedia(t, recording.recordingId, [participantId, 'notary']);

    const refused = await kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: 'identity_not_proven',
      message: 'Confirm the identity of Sam Signer first (or record how you know them). The job cannot be sealed.',
    });

    const confirmed = await kit.call(notary, 'POST', `/api/identity/${checkId}/review`, { decision: 'confirmed', reason: 'Face matches the licence photo' });
    expect(confirmed.json().status).toBe('confirmed');
    const sealed = await kit.call(notary, 'POST', `/api/jobs/${job.id}/complete-job`);
    expect(sealed.statusCode, sealed.body).toBe(200);
    expect(sealed.json().items[0]).toMatchObject({ isNotarialAct: true, notNotarialReasons: [] });
    const audit = await pdfText(kit, notary, sealed.json().items[0].downloadUrl);
    expect(audit).toContain(
      'Credential analysis of a driver’s licence passed (examined: the barcode on the back was read; it is in the AAMVA format and was issued by Virginia; the name and date of birth printed on the front match the barcode; the ID is valid until Mar 1, 2030; the name and date of birth on the ID match those the person gave. Not examined: the ID’s security features such as holograms, microprint or ultraviolet ink, and the issuing authority’s records); knowledge-based questions passed (5 of 5, attempt 1, development provider); selfie compared with the ID photo; confirmed by Nora Notary',
    );
    // People read dates on the sealed record, never ISO strings.
    expect(audit).toMatch(/confirmed by Nora Notary on \d{1,2} [A-Z][a-z]+ \d{4} at \d{2}:\d{2}:\d{2} UTC/);
    expect(audit).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });
});

describe('when the step is redone', () => {
  it('ends a passed check with the session: a later session needs a new step', async () => {
    const c = await cast();
    const check = await passEveryStep(c);
    const opened = await kit.call(c.notary, 'POST', '/api/video/session', { jobId: c.job.id });
    await kit.call(c.notary, 'POST', `/api/jobs/${c.job.id}/session/join`, { consentToRecording: true, deviceGroupId: 'desk' });
    expect((await kit.call(c.signer, 'POST', `/api/jobs/${c.job.id}/session/join`, { consentToRecording: true, deviceGroupId: 'laptop' })).statusCode).toBe(
      200,
    );
    expect((await kit.call(c.notary, 'POST', `/api/video/session/${opened.json().sessionId}/finalize`)).statusCode).toBe(200);
    expect((await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json().status).toBe('expired');
    expect((await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json().identity).toMatchObject({
      required: true,
      satisfied: false,
      checkId: null,
    });
    const events = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.jobId, c.job.id), eq(auditEvents.action, 'identity.expired')));
    expect(events.map((event) => event.data)).toEqual([expect.objectContaining({ checkId: check.checkId, reason: 'session_ended' })]);
  });

  it('ends a check after the policy’s 24 hours', async () => {
    const c = await cast();
    const check = await start(c);
    await t.db
      .update(identityChecks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(identityChecks.id, check.checkId));
    expect((await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json().status).toBe('expired');
    expect((await start(c)).checkId).not.toBe(check.checkId);
  });
});

describe('the journal draft', () => {
  it('records the ID presented, with its number only where the state allows it', async () => {
    const c = await cast();
    const check = await passEveryStep(c);
    expect((await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Matches' })).statusCode).toBe(200);
    const draft = async () => (await kit.call(c.notary, 'POST', `/api/jobs/${c.job.id}/prepare-notary-log`)).json().entries[0];
    const first = await draft();
    expect(first.identityEvidence).toEqual({
      documentType: 'drivers_license',
      issuer: 'Virginia',
      expiryDate: '2030-03-01',
      documentNumber: '12345678',
      documentNumberNote: null,
    });
    // The address the signer stated in the step is drafted for the notary to check; the proofing outcome comes with it.
    expect(first).toMatchObject({ signerAddress: '1208 Maple Avenue, Richmond, VA 23220', isIdentityProven: true, status: 'draft' });
    await t.db.update(notaryProfiles).set({ commissionState: 'TX' }).where(eq(notaryProfiles.userId, c.notary.id));
    expect((await draft()).identityEvidence).toMatchObject({
      documentNumber: null,
      documentNumberNote: 'Not recorded: 1 Tex. Admin. Code § 87.50(a) forbids the ID number in the journal.',
    });
  });
});

describe('the job’s participants carry each person’s live identity state', () => {
  const stateOf = async (c: VideoCast, person: TestUser) => {
    const job = (await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}`)).json() as { participants: Array<{ name: string; identityState?: string }> };
    return job.participants.find((participant) => participant.name === person.name)?.identityState;
  };

  it('moves from not started to in progress, ready for the notary and confirmed, never staying at "required"', async () => {
    const c = await cast();
    expect(await stateOf(c, c.signer)).toBe('not_started');
    await start(c);
    expect(await stateOf(c, c.signer)).toBe('in_progress');
    const passed = await passEveryStep(c);
    expect(await stateOf(c, c.signer)).toBe('ready');
    const confirmed = await kit.call(c.notary, 'POST', `/api/identity/${passed.checkId}/review`, {
      decision: 'confirmed',
      reason: 'The face on camera is the ID photo',
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(await stateOf(c, c.signer)).toBe('confirmed');
  });

  it('says rejected after the notary refused the proof, and waived once the notary identified the person another way', async () => {
    const c = await cast();
    const check = await start(c);
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'rejected', reason: 'Not the person on the ID' })).statusCode,
    ).toBe(200);
    expect(await stateOf(c, c.signer)).toBe('rejected');
    const url = `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}/id-bypass`;
    expect((await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'My neighbour of ten years', method: 'personal_knowledge' })).statusCode).toBe(200);
    expect(await stateOf(c, c.signer)).toBe('waived');
  });
});

describe('a co-signer does not read another person’s identity state', () => {
  it('gives each participant only their own state, and the notary everyone’s', async () => {
    const c = await cast();
    await start(c);
    const seenBy = async (viewer: TestUser) =>
      ((await kit.call(viewer, 'GET', `/api/jobs/${c.job.id}`)).json() as { participants: Array<{ name: string; identityState?: string }> }).participants.map(
        (participant) => [participant.name, participant.identityState ?? null],
      );
    expect(await seenBy(c.notary)).toContainEqual([c.signer.name, 'in_progress']);
    const byWitness = await seenBy(c.witness);
    expect(byWitness).toContainEqual([c.signer.name, null]);
    expect(byWitness.find(([name]) => name === c.witness.name)?.[1]).not.toBeNull();
  });
});

describe('the company’s webhook', () => {
  it('queues identity.passed, with no identity data, when the notary confirms a check, and nothing on a rejection', async () => {
    const c = await cast();
    const [company] = await t.db
      .insert(titleCompanies)
      .values({ name: `Hooked Title ${c.job.id.slice(0, 6)}`, approvalStatus: 'approved' })
      .returning();
    await t.db.update(jobs).set({ companyId: company!.id }).where(eq(jobs.id, c.job.id));
    const [endpoint] = await t.db
      .insert(webhookEndpoints)
      .values({
        companyId: company!.id,
        url: 'https://93.184.215.14/hooks',
        events: ['identity.passed'],
        secretSealed: encryptSecret(t.secretsKey, 'whsec_test'),
      })
      .returning();
    const deliveries = () => t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint!.id));

    const witnessCheck = await passEveryStep(c, c.witness);
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${witnessCheck.checkId}/review`, { decision: 'rejected', reason: 'Not the person' })).statusCode,
    ).toBe(200);
    expect(await deliveries()).toHaveLength(0);

    const check = await passEveryStep(c);
    expect((await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Matches' })).statusCode).toBe(200);
    const [row] = await deliveries();
    expect(JSON.parse(row!.body)).toMatchObject({
      type: 'identity.passed',
      companyId: company!.id,
      data: { jobId: c.job.id, participantId: c.idOf(c.signer), checkId: check.checkId },
    });
    for (const secret of ['SIGNER', '1984-07-09', '12345678', 'Maple', c.signer.name]) expect(row!.body).not.toContain(secret);
  });
});
