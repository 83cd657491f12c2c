import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';

/**
 * Who may upload is decided before the body is read: a refused caller's answer arrives while most of
 * the announced body is still unsent. Each request below announces 24 MB, sends the first 1 KB of a
 * file part and then nothing more; the refusal must come back before anything else is sent.
 */

let t: TestApp;
let kit: JobKit;
let port: number;
let c: VideoCast;
let checkId: string;

beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000' });
  kit = createJobKit(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  c = await castVideoJob(t, kit, { identity: 'unproven' });
  const started = await kit.call(c.signer, 'POST', `/api/jobs/${c.job.id}/identity/start`, {
    legalName: c.signer.name,
    birthDate: '1984-07-09',
    address: { street: '1208 Maple Avenue', city: 'Richmond', state: 'VA', postalCode: '23220' },
  });
  expect(started.statusCode, started.body).toBe(200);
  checkId = started.json().checkId as string;
});
afterAll(async () => t?.close());

const announcedBytes = 24 * 1024 * 1024;
const boundary = '----upload-refusal-boundary';

interface Answer {
  statusCode: number;
  body: { error?: string; message?: string };
  /** Bytes of the body written before the answer came. */
  bytesSent: number;
}

/**
 * Opens an upload that announces `announcedBytes`, writes the part headers and 1 KB of the file, and
 * waits (up to 5 s) for an answer without sending more. Rejects if no answer comes: the server is
 * waiting for the body.
 */
function startUpload(path: string, headers: Record<string, string>, fieldName = 'file'): Promise<Answer> {
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fieldName}"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
  const first = Buffer.concat([head, Buffer.alloc(1024, 0x41)]);
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(announcedBytes) },
    });
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no answer from ${path} within 5 s while the body was still unsent: the server waits for the body before deciding`));
    }, 5000);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        request.destroy();
        resolve({ statusCode: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), bytesSent: first.length });
      });
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.write(first);
  });
}

async function bearerOf(user: TestUser): Promise<Record<string, string>> {
  return t.signInAs(user);
}

function expectRefusedEarly(answer: Answer, statusCode: number) {
  expect(answer.statusCode, JSON.stringify(answer.body)).toBe(statusCode);
  expect(typeof answer.body.error).toBe('string');
  expect(answer.body.message?.length ?? 0).toBeGreaterThan(10);
  expect(answer.bytesSent).toBeLessThan(announcedBytes / 1000);
}

describe('an identity photo upload', () => {
  it('refuses an anonymous caller (no session, no resume link) before reading the photos', async () => {
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/credential`, {}, 'front'), 401);
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/selfie`, {}, 'selfie'), 401);
  });

  it('refuses a wrong resume token before reading the photos', async () => {
    const forged = { 'x-identity-resume': 'a'.repeat(43) };
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/credential`, forged, 'front'), 404);
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/selfie`, forged, 'selfie'), 404);
  });

  it('refuses a signed-in person who does not own the check, and the job’s notary, before reading the photos', async () => {
    const stranger = await bearerOf(c.stranger);
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/credential`, stranger, 'front'), 404);
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/selfie`, stranger, 'selfie'), 404);
    const notary = await bearerOf(c.notary);
    expectRefusedEarly(await startUpload(`/api/identity/${checkId}/credential`, notary, 'front'), 403);
  });
});

describe('other uploads', () => {
  it('refuses a signer on the notary profile upload before reading the file', async () => {
    expectRefusedEarly(await startUpload('/api/notary/profile/upload', await bearerOf(c.signer)), 403);
  });

  it('refuses a signer on an administrator’s upload to a notary profile and on the signing certificate before reading', async () => {
    const signer = await bearerOf(c.signer);
    expectRefusedEarly(await startUpload(`/api/notary/profile/${c.notary.id}/upload`, signer), 403);
    expectRefusedEarly(await startUpload('/api/notary/certificate', signer, 'p12'), 403);
  });

  it('refuses a stranger’s document upload to someone else’s job before reading the PDF', async () => {
    const answer = await startUpload(`/api/jobs/${c.job.id}/documents`, await bearerOf(c.stranger));
    expect([403, 404]).toContain(answer.statusCode);
    expectRefusedEarly(answer, answer.statusCode);
  });

  it('refuses anonymous uploads of documents before reading', async () => {
    expectRefusedEarly(await startUpload(`/api/jobs/${c.job.id}/documents`, {}), 401);
  });
});
