// Starts the built app for the browser journeys on a fresh embedded database, with a real SMTP
// server on loopback that receives its mail; records the one-time administrator link it prints.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const port = process.env.E2E_PORT ?? '3210';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-e2e-'));
const stateFile = path.join(os.tmpdir(), `ron-e2e-${port}.json`);
const mailFile = path.join(os.tmpdir(), `ron-e2e-${port}-mail.jsonl`);
// Written by e2e/helpers.ts once the first administrator exists.
const adminFile = path.join(os.tmpdir(), `ron-e2e-${port}-admin.json`);
fs.rmSync(stateFile, { force: true });
fs.writeFileSync(mailFile, '');

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((mail) => {
        const to = [mail.to]
          .flat()
          .flatMap((entry) => entry?.value ?? [])
          .map((address) => address.address);
        fs.appendFileSync(mailFile, `${JSON.stringify({ to, subject: mail.subject, text: mail.text })}\n`);
        callback();
      })
      .catch(callback);
  },
});
await new Promise((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = smtp.server.address().port;

// The local Stripe stand-in (test/stripe-stand-in.ts) plays the payment provider: cards are held,
// captured and released against it, as the money journeys expect. The browser's Stripe.js is the
// stand-in script of test/stripe-js-stand-in.js (e2e/helpers.ts useStripeJsStandIn).
const stripeProcess = spawn(process.execPath, ['--import', 'tsx', 'test/stripe-stand-in-main.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
const stripe = await new Promise((resolve, reject) => {
  let text = '';
  stripeProcess.stdout.on('data', (chunk) => {
    text += chunk.toString();
    const line = text.split('\n')[0];
    if (text.includes('\n')) resolve(JSON.parse(line));
  });
  stripeProcess.on('exit', (code) => reject(new Error(`the Stripe stand-in stopped (${code})`)));
});

const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
  env: {
    ...process.env,
    PORT: port,
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    // The journeys answer the development provider's questions (decision 025); production refuses it otherwise.
    IDENTITY_DEV_PROVIDER: 'allow',
    REGISTRATIONS_PER_ADDRESS_PER_HOUR: '1000',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    EMAIL_POLL_MS: '200',
    DATABASE_URL: '',
    REDIS_URL: '',
    PAYMENT_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_API_BASE: stripe.url,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_e2e_stand_in',
    // A Notarize Now search gives up after a minute here, so a journey that waits for it stays short.
    GNW_SEARCH_SECONDS: '60',
    // The webhooks journey's receiver listens on loopback over http (decision 055); only here.
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_POLL_MS: '1000',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});

let output = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  output += chunk.toString();
  // The server writes the first-administrator link to a private file in DATA_DIR, never to its output.
  const linkFile = path.join(dataDir, 'first-admin-link.txt');
  if (/Open RON is running at/.test(output) && fs.existsSync(linkFile) && !fs.existsSync(stateFile)) {
    const bootstrapUrl = fs.readFileSync(linkFile, 'utf8').trim();
    if (/\/claim\/[A-Za-z0-9_-]+$/.test(bootstrapUrl)) fs.writeFileSync(stateFile, JSON.stringify({ bootstrapUrl, dataDir }));
  }
});

const stop = () => {
  child.kill('SIGTERM');
  stripeProcess.kill('SIGTERM');
  smtp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(stateFile, { force: true });
  fs.rmSync(mailFile, { force: true });
  fs.rmSync(adminFile, { force: true });
};
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    stop();
    process.exit(0);
  });
}
child.on('exit', (code) => process.exit(code ?? 1));
