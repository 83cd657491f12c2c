import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A real coturn (Debian package `coturn`) listening on loopback, for relay-only ICE tests. */
export interface Coturn {
  /** `turn:127.0.0.1:<port>?transport=udp` */
  url: string;
  port: number;
  realm: string;
  username: string;
  credential: string;
  /** Everything turnserver printed so far (for failure messages). */
  log(): string;
  /** Stops turnserver (SIGTERM, then SIGKILL) and removes its working directory. */
  close(): Promise<void>;
}

const binary = 'turnserver';

/** Null when the binary is installed; otherwise why the coturn tests cannot run. */
export function coturnMissingReason(): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
  if (found.status === 0 && found.stdout.trim() !== '') return null;
  return `${binary} is not installed (Debian package coturn: apt-get install coturn); the TURN relay tests are skipped.`;
}

async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', resolve);
  });
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/** Sends STUN Binding requests to 127.0.0.1:port until one is answered (the server listens). */
async function waitForStunResponse(port: number, child: ChildProcess, timeoutMs: number, log: () => string): Promise<void> {
  const socket = dgram.createSocket('udp4');
  const transactionId = randomBytes(12);
  const request = Buffer.concat([Buffer.from([0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42]), transactionId]);
  try {
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const onMessage = (message: Buffer) => {
        // A Binding success response (0x0101) to our transaction.
        if (message.length >= 20 && message.readUInt16BE(0) === 0x0101 && message.subarray(8, 20).equals(transactionId)) finish();
      };
      const onExit = (code: number | null) => finish(new Error(`${binary} exited (code ${code}) before it listened:\n${log()}`));
      const timer = setInterval(() => {
        if (Date.now() > deadline) finish(new Error(`${binary} did not answer STUN on 127.0.0.1:${port} within ${timeoutMs} ms:\n${log()}`));
        else socket.send(request, port, '127.0.0.1');
      }, 50);
      function finish(error?: Error) {
        clearInterval(timer);
        socket.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve();
      }
      socket.on('message', onMessage);
      child.once('exit', onExit);
      socket.send(request, port, '127.0.0.1');
    });
  } finally {
    await new Promise<void>((resolve) => socket.close(resolve));
  }
}

/**
 * Starts turnserver on 127.0.0.1 with long-term credentials for one static user, UDP only, no TLS,
 * no CLI, loopback peers allowed (the test's peers are all on 127.0.0.1). Resolves once it answers
 * a STUN Binding request. Throws if the binary is missing: check `coturnMissingReason()` first.
 */
export async function startCoturn(options: { realm?: string; username?: string; credential?: string; timeoutMs?: number } = {}): Promise<Coturn> {
  const missing = coturnMissingReason();
  if (missing) throw new Error(missing);
  const realm = options.realm ?? 'open-ron.test';
  const username = options.username ?? 'ron-test';
  const credential = options.credential ?? randomBytes(12).toString('hex');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-coturn-'));
  const port = await freeUdpPort();
  const args = [
    '-n', // no configuration file
    '--listening-ip=127.0.0.1',
    '--relay-ip=127.0.0.1',
    `--listening-port=${port}`,
    '--no-tcp',
    '--no-tls',
    '--no-dtls',
    '--no-rfc5780',
    '--no-cli',
    '--allow-loopback-peers',
    '--lt-cred-mech',
    `--user=${username}:${credential}`,
    `--realm=${realm}`,
    `--userdb=${path.join(directory, 'turndb')}`,
    `--pidfile=${path.join(directory, 'turnserver.pid')}`,
    '--log-file=stdout',
    '--simple-log',
    '--no-software-attribute',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const log = () => output;

  let isClosed = false;
  const close = async () => {
    if (isClosed) return;
    isClosed = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(killTimer);
    }
    fs.rmSync(directory, { recursive: true, force: true });
  };

  try {
    await waitForStunResponse(port, child, options.timeoutMs ?? 10_000, log);
  } catch (error) {
    await close();
    throw error;
  }
  return { url: `turn:127.0.0.1:${port}?transport=udp`, port, realm, username, credential, log, close };
}
