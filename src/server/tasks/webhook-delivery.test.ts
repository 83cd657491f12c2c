import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '#server/db/schema/index.ts';
import { queueWebhookEvent } from '#server/features/integrations/webhook-events.ts';
import { createCompanyKit, type TestCompany } from '#test/company-fixtures.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { getNextAttemptAt, retryWindowMs, WebhookDelivery } from './webhook-delivery.ts';

/**
 * The webhook outbox against a local receiver (an HTTP server in this test). Only this test's app
 * allows http:// and loopback addresses (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_ADDRESSES).
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Answer = { status: number } | { hang: true };

/** A receiver answering each request with the next scripted answer (200 once the script is used up). */
async function startReceiver() {
  const received: Received[] = [];
  const script: Answer[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = script.shift() ?? { status: 200 };
      if ('hang' in answer) {
        held.push(response);
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    script,
    /** Answers every request held so far. */
    release(status = 200) {
      for (const response of held.splice(0)) if (!response.destroyed) response.writeHead(status).end('late');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Node snippet of docs/WEBHOOKS.md, loaded as written there. */
async function loadDocumentedVerifier(): Promise<(secret: string, headers: Record<string, unknown>, rawBody: string) => boolean> {
  const doc = fs.readFileSync(path.resolve('docs/WEBHOOKS.md'), 'utf8');
  const code = /<!-- verification-snippet -->\s*```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!code) throw new Error('docs/WEBHOOKS.md has no verification snippet');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ron-webhook-')), 'verify.mjs');
  fs.writeFileSync(file, code);
  const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { verifyWebhook: (...args: unknown[]) => boolean };
  return module.verifyWebhook as never;
}

let t: TestApp;
let kit: ReturnType<typeof createCompanyKit>;
let jobs: ReturnType<typeof createJobKit>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
  kit = createCompanyKit(t);
  jobs = createJobKit(t);
});
afterAll(async () => t?.close());
afterEach(async () => {
  receiver?.release();
  await receiver?.close();
});

async function setUp(events = ['job.created']) {
  receiver = await startReceiver();
  const company = await kit.createCompany();
  const res = await kit.call(company.staff, 'POST', `/api/title-companies/${company.id}/webhooks`, { url: receiver.url, events });
  expect(res.statusCode, res.body).toBe(201);
  const { endpoint, secret } = res.json() as { endpoint: { id: string }; secret: string };
  return { company, endpointId: endpoint.id, secret };
}

async function createJob(company: TestCompany) {
  return jobs.createJob(company.staff, { signers: [] });
}

const deliveriesOf = (endpointId: string) => t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
/** Brings every pending delivery's next try to now, as the clock would. */
const makeDue = () =>
  t.db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: sql`now() - interval '1 second'` })
    .where(eq(webhookDeliveries.status, 'pending'));
const sender = (timeoutMs?: number) =>
  new WebhookDelivery(t.db, t.secretsKey, t.app.log, {
    pollMs: 1000,
    policy: { isHttpAllowed: true, isPrivateAllowed: true },
    ...(timeoutMs ? { timeoutMs } : {}),
  });

describe('sending webhooks', () => {
  it('signs each delivery so the documented snippet verifies it, and a wrong secret or changed body does not', async () => {
    const { company, endpointId, secret } = await setUp();
    const job = await createJob(company);
    expect(await t.app.webhookDelivery.runOnce()).toBe(1);

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ type: 'job.created', companyId: company.id, data: { jobId: job.id } });
    expect(request!.headers['webhook-id']).toBe(body.id);
    expect(request!.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(request!.headers['webhook-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(request!.headers['content-type']).toBe('application/json');

    const verifyWebhook = await loadDocumentedVerifier();
    expect(verifyWebhook(secret, request!.headers, request!.body)).toBe(true);
    expect(verifyWebhook(`${secret}x`, request!.headers, request!.body)).toBe(false);
    expect(verifyWebhook(secret, request!.headers, request!.body.replace(job.id, crypto.randomUUID()))).toBe(false);
    expect(verifyWebhook(secret, { ...request!.headers, 'webhook-timestamp': '1000000000' }, request!.body)).toBe(false);

    const [row] = await deliveriesOf(endpointId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, responseStatus: 200, lastError: null });
    expect(row?.deliveredAt).toBeInstanceOf(Date);
  });

  it('retries a 500 with backoff and delivers on the 200 that follows, with the same event id and body', async () => {
    const { company, endpointId } = await setUp();
    await createJob(company);
    receiver.script.push({ status: 500 });
    expect(await t.app.webhookDelivery.runOnce()).toBe(0);
    const [failed] = await deliveriesOf(endpointId);
    expect(failed).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500, lastError: 'The endpoint answered 500.' });
    // The first retry waits a minute.
    const wait = failed!.nextAttemptAt.getTime() - failed!.lastAttemptAt!.getTime();
    expect(wait).toBeGreaterThan(55_000);
    expect(wait).toBeLessThan(65_000);
    expect(await t.app.webhookDelivery.runOnce(), 'not due yet').toBe(0);
    expect(receiver.received).toHaveLength(1);

    await makeDue();
    expect(await t.app.webhookDelivery.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    const [delivered] = await deliveriesOf(endpointId);
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 2, responseStatus: 200, lastError: null });
  });

  it('counts no answer within the timeout as a failed try', async () => {
    const { company, endpointId } = await setUp();
    await createJob(company);
    receiver.script.push({ hang: true });
    expect(await sender(300).runOnce()).toBe(0);
    const [row] = await deliveriesOf(endpointId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null, lastError: 'No answer within 300 ms.' });
  });

  it('does not follow a redirect, and records it as a failure', async () => {
    const { company, endpointId } = await setUp();
    await createJob(company);
    receiver.script.push({ status: 302 });
    await t.app.webhookDelivery.runOnce();
    const [row] = await deliveriesOf(endpointId);
    expect(row).toMatchObject({ status: 'pending', responseStatus: 302, lastError: expect.stringMatching(/redirects are not followed/) });
    expect(receiver.received).toHaveLength(1);
  });

  it('gives up after 24 hours of tries, and the schedule runs 1 min, 5 min, 30 min, 2 h, 6 h, 12 h', async () => {
    const created = new Date('2026-01-01T00:00:00Z');
    const delays: number[] = [];
    let now = created;
    for (let attempts = 1; ; attempts += 1) {
      const next = getNextAttemptAt(attempts, created, now);
      if (!next) break;
      delays.push((next.getTime() - now.getTime()) / 60_000);
      now = next;
    }
    expect(delays).toEqual([1, 5, 30, 120, 360, 720, 204]);
    expect(now.getTime() - created.getTime()).toBe(retryWindowMs);

    const { company, endpointId } = await setUp();
    await createJob(company);
    await t.db
      .update(webhookDeliveries)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(webhookDeliveries.endpointId, endpointId));
    receiver.script.push({ status: 503 });
    await t.app.webhookDelivery.runOnce();
    const [row] = await deliveriesOf(endpointId);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 503 });
  });

  it('refuses at send time an endpoint whose address is not allowed, without connecting', async () => {
    const { company, endpointId } = await setUp();
    await createJob(company);
    const strict = new WebhookDelivery(t.db, t.secretsKey, t.app.log, { pollMs: 1000, policy: { isHttpAllowed: true, isPrivateAllowed: false } });
    await strict.runOnce();
    const [row] = await deliveriesOf(endpointId);
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      responseStatus: null,
      lastError: expect.stringMatching(/non-public address \(127\.0\.0\.1\)/),
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('replays a delivered event as a new delivery with the same event id', async () => {
    const { company, endpointId } = await setUp();
    await createJob(company);
    await t.app.webhookDelivery.runOnce();
    const [original] = await deliveriesOf(endpointId);
    const res = await kit.call(company.staff, 'POST', `/api/title-companies/webhooks/${endpointId}/deliveries/${original!.id}/replay`);
    expect(res.statusCode, res.body).toBe(201);
    expect(await t.app.webhookDelivery.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(original!.eventId);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const log = (await kit.call(company.staff, 'GET', `/api/title-companies/webhooks/${endpointId}/deliveries`)).json().items;
    expect(log).toEqual([
      expect.objectContaining({ status: 'delivered', replayOf: original!.id, eventId: original!.eventId }),
      expect.objectContaining({ id: original!.id, status: 'delivered', responseStatus: 200 }),
    ]);
  });

  it('keeps a delivery pending when its sender stops mid-way, and the next sender sends it once the lease runs out', async () => {
    const { company, endpointId } = await setUp();
    await createJob(company);
    receiver.script.push({ hang: true });
    const first = sender(30_000);
    const inFlight = first.runOnce();
    await expect.poll(() => receiver.received.length).toBe(1);
    // The first sender's process could stop here: the row is still in the outbox.
    const [midway] = await deliveriesOf(endpointId);
    expect(midway).toMatchObject({ status: 'pending', attempts: 1 });
    expect(midway!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    expect(await sender().runOnce(), 'held by the first sender for now').toBe(0);

    // The lease runs out; a sender of the restarted instance sends it.
    await makeDue();
    expect(await sender().runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    // The first try's late answer changes nothing.
    receiver.release(500);
    await inFlight;
    const [row] = await deliveriesOf(endpointId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 2, responseStatus: 200 });
  });

  it('delivers once when two senders race for the same deliveries', async () => {
    const { company, endpointId } = await setUp();
    for (let index = 0; index < 4; index += 1) await createJob(company);
    const counts = await Promise.all([sender().runOnce(), sender().runOnce(), t.app.webhookDelivery.runOnce()]);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(4);
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect((await deliveriesOf(endpointId)).every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });

  it('queues nothing when the transaction of the change rolls back', async () => {
    const { company, endpointId } = await setUp();
    await expect(
      t.db.transaction(async (tx) => {
        await queueWebhookEvent(tx, company.id, 'job.created', {
          jobId: crypto.randomUUID(),
          status: 'draft',
          notarizationType: 'acknowledgment',
          scheduledAt: null,
          createdAt: new Date().toISOString(),
        });
        expect(await tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))).toHaveLength(1);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await deliveriesOf(endpointId)).toHaveLength(0);
  });
});
