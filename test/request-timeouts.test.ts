import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { createJobKit, type JobKit } from '#test/job-fixtures.ts';

/**
 * A client that sends its request slowly, or stops, is cut off within the configured bounds with 408
 * and a sentence; a live channel (WebSocket) that outlives every bound stays open. The bounds here are
 * small: the body must keep coming at 1,000 bytes a second, judged every half second; a whole request
 * may take 3 seconds, its headers 1 second.
 */

let t: TestApp;
let kit: JobKit;
let port: number;

beforeAll(async () => {
  t = await createTestApp({
    LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '10000',
    BODY_IDLE_SECONDS: '0.5',
    BODY_MIN_BYTES_PER_SECOND: '1000',
    REQUEST_TIMEOUT_SECONDS: '3',
    HEADERS_TIMEOUT_SECONDS: '1',
    CONNECTION_IDLE_SECONDS: '1',
  });
  kit = createJobKit(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

interface Cut {
  /** The raw answer, '' if the connection was closed without one. */
  answer: string;
  /** Milliseconds from the first byte written to the connection's end. */
  afterMs: number;
}

/**
 * Writes `head` on a raw connection, then `drip` every `everyMs` (nothing when `drip` is empty), and
 * resolves with what came back when the server ends the connection. Fails after `limitMs`.
 */
function slowRequest(head: string, drip: string, everyMs: number, limitMs: number): Promise<Cut> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const limit = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the connection was still open after ${limitMs} ms`));
    }, limitMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const finish = () => {
      clearInterval(timer);
      clearTimeout(limit);
      resolve({ answer: Buffer.concat(received).toString('utf8'), afterMs: Date.now() - started });
    };
    socket.on('close', finish);
    socket.on('error', () => {});
    socket.write(head);
    if (drip) {
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip);
      }, everyMs);
    }
  });
}

function statusOf(answer: string): number {
  return Number(answer.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
}

function bodyOf(answer: string): { error?: string; message?: string } {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body) as { error?: string; message?: string };
}

const jsonHead = (length: number, path = '/api/auth/login', extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe('a slow request', () => {
  it('whose body stops after a few bytes is answered 408 with a sentence within the idle bound', async () => {
    const cut = await slowRequest(`${jsonHead(200)}{"email":`, '', 0, 5000);
    expect(statusOf(cut.answer), cut.answer).toBe(408);
    expect(bodyOf(cut.answer)).toMatchObject({ error: 'request_timeout' });
    expect(bodyOf(cut.answer).message).toMatch(/^[A-Z].{20,}\.$/);
    expect(cut.afterMs).toBeLessThan(2500);
  });

  it('whose body trickles in slower than the minimum rate (one byte every 50 ms) is answered 408 within the bound', async () => {
    const cut = await slowRequest(`${jsonHead(100_000)}{"email":"`, 'a', 50, 5000);
    expect(statusOf(cut.answer), cut.answer).toBe(408);
    expect(bodyOf(cut.answer)).toMatchObject({ error: 'request_timeout' });
    expect(cut.afterMs).toBeLessThan(2500);
  });

  it('whose multipart upload stalls is answered 408 too', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await kit.createJob(agent, {});
    const headers = await t.signInAs(agent);
    const boundary = '----slow';
    const head =
      `POST /api/jobs/${job.id}/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${headers.authorization}\r\n` +
      `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000000\r\n\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`;
    const cut = await slowRequest(head, '', 0, 5000);
    expect(statusOf(cut.answer), cut.answer).toBe(408);
    expect(bodyOf(cut.answer)).toMatchObject({ error: 'request_timeout' });
  });

  it('that keeps the minimum rate but takes longer than the whole-request bound is cut with 408 and a sentence', async () => {
    // 100 bytes every 50 ms is 2,000 bytes a second, above the minimum; 1 MB would take over 8 minutes
    const cut = await slowRequest(`${jsonHead(1_000_000)}{"email":"`, 'a'.repeat(100), 50, 9000);
    expect(statusOf(cut.answer), cut.answer).toBe(408);
    expect(bodyOf(cut.answer)).toMatchObject({ error: 'request_timeout' });
    expect(bodyOf(cut.answer).message).toMatch(/^[A-Z].{20,}\.$/);
    expect(cut.afterMs).toBeGreaterThanOrEqual(2900);
  });

  it('whose headers never finish is answered 408 and closed', async () => {
    const cut = await slowRequest('GET /api/system/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 'a', 100, 5000);
    expect(statusOf(cut.answer), cut.answer).toBe(408);
    // The sentence names the bound that was passed: the headers', not the whole request's.
    expect(bodyOf(cut.answer).message).toMatch(/headers did not arrive within 1 second/);
    expect(cut.afterMs).toBeLessThan(4000);
  });

  it('sent at a normal pace is answered as usual', async () => {
    const user = await t.createUser();
    const payload = JSON.stringify({ email: user.email, password: user.password });
    const cut = await slowRequest(`${jsonHead(Buffer.byteLength(payload), '/api/auth/login', 'Connection: close\r\n')}${payload}`, '', 0, 5000);
    expect(statusOf(cut.answer), cut.answer).toBe(200);
  });
});

describe('a live channel', () => {
  it('stays open past every bound: the idle body window, the request bound and the connection idle bound', async () => {
    const agent = await t.createUser({ roles: ['title_agent'] });
    const job = await kit.createJob(agent, {});
    const headers = await t.signInAs(agent);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/jobs/${job.id}/live`, { headers });
    let closedWith: number | null = null;
    socket.on('close', (code) => {
      closedWith = code;
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 4500));
    expect(closedWith).toBeNull();
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close(1000);
  });
});
