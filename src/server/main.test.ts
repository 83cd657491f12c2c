import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findNonPrivateEntries } from '#test/file-modes.ts';
import { buildMultipart, makePdf } from '#test/pdf-fixtures.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-main-'));
let server: ChildProcess | null = null;
afterAll(() => {
  server?.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function findFreePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts `tsx src/server/main.ts --demo` as npm run demo would, without a web build; resolves with its output once it listens. */
async function startServer(port: number): Promise<{ output: () => string; exited: Promise<number | null> }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  Object.assign(env, { MFA_REQUIRED_ROLES: 'none', WEB_DIST_DIR: path.join(dataDir, 'no-web-build'), LOG_LEVEL: 'warn', NODE_ENV: 'production' });
  for (const name of ['DATABASE_URL', 'S3_BUCKET', 'SMTP_URL', 'REDIS_URL', 'SECRETS_KEY', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[name];
  // Node with tsx's loader, not the tsx command: the command relays SIGTERM only if the server
  // acknowledges it within 30 ms and otherwise kills it with SIGKILL (exit 143), which a busy CI
  // machine produced twice. The signal must reach the server's own shutdown.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts', '--demo'], { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server = child;
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (!output.includes('Open RON is running')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { output: () => output, exited };
}

describe('npm start on an embedded DATA_DIR', () => {
  it('keeps everything under DATA_DIR private to its account: the database while it runs, blobs, uploads, secrets.key and an older install’s files', async () => {
    // An older install: a readable DATA_DIR, with files and a directory other accounts could read.
    fs.chmodSync(dataDir, 0o755);
    fs.mkdirSync(path.join(dataDir, 'tmp'));
    fs.chmodSync(path.join(dataDir, 'tmp'), 0o755);
    fs.writeFileSync(path.join(dataDir, 'tmp', 'left-over.upload'), 'old upload');
    fs.chmodSync(path.join(dataDir, 'tmp', 'left-over.upload'), 0o666);
    expect(findNonPrivateEntries(dataDir)).toHaveLength(3);

    const port = await findFreePort();
    const { output, exited } = await startServer(port);
    const password = output().match(/password: (demo-\S+)/)?.[1];
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'agent@demo.open-ron.test', password }),
    });
    expect(login.status).toBe(200);
    const authorization = `Bearer ${((await login.json()) as { sessionToken: string }).sessionToken}`;
    const created = await fetch(`${base}/api/jobs`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Private deed', notarizationType: 'jurat', signers: [{ name: 'Sam Signer', email: 'sam@example.test' }] }),
    });
    expect(created.status).toBe(201);
    const jobId = ((await created.json()) as { id: string }).id;
    const upload = buildMultipart([{ name: 'deed.pdf', content: await makePdf(3) }]);
    const uploaded = await fetch(`${base}/api/jobs/${jobId}/documents`, {
      method: 'POST',
      headers: { authorization, ...upload.headers },
      body: upload.payload,
    });
    expect(uploaded.status).toBe(201);

    expect(fs.readdirSync(path.join(dataDir, 'blobs')).length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dataDir, 'secrets.key'))).toBe(true);
    expect(findNonPrivateEntries(dataDir)).toEqual([]);

    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(findNonPrivateEntries(dataDir)).toEqual([]);
  }, 120_000);
});
