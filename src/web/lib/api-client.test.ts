import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, createApiClient } from './api-client.ts';

let primary: FastifyInstance;
let local: FastifyInstance;
let primaryUrl = '';
let localUrl = '';
const seen: Array<{ server: string; headers: Record<string, unknown>; body: unknown }> = [];

async function start(name: string, configure: (app: FastifyInstance) => void) {
  const app = Fastify();
  app.addHook('onRequest', async (request) => {
    seen.push({ server: name, headers: request.headers, body: null });
  });
  configure(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  ({ app: primary, url: primaryUrl } = await start('primary', (app) => {
    app.post('/echo', async (request) => ({ received: request.body }));
    app.get('/message-error', async (_request, reply) => reply.code(409).send({ error: 'conflict', message: 'Already done.' }));
    app.get('/detail-error', async (_request, reply) => reply.code(400).send({ error: 'no_file', detail: 'Attach at least one PDF.' }));
    app.get('/bare-error', async (_request, reply) => reply.code(400).send({ error: 'no_file' }));
    app.get('/unavailable', async (_request, reply) => reply.code(503).send({ error: 'down' }));
    app.get('/shape', async () => ({ value: 'not a number' }));
  }));
  ({ app: local, url: localUrl } = await start('local', (app) => {
    app.get('/missing', async () => ({ from: 'local' }));
    app.get('/unavailable', async () => ({ from: 'local' }));
  }));
});

afterAll(async () => {
  await primary.close();
  await local.close();
});

describe('createApiClient', () => {
  it('sends JSON bodies with the bearer token and the debug admin key, and includes cookies', async () => {
    const client = createApiClient({ baseUrl: primaryUrl, readToken: () => 'token-123', readDebugAdminKey: () => 'debug-key' });
    const result = await client.post('/echo', { hello: 'world' });
    expect(result).toEqual({ received: { hello: 'world' } });
    const request = seen.at(-1);
    expect(request?.headers.authorization).toBe('Bearer token-123');
    expect(request?.headers['x-debug-admin-key']).toBe('debug-key');
    expect(request?.headers['content-type']).toBe('application/json');
  });

  it('uses the message field as the error text', async () => {
    const client = createApiClient({ baseUrl: primaryUrl });
    const error = await client.get('/message-error').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, message: 'Already done.', data: { error: 'conflict', message: 'Already done.' } });
  });

  it('uses the error field plus the detail field when there is no message', async () => {
    const client = createApiClient({ baseUrl: primaryUrl });
    await expect(client.get('/detail-error')).rejects.toMatchObject({ status: 400, message: 'no_file: Attach at least one PDF.' });
    await expect(client.get('/bare-error')).rejects.toMatchObject({ status: 400, message: 'no_file' });
  });

  it('refuses an answer that does not match the expected schema', async () => {
    const client = createApiClient({ baseUrl: primaryUrl });
    await expect(client.get('/shape', z.object({ value: z.number() }))).rejects.toMatchObject({
      message: 'The server sent an answer this page does not understand.',
    });
  });

  it('retries once against the local backend on 404 and 503 in dev or tunnel mode', async () => {
    const client = createApiClient({ baseUrl: primaryUrl, isFallbackEnabled: () => true, fallbackBaseUrl: localUrl });
    expect(await client.get('/missing')).toEqual({ from: 'local' });
    expect(await client.get('/unavailable')).toEqual({ from: 'local' });
  });

  it('retries once against the local backend on a network error', async () => {
    const client = createApiClient({ baseUrl: 'http://127.0.0.1:1', isFallbackEnabled: () => true, fallbackBaseUrl: localUrl });
    expect(await client.get('/missing')).toEqual({ from: 'local' });
  });

  it('does not retry when the fallback is off, and reports a network error clearly', async () => {
    const client = createApiClient({ baseUrl: primaryUrl, isFallbackEnabled: () => false, fallbackBaseUrl: localUrl });
    await expect(client.get('/unavailable')).rejects.toMatchObject({ status: 503, message: 'down' });
    const offline = createApiClient({ baseUrl: 'http://127.0.0.1:1' });
    await expect(offline.get('/x')).rejects.toMatchObject({ status: 0, message: expect.stringMatching(/^Network error/) });
  });
});

describe('ApiError', () => {
  it('reads a code on the shared list as that code', () => {
    expect(new ApiError(409, { error: 'conflict', message: 'Already done.' }, 'Already done.').code).toBe('conflict');
  });

  it('does not pass on an unknown code as a known one: the code is null and the body keeps what the server sent', () => {
    const error = new ApiError(400, { error: 'no_files', message: 'Attach a PDF.' }, 'Attach a PDF.');
    expect(error.code).toBeNull();
    expect(error.data).toEqual({ error: 'no_files', message: 'Attach a PDF.' });
  });

  it('has no code when the body has none or is not an object', () => {
    expect(new ApiError(500, { message: 'Broken.' }, 'Broken.').code).toBeNull();
    expect(new ApiError(502, 'Bad gateway', 'Bad gateway').code).toBeNull();
    expect(new ApiError(0, null, 'Network error').code).toBeNull();
  });
});
