import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TsaStandIn {
  /** Where to POST an application/timestamp-query. */
  url: string;
  /** The root that issued the TSA's certificate: what a verifier trusts. */
  caPem: string;
  /** The TSA's own certificate (extendedKeyUsage critical timeStamping). */
  tsaCertPem: string;
  close(): Promise<void>;
}

/**
 * An RFC 3161 timestamp authority for tests, on 127.0.0.1 at a random port: each request is
 * answered by OpenSSL's `ts -reply`, with a root and a TSA certificate made at start in a temporary
 * folder (removed by close). Tokens carry the TSA's certificate and the root.
 */
export async function startTsaStandIn(): Promise<TsaStandIn> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'ron-tsa-'));
  const file = (name: string) => path.join(directory, name);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '3',
    '-subj',
    '/CN=Test Timestamp Root',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await fs.promises.writeFile(
    file('tsa-extensions.cnf'),
    ['[ tsa ]', 'basicConstraints = critical,CA:FALSE', 'keyUsage = critical,digitalSignature', 'extendedKeyUsage = critical,timeStamping', ''].join('\n'),
  );
  await run('openssl', [
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('tsa.key'),
    '-out',
    file('tsa.csr'),
    '-subj',
    '/CN=Test Timestamp Authority',
  ]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    file('tsa.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-days',
    '2',
    '-extfile',
    file('tsa-extensions.cnf'),
    '-extensions',
    'tsa',
    '-out',
    file('tsa.pem'),
  ]);
  await fs.promises.writeFile(file('serial'), '01\n');
  await fs.promises.writeFile(
    file('tsa.cnf'),
    [
      '[ tsa ]',
      'default_tsa = local',
      '[ local ]',
      `serial = ${file('serial')}`,
      `signer_cert = ${file('tsa.pem')}`,
      `signer_key = ${file('tsa.key')}`,
      `certs = ${file('ca.pem')}`,
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ess_cert_id_alg = sha256',
      'ordering = no',
      'tsa_name = no',
      'ess_cert_id_chain = no',
      '',
    ].join('\n'),
  );

  let replies: Promise<void> = Promise.resolve();
  const server = http.createServer((request, response) => {
    if (request.method !== 'POST' || request.headers['content-type'] !== 'application/timestamp-query') {
      response.writeHead(400, { 'content-type': 'text/plain' }).end('Send an application/timestamp-query by POST.');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = randomBytes(6).toString('hex');
      // One reply at a time: every `openssl ts -reply` reads and rewrites the same serial file.
      replies = replies.then(async () => {
        try {
          await fs.promises.writeFile(file(`${id}.tsq`), Buffer.concat(chunks));
          await run('openssl', ['ts', '-reply', '-config', file('tsa.cnf'), '-queryfile', file(`${id}.tsq`), '-out', file(`${id}.tsr`)]);
          response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(await fs.promises.readFile(file(`${id}.tsr`)));
        } catch (error) {
          response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const [caPem, tsaCertPem] = await Promise.all([fs.promises.readFile(file('ca.pem'), 'utf8'), fs.promises.readFile(file('tsa.pem'), 'utf8')]);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    caPem,
    tsaCertPem,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await fs.promises.rm(directory, { recursive: true, force: true });
    },
  };
}
