import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityCheck, KbaQuestions } from '#shared/identity.ts';
import { identityPolicies } from '#shared/identity-policies.ts';
import { auditEvents, identityChecks, identityImages, identityKbaAttempts, jobParticipants, jobs, notaryProfiles } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { makePng } from '#test/png-fixtures.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import { makeAamvaText, makeLicenceBack, makeLicenceFront } from '#test/id-documents.ts';
import { findUnprovenPeople } from './identity-evidence.ts';

// Attacks on the identity step: each test asserts what the platform must hold.

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

/** What the person states: a street that the licence does not carry, so it can be traced. */
const statement = {
  legalName: 'Sam Signer',
  birthDate: '1984-07-09',
  address: { street: '77 Hidden Orchard Lane', city: 'Richmond', state: 'VA', postalCode: '23220' },
};
/** The full ID number (DAQ) of the licence used here; only its last four may ever be shown. */
const documentNumber = 'D90817263';
const samLicence = { state: 'VA', issuerNumber: '636000', firstName: 'SAM', lastName: 'SIGNER', birthDate: '1984-07-09', documentNumber };
const licenceText = () => makeAamvaText(samLicence);
const selfie = () => makePng(64, 64, { color: [180, 140, 120] });

async function cast(): Promise<VideoCast> {
  return castVideoJob(t, kit, { identity: 'unproven' });
}

async function start(c: VideoCast, person: TestUser = c.signer): Promise<IdentityCheck> {
  const res = await kit.call(person, 'POST', `/api/jobs/${c.job.id}/identity/start`, statement);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as IdentityCheck;
}

async function keyOf(attemptId: string): Promise<Map<string, string>> {
  const [row] = await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.id, attemptId));
  return new Map((row?.quiz ?? []).map((question) => [question.key, question.correctChoiceId]));
}

async function quiz(person: TestUser, checkId: string): Promise<KbaQuestions> {
  const res = await kit.call(person, 'GET', `/api/identity/${checkId}/kba/questions`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as KbaQuestions;
}

async function rightAnswers(questions: KbaQuestions) {
  const key = await keyOf(questions.attemptId);
  return questions.questions.map((question) => ({ questionId: question.id, choiceId: key.get(question.id) ?? '' }));
}

async function answer(person: TestUser, checkId: string, questions: KbaQuestions) {
  return kit.call(person, 'POST', `/api/identity/${checkId}/kba/answers`, { attemptId: questions.attemptId, answers: await rightAnswers(questions) });
}

type Upload = { field: string; name: string; content: Buffer; type?: string };
async function upload(person: TestUser | null, url: string, files: Upload[], fields: Record<string, string> = {}, headers: Record<string, string> = {}) {
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
  const auth = person ? await t.signInAs(person) : {};
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...auth, ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat(parts),
  });
}

async function licence(): Promise<Upload[]> {
  return [
    { field: 'front', name: 'front.png', content: await makeLicenceFront(samLicence) },
    { field: 'back', name: 'back.png', content: await makeLicenceBack({ text: licenceText() }) },
  ];
}

/** Takes every step of the signer's check: licence, selfie, questions; the check is then ready. */
async function makeReady(c: VideoCast, person: TestUser = c.signer): Promise<IdentityCheck> {
  const check = await start(c, person);
  const credential = await upload(person, `/api/identity/${check.checkId}/credential`, await licence(), { documentType: 'drivers_license' });
  expect(credential.json().credential.status, credential.body).toBe('passed');
  expect((await upload(person, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }])).statusCode).toBe(200);
  const passed = await answer(person, check.checkId, await quiz(person, check.checkId));
  expect(passed.json().check.status, passed.body).toBe('ready');
  return passed.json().check as IdentityCheck;
}

/** Every failed call answers `{message}` or `{error, detail}`. */
function expectErrorShape(body: string) {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(typeof parsed.message === 'string' || (typeof parsed.error === 'string' && 'detail' in parsed), body).toBe(true);
}

async function auditOf(jobId: string) {
  return t.db.select().from(auditEvents).where(eq(auditEvents.jobId, jobId));
}

describe('other people’s checks', () => {
  it('shows a signer’s check to nobody else on the job, no other notary and no anonymous caller', async () => {
    const c = await cast();
    const check = await start(c);
    const otherNotary = await kit.createNotary();
    const url = `/api/identity/${check.checkId}`;
    for (const person of [c.witness, c.agent, c.observer, c.stranger, otherNotary]) {
      const res = await kit.call(person, 'GET', url);
      expect(res.statusCode, `${person.email}: ${res.body}`).toBe(404);
      expectErrorShape(res.body);
      expect(res.body).not.toContain(c.signer.name);
      expect((await kit.call(person, 'GET', `${url}/images/selfie`)).statusCode).toBe(404);
    }
    const anonymous = await t.app.inject({ method: 'GET', url });
    expect(anonymous.statusCode).toBe(401);
    expectErrorShape(anonymous.body);
  });

  it('takes photos, questions, answers and resume links into a check from its owner only', async () => {
    const c = await cast();
    const check = await start(c);
    const ownQuiz = await quiz(c.signer, check.checkId);
    const base = `/api/identity/${check.checkId}`;
    const otherNotary = await kit.createNotary();
    const admin = await t.createUser({ roles: ['admin'] });
    for (const person of [c.witness, c.agent, c.observer, c.stranger, otherNotary, c.notary, admin]) {
      const isAllowedToSee = person === c.notary || person === admin;
      const expected = isAllowedToSee ? 403 : 404;
      const selfieRes = await upload(person, `${base}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }]);
      expect(selfieRes.statusCode, `${person.email} selfie`).toBe(expected);
      const credentialRes = await upload(person, `${base}/credential`, await licence(), { documentType: 'drivers_license' });
      expect(credentialRes.statusCode, `${person.email} credential`).toBe(expected);
      expect((await kit.call(person, 'GET', `${base}/kba/questions`)).statusCode, `${person.email} questions`).toBe(expected);
      const answers = await kit.call(person, 'POST', `${base}/kba/answers`, { attemptId: ownQuiz.attemptId, answers: await rightAnswers(ownQuiz) });
      expect(answers.statusCode, `${person.email} answers`).toBe(expected);
      expect((await kit.call(person, 'POST', `${base}/resume-link`)).statusCode, `${person.email} resume-link`).toBe(expected);
    }
    // Nothing of theirs landed on the check.
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row).toMatchObject({ credentialAttempts: 0, selfieReceivedAt: null, resumeTokenHash: null, status: 'in_progress' });
    expect(await t.db.select().from(identityImages).where(eq(identityImages.checkId, check.checkId))).toHaveLength(0);
    const [attempt] = await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.id, ownQuiz.attemptId));
    expect(attempt?.submittedAt).toBeNull();
  });

  it('lets only the job’s notary review, and lists a job’s identity to its notary and admins only', async () => {
    const c = await cast();
    const check = await makeReady(c);
    const otherNotary = await kit.createNotary();
    const admin = await t.createUser({ roles: ['admin'] });
    const review = { decision: 'confirmed', reason: 'Looks like the photo' };
    expect((await kit.call(otherNotary, 'POST', `/api/identity/${check.checkId}/review`, review)).statusCode).toBe(404);
    // The decision rests with the notary of the act; an administrator does not confirm anyone.
    expect((await kit.call(admin, 'POST', `/api/identity/${check.checkId}/review`, review)).statusCode).toBe(403);
    for (const person of [c.signer, c.witness, c.agent, c.observer]) {
      expect((await kit.call(person, 'POST', `/api/identity/${check.checkId}/review`, review)).statusCode).toBe(403);
    }
    expect((await t.app.inject({ method: 'POST', url: `/api/identity/${check.checkId}/review`, payload: review })).statusCode).toBe(401);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row?.reviewDecision).toBeNull();

    const list = `/api/jobs/${c.job.id}/identity`;
    for (const person of [c.signer, c.witness, c.agent, c.observer]) expect((await kit.call(person, 'GET', list)).statusCode, person.email).toBe(403);
    for (const person of [c.stranger, otherNotary]) expect((await kit.call(person, 'GET', list)).statusCode, person.email).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: list })).statusCode).toBe(401);
    expect((await kit.call(admin, 'GET', list)).statusCode).toBe(200);
  });

  it('does not let a signer of one job answer the quiz of another job with its attempt id', async () => {
    const a = await cast();
    const b = await cast();
    const checkA = await start(a);
    const checkB = await start(b);
    const quizB = await quiz(b.signer, checkB.checkId);
    const stolen = await kit.call(a.signer, 'POST', `/api/identity/${checkA.checkId}/kba/answers`, {
      attemptId: quizB.attemptId,
      answers: await rightAnswers(quizB),
    });
    expect(stolen.statusCode).toBe(404);
    expectErrorShape(stolen.body);
    const [row] = await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.id, quizB.attemptId));
    expect(row?.submittedAt).toBeNull();
  });
});

describe('the resume token', () => {
  async function link(c: VideoCast, checkId: string): Promise<string> {
    const res = await kit.call(c.signer, 'POST', `/api/identity/${checkId}/resume-link`);
    expect(res.statusCode, res.body).toBe(200);
    return String(res.json().url).split('/').pop() ?? '';
  }

  it('opens nothing but its own check’s steps: no review, no images, no new link, no token in the query', async () => {
    const other = await cast();
    const check = await start(other);
    const fresh = await cast();
    const open = await start(fresh);
    const freshToken = await link(fresh, open.checkId);
    const header = { 'x-identity-resume': freshToken };
    const base = `/api/identity/${open.checkId}`;
    expect((await t.app.inject({ method: 'GET', url: base, headers: header })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: `${base}/review`, headers: header, payload: { decision: 'confirmed', reason: 'It is me, honestly' } }))
        .statusCode,
    ).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: `${base}/resume-link`, headers: header })).statusCode).toBe(401);
    for (const kind of ['front', 'back', 'selfie'])
      expect((await t.app.inject({ method: 'GET', url: `${base}/images/${kind}`, headers: header })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/api/jobs/${fresh.job.id}/identity`, headers: header })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `${base}?x-identity-resume=${freshToken}` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `${base}?token=${freshToken}` })).statusCode).toBe(401);
    // Another person's token on a check: 404, and a stranger signed in with a token gets only that one check.
    expect((await t.app.inject({ method: 'GET', url: `/api/identity/${check.checkId}`, headers: header })).statusCode).toBe(404);
    expect((await kit.call(other.stranger, 'GET', `/api/identity/${check.checkId}`, undefined, header)).statusCode).toBe(404);
  });

  it('stops the old link working once a new one is issued', async () => {
    const c = await cast();
    const check = await start(c);
    const first = await link(c, check.checkId);
    const second = await link(c, check.checkId);
    expect(second).not.toBe(first);
    expect((await t.app.inject({ method: 'GET', url: `/api/identity/resume/${first}` })).statusCode).toBe(404);
    const old = await upload(
      null,
      `/api/identity/${check.checkId}/selfie`,
      [{ field: 'selfie', name: 'me.png', content: selfie() }],
      {},
      { 'x-identity-resume': first },
    );
    expect(old.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/identity/resume/${second}` })).statusCode).toBe(200);
  });

  it('stops working at once when the title company puts someone else in the signer’s place, and never shows the new person', async () => {
    const c = await cast();
    const check = await start(c);
    const token = await link(c, check.checkId);
    expect((await t.app.inject({ method: 'GET', url: `/api/identity/resume/${token}` })).statusCode).toBe(200);
    const newcomer = await t.createUser({ roles: ['signer'], name: 'Nadia Newcomer' });
    const swapped = await kit.call(c.agent, 'PATCH', `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}`, { email: newcomer.email, name: newcomer.name });
    expect(swapped.statusCode, swapped.body).toBe(200);
    const header = { 'x-identity-resume': token };
    for (const url of [`/api/identity/resume/${token}`, `/api/identity/${check.checkId}`, `/api/identity/${check.checkId}/kba/questions`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: header });
      expect([404, 410], `${url}: ${res.body}`).toContain(res.statusCode);
      expectErrorShape(res.body);
      expect(res.body).not.toContain('Nadia');
      expect(res.body).not.toContain(newcomer.email);
    }
    const photo = await upload(null, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }], {}, header);
    expect([404, 410], photo.body).toContain(photo.statusCode);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row).toMatchObject({ resumeTokenHash: null, resumeExpiresAt: null, selfieReceivedAt: null });
  });

  it('stops working at once when the signer is removed from the job', async () => {
    const c = await cast();
    const check = await start(c);
    const token = await link(c, check.checkId);
    const removed = await kit.call(c.agent, 'DELETE', `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}`);
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    const res = await t.app.inject({ method: 'GET', url: `/api/identity/resume/${token}` });
    expect([404, 410], res.body).toContain(res.statusCode);
    expectErrorShape(res.body);
    expect((await t.app.inject({ method: 'GET', url: `/api/identity/${check.checkId}`, headers: { 'x-identity-resume': token } })).statusCode).toBe(404);
  });

  it('refuses malformed and expired token headers in the error shape, writing nothing', async () => {
    const c = await cast();
    const check = await start(c);
    const token = await link(c, check.checkId);
    const url = `/api/identity/${check.checkId}`;
    for (const value of ['short', 'x'.repeat(101), `${token}'; drop table users;--`, '../../etc/passwd', ' '.repeat(30)]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-identity-resume': value } });
      expect([401, 404], `${value}: ${res.statusCode}`).toContain(res.statusCode);
      expectErrorShape(res.body);
    }
    const badPath = await t.app.inject({ method: 'GET', url: '/api/identity/resume/not!a!token' });
    expect(badPath.statusCode).toBe(400);
    expectErrorShape(badPath.body);

    await t.db
      .update(identityChecks)
      .set({ resumeExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(identityChecks.id, check.checkId));
    const expired = await upload(null, `${url}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }], {}, { 'x-identity-resume': token });
    expect(expired.statusCode).toBe(410);
    expectErrorShape(expired.body);
    expect((await t.app.inject({ method: 'GET', url: `${url}/kba/questions`, headers: { 'x-identity-resume': token } })).statusCode).toBe(410);
    expect(await t.db.select().from(identityImages).where(eq(identityImages.checkId, check.checkId))).toHaveLength(0);
    expect(await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.checkId, check.checkId))).toHaveLength(0);
  });
});

describe('knowledge-based questions under attack', () => {
  it('counts only the first answer to a question, ignores unknown ids, and refuses more than fifty answers', async () => {
    const c = await cast();
    const check = await start(c);
    const questions = await quiz(c.signer, check.checkId);
    const key = await keyOf(questions.attemptId);
    // Every choice of every question, a wrong one first, and invented questions marked right.
    const shotgun = questions.questions.flatMap((question) => {
      const correct = key.get(question.id) ?? '';
      const wrong = question.choices.filter((choice) => choice.id !== correct).map((choice) => ({ questionId: question.id, choiceId: choice.id }));
      return [...wrong, { questionId: question.id, choiceId: correct }];
    });
    const tooMany = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, {
      attemptId: questions.attemptId,
      answers: [...shotgun, ...shotgun, ...shotgun],
    });
    expect(tooMany.statusCode).toBe(400);
    expectErrorShape(tooMany.body);
    const invented = [
      { questionId: 'made-up-1', choiceId: 'made-up-1-1' },
      { questionId: 'made-up-2', choiceId: 'made-up-2-1' },
    ];
    const res = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, {
      attemptId: questions.attemptId,
      answers: [...shotgun.slice(0, 48), ...invented],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ passed: false, total: 5 });
    expect(res.json().correct).toBeLessThan(4);
  });

  it('starts one quiz when two are asked for at once, and scores one of two answers sent at once', async () => {
    const c = await cast();
    const check = await start(c);
    const url = `/api/identity/${check.checkId}/kba/questions`;
    const [first, second] = await Promise.all([kit.call(c.signer, 'GET', url), kit.call(c.signer, 'GET', url)]);
    expect([first?.statusCode, second?.statusCode]).toEqual([200, 200]);
    expect(first?.json().attemptId).toBe(second?.json().attemptId);
    expect(await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.checkId, check.checkId))).toHaveLength(1);

    const questions = first?.json() as KbaQuestions;
    const body = { attemptId: questions.attemptId, answers: await rightAnswers(questions) };
    const answersUrl = `/api/identity/${check.checkId}/kba/answers`;
    const results = await Promise.all([kit.call(c.signer, 'POST', answersUrl, body), kit.call(c.signer, 'POST', answersUrl, body)]);
    expect(results.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    const answered = (await auditOf(c.job.id)).filter((event) => event.action === 'identity.kba_answered');
    expect(answered).toHaveLength(1);
  });

  it('never sends the quiz key and never stores the answers', async () => {
    const c = await cast();
    const check = await start(c);
    const questions = await quiz(c.signer, check.checkId);
    const key = await keyOf(questions.attemptId);
    const bodies: string[] = [JSON.stringify(questions)];
    expect(bodies[0]).not.toContain('correctChoiceId');
    expect(bodies[0]).not.toMatch(/correct|isRight|answer/i);
    const sent = await rightAnswers(questions);
    const res = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, { attemptId: questions.attemptId, answers: sent });
    bodies.push(res.body);
    bodies.push((await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).body);
    bodies.push((await kit.call(c.notary, 'GET', `/api/identity/${check.checkId}`)).body);
    bodies.push((await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}/identity`)).body);
    for (const body of bodies) expect(body).not.toContain('correctChoiceId');
    // After the answer, no body names a right choice.
    for (const body of bodies.slice(1)) for (const choice of key.values()) expect(body).not.toContain(choice);
    const [row] = await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.id, questions.attemptId));
    const stored = JSON.stringify(row);
    for (const answerSent of sent) expect(stored).not.toContain(answerSent.choiceId);
    const trail = JSON.stringify(await auditOf(c.job.id));
    for (const answerSent of sent) expect(trail).not.toContain(answerSent.choiceId);
  });

  it('refuses answers to a quiz whose check has ended (reset by an admin) and to an old check’s quiz from the new one', async () => {
    const c = await cast();
    const check = await start(c);
    const questions = await quiz(c.signer, check.checkId);
    const body = { attemptId: questions.attemptId, answers: await rightAnswers(questions) };
    const admin = await t.createUser({ roles: ['admin'] });
    expect((await kit.call(admin, 'POST', `/api/admin/users/${c.signer.id}/reset-id`)).statusCode).toBe(200);
    const fresh = await start(c);
    expect(fresh.checkId).not.toBe(check.checkId);
    const crossed = await kit.call(c.signer, 'POST', `/api/identity/${fresh.checkId}/kba/answers`, body);
    expect(crossed.statusCode).toBe(404);
    const onEnded = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, body);
    expect(onEnded.statusCode, onEnded.body).toBe(409);
  });

  it('refuses answers once the notary rejected the check', async () => {
    const c = await cast();
    const check = await start(c);
    const questions = await quiz(c.signer, check.checkId);
    const body = { attemptId: questions.attemptId, answers: await rightAnswers(questions) };
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'rejected', reason: 'Someone else is answering' })).statusCode,
    ).toBe(200);
    const res = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, body);
    expect(res.statusCode, res.body).toBe(409);
  });

  it('asks no new questions while the check is locked', async () => {
    const c = await cast();
    const check = await start(c);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const questions = await quiz(c.signer, check.checkId);
      const wrong = questions.questions.map((question) => ({ questionId: question.id, choiceId: 'nothing' }));
      expect(
        (await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/kba/answers`, { attemptId: questions.attemptId, answers: wrong })).json().passed,
      ).toBe(false);
    }
    const refused = await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}/kba/questions`);
    expect(refused.statusCode).toBe(409);
    expectErrorShape(refused.body);
    expect(await t.db.select().from(identityKbaAttempts).where(eq(identityKbaAttempts.checkId, check.checkId))).toHaveLength(3);
    // Restarting the step does not give a locked person a fresh check.
    expect((await start(c)).checkId).toBe(check.checkId);
  });
});

describe('the notary’s review under attack', () => {
  it('does not confirm a check whose steps never passed by rejecting it first', async () => {
    const c = await cast();
    const check = await start(c);
    const url = `/api/identity/${check.checkId}/review`;
    expect((await kit.call(c.notary, 'POST', url, { decision: 'rejected', reason: 'Not yet, see what happens' })).statusCode).toBe(200);
    const confirmed = await kit.call(c.notary, 'POST', url, { decision: 'confirmed', reason: 'Changed my mind' });
    expect(confirmed.statusCode, confirmed.body).toBe(409);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row?.reviewDecision).toBe('rejected');
  });

  it('does not count a confirmation given after a rejection, without the steps, as proof for sealing', async () => {
    const c = await cast();
    const check = await start(c);
    const url = `/api/identity/${check.checkId}/review`;
    await kit.call(c.notary, 'POST', url, { decision: 'rejected', reason: 'Not yet, see what happens' });
    await kit.call(c.notary, 'POST', url, { decision: 'confirmed', reason: 'Changed my mind' });
    expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).toContain(c.signer.name);
  });

  it('does not seal on a confirmation an admin ended with reset-id', async () => {
    const c = await cast();
    const check = await makeReady(c);
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Face matches the photo' })).statusCode,
    ).toBe(200);
    expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).not.toContain(c.signer.name);
    const admin = await t.createUser({ roles: ['admin'] });
    expect((await kit.call(admin, 'POST', `/api/admin/users/${c.signer.id}/reset-id`)).json()).toMatchObject({ checksEnded: 1 });
    expect((await kit.call(c.notary, 'GET', `/api/identity/${check.checkId}`)).json().status).toBe('expired');
    expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).toContain(c.signer.name);
  });

  it('does not confirm a check that expired, nor one of another notary’s job', async () => {
    const c = await cast();
    const check = await makeReady(c);
    const other = await cast();
    expect(
      (await kit.call(other.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Looks right to me' })).statusCode,
    ).toBe(404);
    await t.db
      .update(identityChecks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(identityChecks.id, check.checkId));
    const late = await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Looks right to me' });
    expect(late.statusCode).toBe(409);
    expectErrorShape(late.body);
  });
});

describe('bypasses under attack', () => {
  it('takes no bypass from the title agent, a witness, an observer or a stranger', async () => {
    const c = await cast();
    const url = `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}/id-bypass`;
    const body = { enabled: true, reason: 'I vouch for them', method: 'personal_knowledge' };
    expect((await kit.call(c.agent, 'POST', url, body)).statusCode).toBe(403);
    expect((await kit.call(c.witness, 'POST', url, body)).statusCode).toBe(403);
    expect((await kit.call(c.observer, 'POST', url, body)).statusCode).toBe(403);
    // A signer from elsewhere is stopped at the door by role; a notary from elsewhere does not learn the job exists.
    expect((await kit.call(c.stranger, 'POST', url, body)).statusCode).toBe(403);
    expect((await kit.call(await kit.createNotary(), 'POST', url, body)).statusCode).toBe(404);
    const [row] = await t.db
      .select()
      .from(jobParticipants)
      .where(eq(jobParticipants.id, c.idOf(c.signer)));
    expect(row?.isIdBypassed).toBe(false);
  });

  it('takes no bypass without a method, nor with one the state’s rules do not allow, and counts only an allowed one for can-enter', async () => {
    const c = await cast();
    const url = `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}/id-bypass`;
    const canEnter = async () => (await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json().identity;
    const row = async () =>
      (
        await t.db
          .select()
          .from(jobParticipants)
          .where(eq(jobParticipants.id, c.idOf(c.signer)))
      )[0];

    const bare = await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'Identity step not needed' });
    expect([400, 422], bare.body).toContain(bare.statusCode);
    expectErrorShape(bare.body);
    expect(bare.body).toMatch(/personal knowledge|credible witness/i);
    expect(await row()).toMatchObject({ isIdBypassed: false, idBypassMethod: null });
    expect(await canEnter()).toMatchObject({ required: true, satisfied: false });

    // A state whose row allows only personal knowledge: a credible witness is refused, naming the state.
    expect((await t.db.update(notaryProfiles).set({ commissionState: 'VA' }).where(eq(notaryProfiles.userId, c.notary.id)).returning()).length).toBe(1);
    const virginia = identityPolicies.find((policy) => policy.code === 'VA');
    if (!virginia) throw new Error('no Virginia row');
    const allowed = virginia.bypassMethods;
    virginia.bypassMethods = ['personal_knowledge'];
    try {
      const witnessed = await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'Wendy vouched for them on camera', method: 'credible_witness' });
      expect([400, 422], witnessed.body).toContain(witnessed.statusCode);
      expectErrorShape(witnessed.body);
      expect(witnessed.json().message).toContain('Virginia');
      expect(await row()).toMatchObject({ isIdBypassed: false });
      // A bypass stored before the rule changed (or before a method was asked for) does not open the session.
      await t.db
        .update(jobParticipants)
        .set({ isIdBypassed: true, idBypassReason: 'Stored earlier', idBypassMethod: 'credible_witness' })
        .where(eq(jobParticipants.id, c.idOf(c.signer)));
      expect(await canEnter()).toMatchObject({ required: true, satisfied: false });
      await t.db
        .update(jobParticipants)
        .set({ idBypassMethod: null })
        .where(eq(jobParticipants.id, c.idOf(c.signer)));
      expect(await canEnter()).toMatchObject({ required: true, satisfied: false });
      expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).toContain(c.signer.name);

      const known = await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'My neighbour of ten years', method: 'personal_knowledge' });
      expect(known.statusCode, known.body).toBe(200);
      expect(known.json()).toMatchObject({ isIdBypassed: true, idBypassMethod: 'personal_knowledge' });
      expect(await canEnter()).toMatchObject({ required: true, satisfied: true });
      expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).not.toContain(c.signer.name);
    } finally {
      virginia.bypassMethods = allowed;
    }
  });

  it('does not change how a person was identified once the job is sealed', async () => {
    const c = await cast();
    await t.db.update(jobs).set({ status: 'completed' }).where(eq(jobs.id, c.job.id));
    const url = `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}/id-bypass`;
    const res = await kit.call(c.notary, 'POST', url, { enabled: true, reason: 'Known to me after all', method: 'personal_knowledge' });
    expect(res.statusCode, res.body).toBe(409);
    const [row] = await t.db
      .select()
      .from(jobParticipants)
      .where(eq(jobParticipants.id, c.idOf(c.signer)));
    expect(row?.isIdBypassed).toBe(false);
  });
});

describe('the gates under attack', () => {
  it('does not let a check of one job open another job’s session to the same person', async () => {
    const a = await cast();
    const jobB = await kit.createJob(a.agent, { notaryId: a.notary.id, signers: [{ name: a.signer.name, email: a.signer.email, role: 'signer' }] });
    await kit.uploadPdf(a.agent, jobB.id);
    await kit.moveJob(a.agent, jobB.id, ['ready']);
    expect((await kit.acceptInvitation(a.signer)).statusCode).toBe(200);
    await makeReady(a);
    const canEnterA = (await kit.call(a.signer, 'GET', `/api/jobs/${a.job.id}/can-enter`)).json();
    expect(canEnterA.identity).toMatchObject({ satisfied: true, status: 'ready' });
    const canEnterB = (await kit.call(a.signer, 'GET', `/api/jobs/${jobB.id}/can-enter`)).json();
    expect(canEnterB.identity).toMatchObject({ required: true, satisfied: false, checkId: null });
  });

  it('ends the check when the session is finalized, so the next session needs a new step', async () => {
    const c = await cast();
    const check = await makeReady(c);
    const session = await kit.call(c.notary, 'POST', '/api/video/session', { jobId: c.job.id });
    expect([200, 201]).toContain(session.statusCode);
    const finalized = await kit.call(c.notary, 'POST', `/api/video/session/${session.json().sessionId}/finalize`);
    expect(finalized.statusCode, finalized.body).toBe(200);
    expect((await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).json().status).toBe('expired');
    const canEnter = (await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json();
    expect(canEnter.identity).toMatchObject({ required: true, satisfied: false, checkId: null });
    expect((await upload(c.signer, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }])).statusCode).toBe(409);
  });

  it('does not hand a proven identity to someone else put in the signer’s place', async () => {
    const c = await cast();
    const check = await makeReady(c);
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Face matches the photo' })).statusCode,
    ).toBe(200);
    const impostor = await t.createUser({ roles: ['signer'] });
    const swapped = await kit.call(c.agent, 'PATCH', `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}`, { email: impostor.email, name: impostor.name });
    expect(swapped.statusCode, swapped.body).toBe(200);
    expect((await kit.acceptInvitation(impostor)).statusCode).toBe(200);
    const canEnter = (await kit.call(impostor, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json();
    expect(canEnter.identity, JSON.stringify(canEnter)).toMatchObject({ required: true, satisfied: false });
    expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).toContain(impostor.name);
  });

  it('does not carry the notary’s personal knowledge of one person over to whoever replaces them', async () => {
    const c = await cast();
    const known = await kit.call(c.notary, 'POST', `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}/id-bypass`, {
      enabled: true,
      reason: 'My neighbour of ten years',
      method: 'personal_knowledge',
    });
    expect(known.statusCode, known.body).toBe(200);
    const impostor = await t.createUser({ roles: ['signer'] });
    const swapped = await kit.call(c.agent, 'PATCH', `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}`, { email: impostor.email, name: impostor.name });
    expect(swapped.statusCode, swapped.body).toBe(200);
    expect(swapped.json().isIdBypassed, swapped.body).toBe(false);
    expect((await kit.acceptInvitation(impostor)).statusCode).toBe(200);
    const canEnter = (await kit.call(impostor, 'GET', `/api/jobs/${c.job.id}/can-enter`)).json();
    expect(canEnter.identity).toMatchObject({ required: true, satisfied: false });
  });

  it('does not keep a confirmed identity under a name the ID does not carry', async () => {
    const c = await cast();
    const check = await makeReady(c);
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Face matches the photo' })).statusCode,
    ).toBe(200);
    const renamed = await kit.call(c.agent, 'PATCH', `/api/jobs/${c.job.id}/signers/${c.idOf(c.signer)}`, { name: 'Robert Quite Different' });
    // Either the name may no longer change, or the confirmation no longer stands for the new name.
    if (renamed.statusCode === 200) {
      expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: c.notary.id })).toContain('Robert Quite Different');
    } else {
      expect(renamed.statusCode).toBe(409);
    }
  });

  it('does not seal under a new notary on the confirmation the previous notary gave', async () => {
    const c = await cast();
    const check = await makeReady(c);
    expect(
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Face matches the photo' })).statusCode,
    ).toBe(200);
    const next = await kit.createNotary();
    const replaced = await kit.call(c.agent, 'POST', `/api/jobs/${c.job.id}/replace-notary`, { notaryId: next.id });
    expect(replaced.statusCode, replaced.body).toBe(200);
    // The new notary never saw this person: the step is theirs to judge again.
    expect(await findUnprovenPeople({ db: t.db }, { id: c.job.id, notaryId: next.id })).toContain(c.signer.name);
  });

  it('takes no photos into a check of a cancelled job', async () => {
    const c = await cast();
    const check = await start(c);
    await t.db.update(jobs).set({ status: 'cancelled' }).where(eq(jobs.id, c.job.id));
    const res = await upload(c.signer, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: selfie() }]);
    expect(res.statusCode, res.body).toBe(409);
    expect(await t.db.select().from(identityImages).where(eq(identityImages.checkId, check.checkId))).toHaveLength(0);
  });

  it('lets no one but an admin restart a person’s step', async () => {
    const c = await cast();
    const check = await start(c);
    for (const person of [c.signer, c.notary, c.agent]) {
      expect((await kit.call(person, 'POST', `/api/admin/users/${c.signer.id}/reset-id`)).statusCode).toBe(403);
      expect((await kit.call(person, 'POST', `/api/admin/users/${c.signer.id}/clear-signature-id`)).statusCode).toBe(403);
    }
    expect((await t.app.inject({ method: 'POST', url: `/api/admin/users/${c.signer.id}/reset-id` })).statusCode).toBe(401);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row?.status).toBe('in_progress');
  });
});

describe('bad input', () => {
  it('refuses a photo over 8 MB with 413 and keeps nothing of it', async () => {
    const c = await cast();
    const check = await start(c);
    const huge = Buffer.concat([selfie(), Buffer.alloc(8 * 1024 * 1024 + 10, 7)]);
    const res = await upload(c.signer, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'huge.png', content: huge }]);
    expect(res.statusCode).toBe(413);
    expectErrorShape(res.body);
    const credential = await upload(
      c.signer,
      `/api/identity/${check.checkId}/credential`,
      [
        { field: 'front', name: 'f.png', content: huge },
        { field: 'back', name: 'b.png', content: selfie() },
      ],
      { documentType: 'drivers_license' },
    );
    expect(credential.statusCode).toBe(413);
    expect(await t.db.select().from(identityImages).where(eq(identityImages.checkId, check.checkId))).toHaveLength(0);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row).toMatchObject({ credentialAttempts: 0, selfieReceivedAt: null });
    expect((await auditOf(c.job.id)).filter((event) => event.action.startsWith('identity.') && event.action !== 'identity.started')).toHaveLength(0);
  });

  it('refuses fifty files, a missing document type, wrong content types and JSON in the error shape', async () => {
    const c = await cast();
    const check = await start(c);
    const url = `/api/identity/${check.checkId}/credential`;
    const many = Array.from({ length: 50 }, (_, index) => ({ field: index % 2 ? 'front' : 'back', name: `${index}.png`, content: selfie() }));
    const flood = await upload(c.signer, url, many, { documentType: 'drivers_license' });
    expect([400, 413], flood.body).toContain(flood.statusCode);
    expectErrorShape(flood.body);
    const manySelfies = await upload(
      c.signer,
      `/api/identity/${check.checkId}/selfie`,
      many.map((file) => ({ ...file, field: 'selfie' })),
    );
    expect([400, 413], manySelfies.body).toContain(manySelfies.statusCode);
    expectErrorShape(manySelfies.body);

    const noType = await upload(c.signer, url, await licence());
    expect(noType.statusCode).toBe(400);
    expect(noType.json().message).toBe('Choose the kind of ID: driver’s licence, state ID card or passport.');
    const text = await t.app.inject({ method: 'POST', url, headers: { ...(await t.signInAs(c.signer)), 'content-type': 'text/plain' }, payload: 'front=me' });
    expect([400, 415]).toContain(text.statusCode);
    expectErrorShape(text.body);
    const json = await kit.call(c.signer, 'POST', `/api/identity/${check.checkId}/selfie`, { selfie: selfie().toString('base64') });
    expect(json.statusCode).toBe(415);
    expectErrorShape(json.body);
    const pdfAsPng = await upload(c.signer, `/api/identity/${check.checkId}/selfie`, [
      { field: 'selfie', name: 'me.png', content: Buffer.from('%PDF-1.7\n%fake'), type: 'image/png' },
    ]);
    expect(pdfAsPng.statusCode).toBe(415);

    expect(await t.db.select().from(identityImages).where(eq(identityImages.checkId, check.checkId))).toHaveLength(0);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row).toMatchObject({ credentialAttempts: 0, selfieReceivedAt: null });
  });

  it('answers invalid ids with 400 or 404 in the error shape', async () => {
    const c = await cast();
    const check = await start(c);
    const cases: Array<[string, string, Record<string, unknown> | undefined, number[]]> = [
      ['GET', '/api/identity/not-a-uuid', undefined, [400]],
      ['GET', `/api/identity/${check.checkId}/images/../../etc`, undefined, [400, 404]],
      ['GET', `/api/identity/${check.checkId}/images/statement`, undefined, [400]],
      ['GET', '/api/identity/00000000-0000-4000-8000-000000000000', undefined, [404]],
      ['GET', '/api/identity/00000000-0000-4000-8000-000000000000/kba/questions', undefined, [404]],
      ['POST', `/api/identity/${check.checkId}/kba/answers`, { attemptId: 'nope', answers: [] }, [400]],
      ['POST', `/api/identity/${check.checkId}/kba/answers`, { attemptId: '00000000-0000-4000-8000-000000000000', answers: [] }, [404]],
      ['POST', `/api/identity/${check.checkId}/kba/answers`, { attemptId: '00000000-0000-4000-8000-000000000000', answers: 'all of them' }, [400]],
      ['POST', '/api/jobs/not-a-uuid/identity/start', statement, [400]],
      ['POST', '/api/jobs/00000000-0000-4000-8000-000000000000/identity/start', statement, [404]],
      ['POST', `/api/jobs/${c.job.id}/identity/start`, { ...statement, legalName: 'x'.repeat(5000) }, [400]],
      ['POST', `/api/jobs/${c.job.id}/identity/start`, { ...statement, birthDate: '1984-02-31T00:00' }, [400]],
    ];
    for (const [method, url, payload, statuses] of cases) {
      const res = await kit.call(c.signer, method as 'GET' | 'POST', url, payload);
      expect(statuses, `${method} ${url}: ${res.statusCode} ${res.body}`).toContain(res.statusCode);
      expectErrorShape(res.body);
    }
  });
});

describe('secrets', () => {
  it('never shows the full ID number or what the person stated, and keeps images out of the audit trail', async () => {
    const c = await cast();
    const check = await start(c);
    const credential = await upload(c.signer, `/api/identity/${check.checkId}/credential`, await licence(), { documentType: 'drivers_license' });
    expect(credential.json().credential.fields.documentNumberLast4, credential.body).toBe('7263');
    const image = selfie();
    await upload(c.signer, `/api/identity/${check.checkId}/selfie`, [{ field: 'selfie', name: 'me.png', content: image }]);
    const questions = await quiz(c.signer, check.checkId);
    const answered = await answer(c.signer, check.checkId, questions);
    const bodies = [
      credential.body,
      answered.body,
      JSON.stringify(questions),
      (await kit.call(c.signer, 'GET', `/api/identity/${check.checkId}`)).body,
      (await kit.call(c.notary, 'GET', `/api/identity/${check.checkId}`)).body,
      (await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}/identity`)).body,
      (await kit.call(c.notary, 'POST', `/api/identity/${check.checkId}/review`, { decision: 'confirmed', reason: 'Face matches the photo' })).body,
      (await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}`)).body,
      (await kit.call(c.signer, 'GET', `/api/jobs/${c.job.id}/can-enter`)).body,
    ];
    for (const body of bodies) {
      expect(body).not.toContain(documentNumber);
      expect(body).not.toContain(statement.address.street);
    }
    // To the notary, nothing the person typed beyond the contract: no stated address or birth date key.
    const notaryView = JSON.parse(bodies[4] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(notaryView).sort()).toEqual(
      [
        'checkId',
        'jobId',
        'participantId',
        'personName',
        'policyCode',
        'status',
        'createdAt',
        'expiresAt',
        'credential',
        'selfie',
        'kba',
        'review',
        'images',
        'nextStep',
      ].sort(),
    );
    const trail = await auditOf(c.job.id);
    const trailText = JSON.stringify(trail);
    expect(trailText).not.toContain(documentNumber);
    expect(trailText).not.toContain(statement.address.street);
    expect(trailText).not.toContain(statement.birthDate);
    expect(trailText).not.toContain(image.toString('base64').slice(0, 40));
    expect(trailText).not.toContain('iVBORw0KGgo');
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row?.statementSealed).not.toContain(statement.address.street);
    expect(row?.documentNumberSealed ?? '').not.toContain(documentNumber);
    expect(JSON.stringify(row?.credentialFields)).not.toContain(documentNumber);
    const images = await t.db
      .select()
      .from(identityImages)
      .where(and(eq(identityImages.checkId, check.checkId), eq(identityImages.kind, 'selfie')));
    expect(JSON.stringify(images)).not.toContain(image.toString('base64').slice(0, 40));
  });
});
