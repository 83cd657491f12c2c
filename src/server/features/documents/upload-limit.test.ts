import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '#shared/jobs.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

const maxBytes = 20_000;
let t: TestApp;
let headers: Record<string, string>;
let dataDir: string;
let large: Buffer;
let small: Buffer;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-upload-limit-'));
  t = await createTestApp({ DOCUMENT_MAX_BYTES: String(maxBytes), DATA_DIR: dataDir });
  headers = await t.signInAs(await t.createUser({ roles: ['title_agent'] }));
  [large, small] = [await makePdf(120, 'Large'), await makePdf(1, 'Small')];
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function createJob(): Promise<Job> {
  const res = await t.app.inject({ method: 'POST', url: '/api/jobs', headers, payload: { title: 'Big files', notarizationType: 'jurat' } });
  expect(res.statusCode).toBe(201);
  return res.json() as Job;
}

function upload(jobId: string, files: Array<{ name: string; content: Buffer }>) {
  const body = buildMultipart(files);
  return t.app.inject({ method: 'POST', url: `/api/jobs/${jobId}/documents/batch`, headers: { ...headers, ...body.headers }, payload: body.payload });
}

const countDocuments = async (jobId: string) => (await t.app.inject({ method: 'GET', url: `/api/jobs/${jobId}/documents`, headers })).json().items.length;

describe('the document size limit (DOCUMENT_MAX_BYTES)', () => {
  it('refuses a file over the limit with 413 file_too_large, naming the file and the limit', async () => {
    expect(large.length).toBeGreaterThan(maxBytes);
    const job = await createJob();
    const res = await upload(job.id, [{ name: 'huge.pdf', content: large }]);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'file_too_large', message: 'huge.pdf: this file is larger than the 20 KB limit.', detail: { maxBytes } });
    expect(await countDocuments(job.id)).toBe(0);
  });

  it('accepts a file of exactly the limit', async () => {
    const job = await createJob();
    const padded = Buffer.concat([small, Buffer.alloc(maxBytes - small.length, 0x0a)]);
    expect(padded.length).toBe(maxBytes);
    const res = await upload(job.id, [{ name: 'exact.pdf', content: padded }]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().items[0]).toMatchObject({ sizeBytes: maxBytes, pageCount: 1 });
  });

  it('stores nothing from a batch in which one file is too large', async () => {
    const job = await createJob();
    const res = await upload(job.id, [
      { name: 'small.pdf', content: small },
      { name: 'huge.pdf', content: large },
    ]);
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(/^huge\.pdf: /);
    expect(await countDocuments(job.id)).toBe(0);
    const audit = (await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}/audit`, headers })).json();
    expect(audit.events.map((event: { action: string }) => event.action)).toEqual(['job.created']);
    expect(fs.readdirSync(path.join(dataDir, 'tmp'))).toEqual([]);
  });
});
