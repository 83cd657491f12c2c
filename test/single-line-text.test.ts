import { randomUUID } from 'node:crypto';
import { desc, eq, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { documents, emailOutbox, jobParticipants, jobs } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

/**
 * Every name, title and document name is one line of text: a line break would show as a fake line
 * ("Bcc: …") in the emails that quote it, NUL breaks PostgreSQL, and a text-direction override
 * makes a name display differently from what is stored.
 */
const badValues = [
  ['a line break', 'Sam\nBcc: x@evil'],
  ['NUL', 'Sam\u0000Signer'],
  ['a right-to-left override', 'Sam\u202Erengis'],
] as const;

const refusal = (label: string) => `${label} must be one line of text, without line breaks, control characters or text-direction overrides.`;
const publicUrl = 'https://ron.example.test';

let t: TestApp;
let headers: Record<string, string>;
let job: Job;
let documentId: string;
let fieldId: string;
let inviteToken: string;

beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: publicUrl, REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1000' });
  headers = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
  const invited = `invited-${randomUUID().slice(0, 8)}@example.test`;
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers,
    payload: { title: 'Deed', notarizationType: 'jurat', signers: [{ name: 'Sam', email: invited }] },
  });
  job = created.json() as Job;
  const body = buildMultipart([{ name: 'deed.pdf', content: await makePdf(1) }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents`,
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
  documentId = uploaded.json().items[0].id as string;
  const field = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents/${documentId}/fields`,
    headers,
    payload: { type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.05, participantId: job.participants[0]?.id },
  });
  fieldId = field.json().id as string;
  const [mail] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, invited));
  inviteToken = mail?.textBody.match(/\/claim\/([\w-]+)/)?.[1] ?? '';
  expect(inviteToken).not.toBe('');
});
afterAll(async () => t?.close());

const unique = () => `${randomUUID().slice(0, 8)}@example.test`;
const registration = (value: string) => ({ name: 'Reg Istrant', email: `reg-${unique()}`, password: 'a long password', ...{ value } });
const notaryRegistration = { commissionState: 'TX', commissionNumber: 'C-1', commissionExpiresOn: '2031-06-30', county: 'Travis' };

/** Each input: the request carrying the bad value, the field's path in the error, its label. */
const inputs: Array<{ input: string; path: string; label: string; request: (value: string) => InjectOptions }> = [
  {
    input: 'job title (create)',
    path: 'title',
    label: 'The job title',
    request: (value) => ({ method: 'POST', url: '/api/jobs', headers, payload: { title: value, notarizationType: 'jurat' } }),
  },
  {
    input: 'participant name (create job)',
    path: 'signers.0.name',
    label: 'The participant’s name',
    request: (value) => ({
      method: 'POST',
      url: '/api/jobs',
      headers,
      payload: { title: 'Deed', notarizationType: 'jurat', signers: [{ name: value, email: unique() }] },
    }),
  },
  {
    input: 'job title (edit)',
    path: 'title',
    label: 'The job title',
    request: (value) => ({ method: 'PATCH', url: `/api/jobs/${job.id}`, headers, payload: { title: value, version: job.version } }),
  },
  {
    input: 'participant name (add)',
    path: 'name',
    label: 'The participant’s name',
    request: (value) => ({ method: 'POST', url: `/api/jobs/${job.id}/signers`, headers, payload: { name: value, email: unique() } }),
  },
  {
    input: 'participant name (edit)',
    path: 'name',
    label: 'The participant’s name',
    request: (value) => ({ method: 'PATCH', url: `/api/jobs/${job.id}/signers/${job.participants[0]?.id}`, headers, payload: { name: value } }),
  },
  {
    input: 'registration name',
    path: 'name',
    label: 'Your name',
    request: (value) => ({ method: 'POST', url: '/api/auth/register/user', payload: { ...registration(value), name: value } }),
  },
  {
    input: 'notary commission number',
    path: 'commissionNumber',
    label: 'The commission number',
    request: (value) => ({
      method: 'POST',
      url: '/api/auth/register/notary',
      payload: { ...registration(value), ...notaryRegistration, commissionNumber: value },
    }),
  },
  {
    input: 'notary county',
    path: 'county',
    label: 'The county',
    request: (value) => ({ method: 'POST', url: '/api/auth/register/notary', payload: { ...registration(value), ...notaryRegistration, county: value } }),
  },
  {
    input: 'company name',
    path: 'companyName',
    label: 'The company name',
    request: (value) => ({ method: 'POST', url: '/api/auth/register/title-company', payload: { ...registration(value), companyName: value } }),
  },
  {
    input: 'name when claiming an invitation',
    path: 'name',
    label: 'Your name',
    request: (value) => ({
      method: 'POST',
      url: `/api/invites/${inviteToken}/claim`,
      payload: { name: value, email: 'whoever@example.test', password: 'a long password' },
    }),
  },
  {
    input: 'document name (rename)',
    path: 'name',
    label: 'The document name',
    request: (value) => ({
      method: 'PATCH',
      url: `/api/jobs/${job.id}/documents/${documentId}`,
      headers: { ...headers, 'if-match': '1' },
      payload: { name: value, clientSnapshotVersion: 1 },
    }),
  },
  {
    input: 'document name (flush beacon)',
    path: 'name',
    label: 'The document name',
    request: (value) => ({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents/${documentId}/flush`,
      headers,
      payload: { name: value, clientSnapshotVersion: 1 },
    }),
  },
  {
    input: 'text typed into a field',
    path: 'value',
    label: 'The field text',
    request: (value) => ({
      method: 'POST',
      url: `/api/jobs/${job.id}/documents/${documentId}/fields/${fieldId}/fill`,
      headers,
      payload: { value, version: 1 },
    }),
  },
  {
    input: 'audit asset tag',
    path: 'tag',
    label: 'The tag',
    request: (value) => ({ method: 'POST', url: `/api/jobs/${job.id}/audit/assets`, headers, payload: { tag: value, docId: documentId } }),
  },
];

describe.each(inputs)('the $input', ({ path, label, request }) => {
  it.each(badValues)('is refused with 400 naming the field when it holds %s', async (_name, value) => {
    const res = await t.app.inject(request(value));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'validation_failed', message: refusal(label), detail: [{ path, message: refusal(label) }] });
  });
});

describe('an uploaded file’s name', () => {
  /** An upload whose file name is sent as an RFC 5987 extended parameter, which can carry any character. */
  async function uploadNamed(value: string) {
    const before = await t.db
      .select({ count: sql<number>`count(*)::int` })
      .from(documents)
      .where(eq(documents.jobId, job.id));
    const body = buildMultipart([{ name: 'placeholder.pdf', content: await makePdf(1) }]);
    const payload = Buffer.from(
      body.payload.toString('latin1').replace('filename="placeholder.pdf"', `filename*=UTF-8''${encodeURIComponent(value)}.pdf`),
      'latin1',
    );
    const res = await t.app.inject({ method: 'POST', url: `/api/jobs/${job.id}/documents`, headers: { ...headers, ...body.headers }, payload });
    const after = await t.db
      .select({ count: sql<number>`count(*)::int` })
      .from(documents)
      .where(eq(documents.jobId, job.id));
    return { res, isUnchanged: after[0]?.count === before[0]?.count };
  }

  it.each(badValues.slice(1))('is refused with 400 naming the field when it holds %s, and nothing is stored', async (_name, value) => {
    const { res, isUnchanged } = await uploadNamed(value);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'validation_failed',
      message: refusal('The file name'),
      detail: [{ path: 'files', message: refusal('The file name') }],
    });
    expect(isUnchanged).toBe(true);
  });

  it('never stores a name with a line break: the multipart parser drops such a part, so the upload has no file', async () => {
    const { res, isUnchanged } = await uploadNamed('Sam\nBcc: x@evil');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'no_file' });
    expect(isUnchanged).toBe(true);
  });
});

describe('free-text reasons', () => {
  it('may span lines but may not hold NUL or a text-direction override', async () => {
    for (const value of ['Changed\u0000', 'Changed\u202E']) {
      const res = await t.app.inject({ method: 'PATCH', url: `/api/jobs/${job.id}`, headers, payload: { title: 'Deed', reason: value, version: job.version } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        error: 'validation_failed',
        detail: [{ path: 'reason', message: 'The reason must be plain text, without control characters or text-direction overrides.' }],
      });
    }
  });
});

describe('emails quoting names and titles stored before these rules', () => {
  it('keep each name and title on its own line: no fake header lines, a one-line subject', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/jobs',
      headers,
      payload: { title: 'Old job', notarizationType: 'jurat', signers: [{ name: 'Old', email: unique() }] },
    });
    const old = created.json() as Job;
    const participantId = old.participants[0]?.id ?? '';
    await t.db.update(jobs).set({ title: 'Old job\r\nBcc: x@evil' }).where(eq(jobs.id, old.id));
    await t.db
      .update(jobParticipants)
      .set({ name: 'Sam\nBcc: y@evil', invitedAt: new Date(Date.now() - 3600_000) })
      .where(eq(jobParticipants.id, participantId));
    const reminded = await t.app.inject({ method: 'POST', url: `/api/jobs/${old.id}/signers/${participantId}/remind`, headers, payload: {} });
    expect(reminded.statusCode, reminded.body).toBe(200);
    const notified = await t.app.inject({ method: 'POST', url: `/api/jobs/${old.id}/notify`, headers });
    expect(notified.statusCode, notified.body).toBe(200);
    const mails = await t.db
      .select()
      .from(emailOutbox)
      .where(eq(emailOutbox.toAddress, old.participants[0]?.email ?? ''))
      .orderBy(desc(emailOutbox.createdAt));
    expect(mails.map((mail) => mail.kind)).toEqual(['job_update', 'job_invite_reminder', 'job_invite']);
    for (const mail of mails.slice(0, 2)) {
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.textBody).not.toMatch(/^Bcc:/m);
      expect(mail.textBody).toContain('Old job Bcc: x@evil');
    }
    expect(mails[1]?.textBody).toContain('Hello Sam Bcc: y@evil,');
  });

  it('keep an account’s own name on one line in every mail to it: address confirmation, password reset, sign-in code', async () => {
    const person = await t.createUser({ name: 'Old\r\nBcc: z@evil' });
    const own = await t.signInAs(person);
    const sent = [
      await t.app.inject({ method: 'POST', url: '/api/auth/verify-email/resend', headers: own }),
      await t.app.inject({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: person.email } }),
      await t.app.inject({ method: 'POST', url: '/api/auth/mfa/email/request', headers: own }),
    ];
    for (const res of sent) expect(res.statusCode, res.body).toBe(200);
    const mails = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, person.email));
    expect(mails.map((mail) => mail.kind).sort()).toEqual(['email_verification', 'mfa_email_code', 'password_reset']);
    for (const mail of mails) {
      expect(mail.textBody).not.toMatch(/^Bcc:/m);
      expect(mail.textBody).toContain('Hello Old Bcc: z@evil,');
    }
  });
});
