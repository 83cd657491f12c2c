import { randomUUID } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Job, JobStatus } from '#shared/jobs.ts';
import { emailOutbox, notaryProfiles } from '#server/db/schema/index.ts';
import type { TestApp, TestUser, TestUserOptions } from './create-test-app.ts';
import { startRecordedSession as startLiveSession } from './live-session.ts';
import { buildMultipart, makePdf } from './pdf-fixtures.ts';
import { makePng } from './png-fixtures.ts';

export const uniqueEmail = (prefix = 'person') => `${prefix}-${randomUUID().slice(0, 8)}@example.test`;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Job helpers over the real API of one test app: people sign in once, jobs are created, invitations
 * accepted, documents uploaded and statuses moved the way a browser would.
 */
export function createJobKit(t: TestApp) {
  const headersOf = new Map<string, Record<string, string>>();
  let pdf: Buffer | null = null;

  async function headersFor(user: TestUser): Promise<Record<string, string>> {
    const known = headersOf.get(user.id);
    if (known) return known;
    const headers = await t.signInAs(user);
    headersOf.set(user.id, headers);
    return headers;
  }

  async function call(user: TestUser, method: Method, url: string, payload?: Record<string, unknown>, extraHeaders: Record<string, string> = {}) {
    return t.app.inject({ method, url, headers: { ...(await headersFor(user)), ...extraHeaders }, ...(payload ? { payload } : {}) });
  }

  /** A notary with an approved commission. */
  async function createNotary(options: Partial<TestUserOptions> = {}): Promise<TestUser> {
    const notary = await t.createUser({ roles: ['notary'], ...options });
    await t.db.insert(notaryProfiles).values({
      userId: notary.id,
      commissionState: 'VA',
      commissionNumber: `VA-${randomUUID().slice(0, 6)}`,
      commissionExpiresOn: '2031-06-30',
      county: 'Fairfax',
      approvalStatus: 'approved',
      approvedAt: new Date(),
    });
    return notary;
  }

  async function createJob(creator: TestUser, payload: Record<string, unknown>): Promise<Job> {
    const res = await call(creator, 'POST', '/api/jobs', { title: 'Deed of trust', notarizationType: 'acknowledgment', ...payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Job;
  }

  async function getJob(user: TestUser, jobId: string): Promise<Job> {
    const res = await call(user, 'GET', `/api/jobs/${jobId}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Job;
  }

  /** Uploads a PDF and returns its document id. */
  async function uploadPdf(user: TestUser, jobId: string): Promise<string> {
    pdf ??= await makePdf(2);
    const body = buildMultipart([{ name: 'deed.pdf', content: pdf }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/documents`,
      headers: { ...(await headersFor(user)), ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().items[0].id as string;
  }

  /** The token of the newest invitation emailed to an address. */
  async function invitationTokenFor(address: string): Promise<string> {
    const [mail] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, address.toLowerCase())).orderBy(desc(emailOutbox.createdAt)).limit(1);
    const token = mail?.textBody.match(new RegExp(`${t.config.publicUrl}/claim/([\\w-]+)`))?.[1];
    if (!token) throw new Error(`no invitation link was emailed to ${address}`);
    return token;
  }

  /** The person opens the newest invitation sent to their email, signed in. */
  async function acceptInvitation(user: TestUser) {
    return call(user, 'POST', `/api/invites/${await invitationTokenFor(user.email)}/accept`);
  }

  /** Moves a job through statuses as the given person, expecting each move to succeed. */
  async function moveJob(user: TestUser, jobId: string, statuses: JobStatus[]): Promise<Job> {
    let job = await getJob(user, jobId);
    for (const status of statuses) {
      const res = await call(user, 'PATCH', `/api/jobs/${jobId}`, { status, version: job.version });
      expect(res.statusCode, `${job.status} -> ${status}: ${res.body}`).toBe(200);
      job = res.json() as Job;
    }
    return job;
  }

  /**
   * The job's notary completes every document and seals the job (POST /complete-job), the only way to
   * `completed`. Signers and witnesses not yet past the identity step are identified by the notary's
   * personal knowledge (a bypass with a method the state allows): sealing is what these tests are about.
   */
  async function sealJob(notary: TestUser, jobId: string): Promise<Job> {
    for (const participant of (await getJob(notary, jobId)).participants) {
      if (participant.role === 'observer' || participant.isIdBypassed) continue;
      const res = await call(notary, 'POST', `/api/jobs/${jobId}/signers/${participant.id}/id-bypass`, {
        enabled: true,
        reason: 'Identity step not under test here',
        method: 'personal_knowledge',
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const documents = (await call(notary, 'GET', `/api/jobs/${jobId}/documents`)).json().items as Array<{ id: string; status: string }>;
    for (const document of documents.filter((item) => item.status !== 'completed')) {
      const res = await call(notary, 'POST', `/api/jobs/${jobId}/documents/${document.id}/complete`);
      expect(res.statusCode, res.body).toBe(200);
    }
    const sealed = await call(notary, 'POST', `/api/jobs/${jobId}/complete-job`);
    expect(sealed.statusCode, sealed.body).toBe(200);
    return getJob(notary, jobId);
  }

  /** Saves a signature (or initials) image through the API, as the signature page does. */
  async function saveSignature(user: TestUser, kind: 'signature' | 'initials' = 'signature') {
    const imageDataUrl = `data:image/png;base64,${makePng(60, 20, { color: [0, 51, 91] }).toString('base64')}`;
    const res = await call(user, 'POST', kind === 'signature' ? '/api/signature' : '/api/initials', {
      imageDataUrl,
      method: 'draw',
      hasAgreedToSignElectronically: true,
    });
    expect(res.statusCode, res.body).toBe(201);
  }

  /**
   * The notary starts the job's live session with these people admitted (they accepted their
   * invitations) and starts recording it: the job is in session and its fields may be filled.
   */
  async function startRecordedSession(notary: TestUser, jobId: string, signers: TestUser[]) {
    const job = await getJob(notary, jobId);
    const people = [];
    for (const signer of signers) {
      const participantId = job.participants.find((participant) => participant.email === signer.email)?.id;
      if (!participantId) throw new Error(`${signer.email} is not on the job`);
      people.push({ headers: await headersFor(signer), participantId });
    }
    return startLiveSession(t, jobId, await headersFor(notary), people);
  }

  return {
    headersFor,
    call,
    createNotary,
    createJob,
    getJob,
    uploadPdf,
    invitationTokenFor,
    acceptInvitation,
    moveJob,
    sealJob,
    saveSignature,
    startRecordedSession,
  };
}

export type JobKit = ReturnType<typeof createJobKit>;
