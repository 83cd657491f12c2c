import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDocument, SandboxLink } from '#shared/documents.ts';
import type { Job } from '#shared/jobs.ts';
import { documents } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { findActiveContent, hostileMarkers, makeHostilePdf } from '#test/hostile-pdf-fixtures.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';
import { stopSanitising } from './sanitise-pool.ts';
import { signViewerToken } from './viewer-token.ts';

let t: TestApp;
let agent: TestUser;
let notary: TestUser;
let stranger: TestUser;
let job: Job;
let hostile: JobDocument;
let plain: JobDocument;
let otherJob: Job;
let otherDocument: JobDocument;

beforeAll(async () => {
  t = await createTestApp();
  agent = await t.createUser({ roles: ['title_agent'] });
  stranger = await t.createUser({ roles: ['title_agent'] });
  notary = await createNotary(t);
  job = await createJob('Hostile closing');
  const items = await upload(job.id, [
    { name: 'hostile.pdf', content: await makeHostilePdf() },
    { name: 'plain.pdf', content: await makePdf(1, 'Plain rider') },
  ]);
  otherJob = await createJob('Another closing');
  const others = await upload(otherJob.id, [{ name: 'other.pdf', content: await makePdf(1, 'Other') }]);
  if (!items[0] || !items[1] || !others[0]) throw new Error('the uploads answered no documents');
  [hostile, plain, otherDocument] = [items[0], items[1], others[0]];
});
afterAll(async () => {
  await stopSanitising();
  await t?.close();
});

async function createJob(title: string): Promise<Job> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: await t.headersFor(agent),
    payload: {
      title,
      notarizationType: 'acknowledgment',
      signers: [{ name: 'Sam Signer', email: `sam-${randomUUID().slice(0, 8)}@example.test` }],
      notaryId: notary.id,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Job;
}

async function upload(jobId: string, files: Array<{ name: string; content: Buffer }>): Promise<JobDocument[]> {
  const body = buildMultipart(files);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${jobId}/documents`,
    headers: { ...(await t.headersFor(agent)), ...body.headers },
    payload: body.payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().items as JobDocument[];
}

/** The browser's way in: the session as the httpOnly cookie, as a top-level navigation sends it. */
async function cookieFor(user: TestUser): Promise<Record<string, string>> {
  const { authorization } = await t.headersFor(user);
  return { cookie: `ron_session=${(authorization ?? '').replace(/^Bearer /, '')}` };
}

async function askLink(user: TestUser | null, url: string) {
  return t.app.inject({ method: 'GET', url, headers: user ? await t.headersFor(user) : {} });
}

async function openViewer(user: TestUser | null, url: string) {
  return t.app.inject({ method: 'GET', url, headers: user ? await cookieFor(user) : {} });
}

/** The sanitised copies a viewer page carries, in the order it shows them. */
function embeddedPdfs(html: string): Buffer[] {
  return [...html.matchAll(/<script type="application\/x-pdf-base64" data-section="[^"]+">([^<]*)<\/script>/g)].map((match) =>
    Buffer.from(match[1] ?? '', 'base64'),
  );
}

const jobLinkUrl = (jobId: string) => `/api/jobs/${jobId}/open-in-sandbox`;
const documentLinkUrl = (jobId: string, documentId: string) => `/api/jobs/${jobId}/documents/${documentId}/open-in-sandbox`;

describe('opening a job in the safe viewer', () => {
  it('answers the job’s preparer with a viewer link that works for five minutes', async () => {
    const before = Date.now();
    const res = await askLink(agent, jobLinkUrl(job.id));
    expect(res.statusCode, res.body).toBe(200);
    const link = res.json() as SandboxLink;
    expect(link.url).toMatch(/^\/api\/safe-viewer\?token=[\w-]+\.[\w-]+$/);
    const lifetime = new Date(link.expiresAt).getTime() - before;
    expect(lifetime).toBeGreaterThan(4.9 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000 + 2000);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('serves every document of the job, in order, as sanitised copies on a sandboxed page', async () => {
    const link = (await askLink(agent, jobLinkUrl(job.id))).json() as SandboxLink;
    const res = await openViewer(agent, link.url);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/^sandbox allow-scripts;/);
    expect(csp).not.toContain('allow-same-origin');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[\w+/=]+'(;|$)/);
    expect(csp).not.toContain('connect-src');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.indexOf('hostile.pdf')).toBeLessThan(res.body.indexOf('plain.pdf'));
    const copies = embeddedPdfs(res.body);
    expect(copies).toHaveLength(2);
    for (const copy of copies) {
      expect(await findActiveContent(copy)).toEqual([]);
      for (const marker of hostileMarkers) expect(copy.toString('latin1'), marker).not.toContain(marker);
    }
  });

  it('serves one document for the document’s link, to the job’s notary as well', async () => {
    const link = (await askLink(notary, documentLinkUrl(job.id, plain.id))).json() as SandboxLink;
    const res = await openViewer(notary, link.url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('plain.pdf');
    expect(res.body).not.toContain('hostile.pdf');
    expect(embeddedPdfs(res.body)).toHaveLength(1);
  });

  it('keeps the app’s own CSP on the link route and its other pages', async () => {
    const res = await askLink(agent, jobLinkUrl(job.id));
    expect(String(res.headers['content-security-policy'])).toMatch(/^default-src 'self'/);
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });

  it('serves pdf.js to the sandboxed page’s opaque origin, and nothing else', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/safe-viewer/assets/pdf.min.mjs', headers: { origin: 'null' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const other = await t.app.inject({ method: 'GET', url: '/api/safe-viewer/assets/..%2F..%2Fpackage.json' });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({ error: 'validation_failed' });
  });
});

describe('who may not', () => {
  it('answers 404 to a person not on the job, for the job and for its document', async () => {
    for (const url of [jobLinkUrl(job.id), documentLinkUrl(job.id, hostile.id)]) {
      const res = await askLink(stranger, url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found', message: expect.any(String) });
    }
  });

  it('answers 401 to an anonymous caller', async () => {
    const res = await askLink(null, jobLinkUrl(job.id));
    expect(res.statusCode).toBe(401);
  });

  it('answers 404 for another job’s document named under this job, and for an unknown document', async () => {
    expect((await askLink(agent, documentLinkUrl(job.id, otherDocument.id))).statusCode).toBe(404);
    expect((await askLink(agent, documentLinkUrl(job.id, randomUUID()))).statusCode).toBe(404);
    expect((await askLink(agent, documentLinkUrl(job.id, 'not-a-uuid'))).statusCode).toBe(400);
  });

  it('refuses a link opened by another signed-in person, even one on the job, without the documents', async () => {
    const link = (await askLink(agent, jobLinkUrl(job.id))).json() as SandboxLink;
    for (const other of [stranger, notary]) {
      const res = await openViewer(other, link.url);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('made for someone else');
      expect(embeddedPdfs(res.body)).toHaveLength(0);
      expect(String(res.headers['content-security-policy'])).toMatch(/^sandbox allow-scripts;/);
    }
  });

  it('refuses a link opened without a session', async () => {
    const link = (await askLink(agent, jobLinkUrl(job.id))).json() as SandboxLink;
    const res = await openViewer(null, link.url);
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('Sign in');
    expect(embeddedPdfs(res.body)).toHaveLength(0);
  });

  it('refuses an expired link with 410', async () => {
    const { token } = signViewerToken(t.secretsKey, { userId: agent.id, jobId: job.id, documentId: null }, Date.now() - 6 * 60_000);
    const res = await openViewer(agent, `/api/safe-viewer?token=${token}`);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('expired');
  });

  it('refuses a link whose job the person may no longer see', async () => {
    const { token } = signViewerToken(t.secretsKey, { userId: stranger.id, jobId: job.id, documentId: null });
    const res = await openViewer(stranger, `/api/safe-viewer?token=${token}`);
    expect(res.statusCode).toBe(404);
    expect(embeddedPdfs(res.body)).toHaveLength(0);
  });

  it('refuses a link that names a document of another job', async () => {
    const { token } = signViewerToken(t.secretsKey, { userId: agent.id, jobId: job.id, documentId: otherDocument.id });
    const res = await openViewer(agent, `/api/safe-viewer?token=${token}`);
    expect(res.statusCode).toBe(404);
  });

  it('refuses a tampered, forged or malformed token with a sentence, never a 500', async () => {
    const link = (await askLink(agent, jobLinkUrl(job.id))).json() as SandboxLink;
    const token = link.url.split('token=')[1] ?? '';
    const [payload, mac] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, jobId: otherJob.id })).toString('base64url');
    for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${(mac ?? '').slice(1)}A`, 'x', 'a.b.c', '%00', encodeURIComponent('é.ü')]) {
      const res = await openViewer(agent, `/api/safe-viewer?token=${bad}`);
      expect(res.statusCode, bad).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, bad).toBeLessThan(500);
      expect(embeddedPdfs(res.body)).toHaveLength(0);
    }
    const huge = await openViewer(agent, `/api/safe-viewer?token=${'a'.repeat(5000)}`);
    expect(huge.statusCode).toBe(400);
    const none = await openViewer(agent, '/api/safe-viewer');
    expect(none.statusCode).toBe(400);
    // A path the router cannot read is answered before any route, with the app's own headers.
    const garbled = await openViewer(agent, '/api/safe-viewer/assets/%E0%A4%A');
    expect(garbled.statusCode).toBe(400);
    expect(String(garbled.headers['content-security-policy'])).toMatch(/^default-src 'self'/);
  });
});

describe('limits', () => {
  it('answers 409 for a job with no documents yet', async () => {
    const empty = await createJob('Empty closing');
    const res = await askLink(agent, jobLinkUrl(empty.id));
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('This job has no documents to open yet.');
  });

  it('refuses documents too large to open together, with a sentence naming the way out', async () => {
    const big = await createJob('Big closing');
    const items = await upload(big.id, [
      { name: 'one.pdf', content: await makePdf(1) },
      { name: 'two.pdf', content: await makePdf(1) },
    ]);
    for (const item of items) await t.db.update(documents).set({ sizeBytes: t.config.documentMaxBytes }).where(eq(documents.id, item.id));
    const link = (await askLink(agent, jobLinkUrl(big.id))).json() as SandboxLink;
    const res = await openViewer(agent, link.url);
    expect(res.statusCode).toBe(413);
    expect(res.body).toContain('Open them one at a time.');
    const one = (await askLink(agent, documentLinkUrl(big.id, items[0]?.id ?? ''))).json() as SandboxLink;
    expect((await openViewer(agent, one.url)).statusCode).toBe(200);
  });

  it('answers 422 in a sentence for a stored file that cannot be read', async () => {
    const broken = await createJob('Broken closing');
    const [item] = await upload(broken.id, [{ name: 'fine.pdf', content: await makePdf(1) }]);
    if (!item) throw new Error('no upload');
    // The stored copy damaged after upload (a disk fault): a garbled blob under its own key.
    const garbled = Buffer.from(`%PDF-1.7\n not really ${randomUUID()} \0`);
    const key = createHash('sha256').update(garbled).digest('hex');
    const directory = path.join(t.blobRoot, key.slice(0, 2), key.slice(2, 4));
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, key), garbled);
    await t.db.update(documents).set({ storageKey: key }).where(eq(documents.id, item.id));
    const link = (await askLink(agent, jobLinkUrl(broken.id))).json() as SandboxLink;
    const res = await openViewer(agent, link.url);
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('could not be read');
  });
});
