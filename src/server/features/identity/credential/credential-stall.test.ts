import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityCheck } from '#shared/identity.ts';
import { identityChecks } from '#server/db/schema/index.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { makeBilevelPng } from '#test/png-fixtures.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';
import { castVideoJob, type VideoCast } from '#test/video-cast.ts';
import { analyseCredentialInPool, credentialAnalysisEvents, maxWaiting, stopCredentialAnalysis } from './credential-analysis.ts';

// A hostile ID photo is analysed off the request path: the database and the event loop stay free
// for everyone else, the analysis has a time bound, and an image too large to decode is refused.

let t: TestApp;
let kit: JobKit;
beforeAll(async () => {
  t = await createTestApp({ LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000', IDENTITY_ANALYSIS_TIMEOUT_MS: '4000' });
  kit = createJobKit(t);
});
afterAll(async () => t?.close());

const statement = {
  legalName: 'Sam Signer',
  birthDate: '1984-07-09',
  address: { street: '1208 Maple Avenue', city: 'Richmond', state: 'VA', postalCode: '23220' },
};

async function start(c: VideoCast): Promise<IdentityCheck> {
  const res = await kit.call(c.signer, 'POST', `/api/jobs/${c.job.id}/identity/start`, statement);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as IdentityCheck;
}

async function uploadPassport(c: VideoCast, checkId: string, content: Buffer, type: string) {
  const boundary = `----ron${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="documentType"\r\n\r\npassport\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="passport"; filename="p"\r\nContent-Type: ${type}\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const auth = await t.signInAs(c.signer);
  return t.app.inject({
    method: 'POST',
    url: `/api/identity/${checkId}/credential`,
    headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: body,
  });
}

/** 2000 × 2000 random pixels as a JPEG: no text, but OCR on it runs for many seconds. */
const makeNoiseJpeg = () =>
  sharp(randomBytes(2000 * 2000 * 3), { raw: { width: 2000, height: 2000, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();

describe('a hostile ID photo', () => {
  it('leaves the database free while it is analysed, and fails with a sentence when the analysis runs out of time', { timeout: 120_000 }, async () => {
    const c = await castVideoJob(t, kit, { identity: 'unproven' });
    const check = await start(c);
    const noise = await makeNoiseJpeg();
    const started = once(credentialAnalysisEvents, 'started');
    let isUploadDone = false;
    const uploading = uploadPassport(c, check.checkId, noise, 'image/jpeg').then((res) => {
      isUploadDone = true;
      return res;
    });
    await started;
    // The analysis is running: requests that read the database answer before it ends.
    const health = t.app.inject({ method: 'GET', url: '/api/system/health' });
    expect(await Promise.race([health.then(() => 'health'), uploading.then(() => 'upload')])).toBe('health');
    expect((await health).statusCode).toBe(200);
    const other = await kit.call(c.notary, 'GET', `/api/jobs/${c.job.id}/identity`);
    expect(other.statusCode, other.body).toBe(200);
    expect(isUploadDone).toBe(false);

    const res = await uploading;
    expect(res.statusCode, res.body).toBe(200);
    const credential = (res.json() as IdentityCheck).credential;
    expect(credential.status).toBe('failed');
    expect(credential.attempts).toBe(1);
    expect(credential.checks).toEqual([
      {
        id: 'readable',
        passed: false,
        sentence: 'Reading the photo took longer than 4 seconds, so it was stopped. Take the photo again: only the ID in the frame, flat and in good light.',
      },
    ]);
  });

  it('reads one set of photos per check at a time: another sent meanwhile is refused at once and not counted', { timeout: 120_000 }, async () => {
    const c = await castVideoJob(t, kit, { identity: 'unproven' });
    const check = await start(c);
    const noise = await makeNoiseJpeg();
    const started = once(credentialAnalysisEvents, 'started');
    const first = uploadPassport(c, check.checkId, noise, 'image/jpeg');
    await started;
    const startedAt = performance.now();
    const second = await uploadPassport(c, check.checkId, noise, 'image/jpeg');
    expect(performance.now() - startedAt).toBeLessThan(2000);
    expect(second.statusCode, second.body).toBe(409);
    expect(second.json()).toMatchObject({ error: 'conflict', message: 'Your photos are being read. Wait for the answer before you send them again.' });
    expect((await first).statusCode).toBe(200);
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row?.credentialAttempts).toBe(1);
  });

  it('refuses a photo too large to decode at once, before reading it, and does not count it', async () => {
    const c = await castVideoJob(t, kit, { identity: 'unproven' });
    const check = await start(c);
    const huge = makeBilevelPng(16000, 16000);
    expect(huge.length).toBeLessThan(200_000);
    const startedAt = performance.now();
    const res = await uploadPassport(c, check.checkId, huge, 'image/png');
    expect(performance.now() - startedAt).toBeLessThan(1500);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({
      error: 'image_too_large',
      message: 'The photo of the passport is 16000 × 16000 pixels; a photo may have at most 50 megapixels. Take it again at your camera’s normal size.',
    });
    const [row] = await t.db.select().from(identityChecks).where(eq(identityChecks.id, check.checkId));
    expect(row?.credentialAttempts).toBe(0);
  });
});

describe('the analysis pool', () => {
  it('keeps a bounded queue: beyond it the answer is at once a 503 with a sentence and a time to retry', { timeout: 60_000 }, async () => {
    const noise = await makeNoiseJpeg();
    const person = { legalName: 'Sam Signer', birthDate: '1984-07-09' };
    const waiting = Array.from({ length: maxWaiting + 1 }, () =>
      analyseCredentialInPool({ documentType: 'passport', passport: noise }, person, new Date(), 30_000).catch((error: unknown) => error),
    );
    const startedAt = performance.now();
    const refused = await analyseCredentialInPool({ documentType: 'passport', passport: noise }, person, new Date(), 30_000).catch((error: unknown) => error);
    expect(performance.now() - startedAt).toBeLessThan(100);
    expect(refused).toMatchObject({ statusCode: 503, code: 'credential_reader_busy', headers: { 'retry-after': '60' } });
    await stopCredentialAnalysis();
    await Promise.all(waiting);
  });
});
