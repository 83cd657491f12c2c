import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { jobParticipants } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createNotary } from '#test/notary-fixtures.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

let t: TestApp;
let baseUrl: string;
let notary: TestUser;
let signer: TestUser;
let notaryHeaders: Record<string, string>;
let signerHeaders: Record<string, string>;
const logLines: Array<{ level: number; msg: string }> = [];

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'info' }, { logStream: { write: (line) => void logLines.push(JSON.parse(line) as { level: number; msg: string }) } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  notary = await createNotary(t, { name: 'Nora Notary', state: 'TX', commissionExpiresOn: '2031-01-01' });
  signer = await t.createUser({ roles: ['signer'], name: 'Sam Signer' });
  notaryHeaders = await t.signInAs(notary);
  signerHeaders = await t.signInAs(signer);
});
afterAll(async () => t?.close());

/** A job the notary runs with the signer on it (accepted) and one PDF. */
async function createJob(): Promise<{ jobId: string; documentId: string }> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/jobs',
    headers: notaryHeaders,
    payload: { title: 'Affidavit', notarizationType: 'jurat', signers: [{ name: signer.name, email: signer.email }] },
  });
  expect(created.statusCode, created.body).toBe(201);
  const job = created.json() as { id: string; participants: Array<{ id: string }> };
  await t.db
    .update(jobParticipants)
    .set({ userId: signer.id })
    .where(eq(jobParticipants.id, job.participants[0]?.id ?? ''));
  const upload = buildMultipart([{ name: 'affidavit.pdf', content: await makePdf(2) }]);
  const uploaded = await t.app.inject({
    method: 'POST',
    url: `/api/jobs/${job.id}/documents`,
    headers: { ...notaryHeaders, ...upload.headers },
    payload: upload.payload,
  });
  expect(uploaded.statusCode, uploaded.body).toBe(201);
  return { jobId: job.id, documentId: uploaded.json().items[0].id as string };
}

/** A real WebSocket client against the listening app. */
function connect(jobId: string, headers: Record<string, string>): Promise<{ socket: WebSocket; received: string[]; closed: Promise<number> }> {
  const socket = new WebSocket(`${baseUrl}/api/jobs/${jobId}/live`, { headers });
  const received: string[] = [];
  socket.on('message', (data: Buffer) => received.push(data.toString()));
  const closed = new Promise<number>((resolve) => socket.on('close', (code: number) => resolve(code)));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, received, closed }));
    socket.once('error', reject);
  });
}

describe('the live channel’s origin check', () => {
  it('closes a socket whose Origin is "null" with 4403, like any foreign origin, and logs no error', async () => {
    const { jobId } = await createJob();
    const errorsBefore = logLines.filter((line) => line.level >= 50).length;
    const { closed } = await connect(jobId, { ...signerHeaders, origin: 'null' });
    expect(await closed).toBe(4403);
    expect(logLines.filter((line) => line.level >= 50).slice(errorsBefore)).toEqual([]);
  });

  it('closes a socket from another site with 4403 and admits the app’s own origin', async () => {
    const { jobId } = await createJob();
    const foreign = await connect(jobId, { ...signerHeaders, origin: 'https://evil.example' });
    expect(await foreign.closed).toBe(4403);
    const own = await connect(jobId, { ...signerHeaders, origin: t.config.publicUrl });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(own.socket.readyState).toBe(WebSocket.OPEN);
    own.socket.close();
  });
});

describe('the notary’s page view on the live channel', () => {
  it('is relayed only for a document of this job', async () => {
    const { jobId, documentId } = await createJob();
    const other = await createJob();
    const follower = await connect(jobId, signerHeaders);
    const leader = await connect(jobId, notaryHeaders);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const views = () => follower.received.map((raw) => JSON.parse(raw) as { type: string; documentId?: string }).filter((message) => message.type === 'view');

    leader.socket.send(JSON.stringify({ type: 'view', documentId: other.documentId, page: 1 }));
    leader.socket.send(JSON.stringify({ type: 'view', documentId: crypto.randomUUID(), page: 1 }));
    leader.socket.send(JSON.stringify({ type: 'view', documentId: 'not-a-uuid', page: 1 }));
    leader.socket.send(JSON.stringify({ type: 'view', documentId, page: 2 }));
    await expect.poll(views, { timeout: 2000 }).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(views()).toEqual([{ type: 'view', documentId, page: 2, by: notary.name }]);
    leader.socket.close();
    follower.socket.close();
  });
});

describe('the live channel when someone’s access ends', () => {
  /** A job with a second signer who is connected to its live channel. */
  async function connectedSecondSigner() {
    const { jobId } = await createJob();
    const other = await t.createUser({ roles: ['signer'], name: 'Ollie Other' });
    const added = await t.app.inject({
      method: 'POST',
      url: `/api/jobs/${jobId}/signers`,
      headers: notaryHeaders,
      payload: { name: other.name, email: other.email },
    });
    expect(added.statusCode, added.body).toBe(201);
    const participantId = (added.json() as { id: string }).id;
    await t.db.update(jobParticipants).set({ userId: other.id }).where(eq(jobParticipants.id, participantId));
    const headers = await t.signInAs(other);
    const live = await connect(jobId, headers);
    await new Promise((resolve) => setTimeout(resolve, 150));
    return { jobId, participantId, other, headers, live };
  }

  it('closes the socket of a participant removed from the job (4403), who then receives nothing more', async () => {
    const { jobId, participantId, live } = await connectedSecondSigner();
    const removed = await t.app.inject({ method: 'DELETE', url: `/api/jobs/${jobId}/signers/${participantId}`, headers: notaryHeaders });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await Promise.race([live.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))])).toBe(4403);
  });

  it('closes the socket when its session signs out (4401)', async () => {
    const { live, headers } = await connectedSecondSigner();
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers });
    expect(out.statusCode, out.body).toBe(200);
    expect(await Promise.race([live.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))])).toBe(4401);
  });

  it('closes the socket when an administrator sets a new password, which ends every session of the account (4401)', async () => {
    const { live, other } = await connectedSecondSigner();
    const adminHeaders = await t.signInAs(await t.createUser({ roles: ['admin'] }));
    const reset = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${other.id}/password`,
      headers: adminHeaders,
      payload: { password: 'a new password' },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(await Promise.race([live.closed, new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))])).toBe(4401);
  });
});
