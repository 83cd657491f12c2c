import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { findSeriousViolations, logIn, uniqueEmail } from './helpers.ts';

/**
 * The embedded default: no SMTP_URL. This file runs its own server (E2E_PORT + 1, fresh data) so
 * mail lands in the local mailbox, which the administrator reads at /admin/mail on a 390 px phone.
 */
const port = Number(process.env.E2E_PORT ?? 3210) + 1;
const baseUrl = `http://localhost:${port}`;
const phone = { width: 390, height: 844 };
let server: ChildProcess;
let output = '';
let dataDir: string;
const adminEmail = uniqueEmail('admin');
const adminPassword = 'admin password 1';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-e2e-mailbox-'));
  server = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      MFA_REQUIRED_ROLES: 'none',
      EMAIL_POLL_MS: '200',
      SMTP_URL: '',
      DATABASE_URL: '',
      REDIS_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await expect.poll(() => /Open RON is running at/.test(output), { timeout: 60_000 }).toBe(true);
});

/** The one-time first-administrator link, from the private file the server writes instead of printing it. */
function readFirstAdminLink(): string {
  return fs.readFileSync(path.join(dataDir, 'first-admin-link.txt'), 'utf8').trim();
}

test.afterAll(async () => {
  server?.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function newPhonePage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: phone });
  return context.newPage();
}

async function expectNoSideways(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
}

test('the administrator reads waiting mail at /admin/mail, a newcomer confirms their address from it, and an invitation then waits on their dashboard', async ({
  browser,
}) => {
  const startLine = output.split('\n').find((line) => line.includes('Open RON is running'));
  expect(startLine).toContain('mail kept in the local mailbox at /admin/mail');
  expect(output).toContain('mail is kept in a local mailbox that administrators read at');

  // The first administrator, from the one-time link the server wrote to DATA_DIR (never to its output).
  const adminLink = readFirstAdminLink();
  expect(adminLink).toMatch(/\/claim\/[\w-]+$/);
  expect(output).not.toContain(adminLink.split('/claim/')[1]);
  expect(fs.statSync(path.join(dataDir, 'first-admin-link.txt')).mode & 0o777).toBe(0o600);
  const admin = await newPhonePage(browser);
  await admin.goto(adminLink);
  await admin.getByLabel('Full name').fill('Ada Admin');
  await admin.getByLabel('Email').fill(adminEmail);
  await admin.getByLabel('Password', { exact: true }).fill(adminPassword);
  await admin.getByLabel('Confirm password').fill(adminPassword);
  await admin.getByRole('button', { name: 'Create account' }).click();
  await expect(admin.getByText('Welcome, Ada Admin')).toBeVisible();
  await admin.getByRole('link', { name: 'Mail' }).click();
  await expect(admin).toHaveURL(/\/admin\/mail$/);
  await expect(admin.getByText('No mail is waiting.')).toBeVisible();
  await expectNoSideways(admin);

  // A newcomer registers: the dashboard asks them to confirm their address.
  const newcomerEmail = uniqueEmail('newcomer');
  const newcomer = await newPhonePage(browser);
  await newcomer.goto('/register/user');
  await newcomer.getByLabel('Full name').fill('Nia Newcomer');
  await newcomer.getByLabel('Email').fill(newcomerEmail);
  await newcomer.getByLabel('Password', { exact: true }).fill('newcomer password 1');
  await newcomer.getByLabel('Confirm password').fill('newcomer password 1');
  await newcomer.getByRole('button', { name: 'Create account' }).click();
  const banner = newcomer.getByRole('region', { name: 'Confirm your email address' });
  await expect(banner).toBeVisible();
  await banner.getByRole('button', { name: 'Send the link again' }).click();
  await expect(banner.getByRole('alert')).toContainText('Please wait');

  // The administrator finds the confirmation mail, newest first, its link clickable.
  await expect
    .poll(async () => {
      await admin.getByRole('button', { name: 'Refresh' }).click();
      return admin.getByRole('heading', { name: 'Confirm your email address for Open RON' }).count();
    })
    .toBe(1);
  const message = admin.getByRole('article', { name: 'Confirm your email address for Open RON' });
  await expect(message).toContainText(newcomerEmail);
  const link = message.getByRole('link', { name: /\/verify-email\// });
  const href = (await link.getAttribute('href')) ?? '';
  expect(href).toMatch(new RegExp(`^${baseUrl}/verify-email/[\\w-]+$`));
  await expectNoSideways(admin);

  // The log said only that mail was waiting: never the link.
  expect(output).toContain(`Mail for ${newcomerEmail} is waiting in the local mailbox at /admin/mail`);
  expect(output).not.toContain(href.split('/verify-email/')[1]);

  await newcomer.goto(href);
  await expect(newcomer.getByText('Your email address is confirmed.')).toBeVisible();
  await newcomer.getByRole('link', { name: 'Go to your dashboard' }).click();
  await expect(newcomer.getByText('Welcome, Nia Newcomer')).toBeVisible();
  await expect(newcomer.getByRole('region', { name: 'Confirm your email address' })).toHaveCount(0);

  // The administrator invites the newcomer's address to a job: it waits on their dashboard and bell.
  const created = await admin.request.post('/api/jobs', {
    headers: { origin: baseUrl },
    data: { title: 'Deed of trust', notarizationType: 'acknowledgment', signers: [{ name: 'Nia Newcomer', email: newcomerEmail }] },
  });
  expect(created.status()).toBe(201);
  await newcomer.reload();
  await expect(newcomer.getByText('Invitation: open to accept')).toBeVisible();
  await newcomer.getByRole('button', { name: /Notifications \(1\)/ }).click();
  await expect(newcomer.getByText('You are invited to sign "Deed of trust". Open it to accept.')).toBeVisible();
  await newcomer.getByRole('region', { name: 'Notifications' }).getByRole('link', { name: 'Deed of trust' }).click();
  await expect(newcomer.getByRole('heading', { name: 'You are invited to sign “Deed of trust”' })).toBeVisible();
  await expectNoSideways(newcomer);
  await newcomer.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(newcomer.getByRole('heading', { name: 'You are invited to sign “Deed of trust”' })).toHaveCount(0);
  await expect(newcomer.getByText('Deed of trust').first()).toBeVisible();
  await expect(newcomer.getByRole('alert')).toHaveCount(0);

  await admin.context().close();
  await newcomer.context().close();
});

test('the administrator goes from the dashboard to the mailbox, then to the templates, and previews one safely', async ({ browser }) => {
  const admin = await newPhonePage(browser);
  await logIn(admin, adminEmail, adminPassword);
  await expect(admin.getByText('Welcome, Ada Admin')).toBeVisible();
  await admin.getByRole('link', { name: 'Mail' }).click();
  await expect(admin).toHaveURL(/\/admin\/mail$/);
  await admin.getByRole('navigation', { name: 'Mail sections' }).getByRole('link', { name: 'Templates' }).click();
  await expect(admin).toHaveURL(/\/admin\/mail\/templates$/);
  await expect(admin.getByRole('heading', { name: 'Email templates' })).toBeVisible();
  await expect(admin.getByRole('link', { name: 'Templates' })).toHaveAttribute('aria-current', 'page');

  const reset = admin.getByRole('article', { name: 'Password reset link' });
  await expect(reset).toContainText('Sent when someone asks to reset the password');
  await reset.getByRole('button', { name: 'Show preview' }).click();
  await expect(reset.getByRole('button', { name: 'Hide preview' })).toHaveAttribute('aria-expanded', 'true');
  await expect(reset).toContainText('Reset your Open RON password');
  await expect(reset).toContainText(`${baseUrl}/login?resetToken=`);
  // The HTML is shown in a frame that may run nothing and reach nothing of this page.
  const frame = reset.locator('iframe');
  await expect(frame).toHaveAttribute('sandbox', '');
  await expect(frame).toHaveAttribute('title', 'HTML of “Password reset link”');
  await expect(reset.frameLocator('iframe').getByText('Hello Ada Lovelace,')).toBeVisible();

  expect.soft(await findSeriousViolations(admin), '/admin/mail/templates').toEqual([]);
  await expectNoSideways(admin);
  await admin.context().close();
});

test('a person who is not an administrator is told the mailbox is for administrators', async ({ browser }) => {
  const page = await newPhonePage(browser);
  await page.goto('/register/user');
  await page.getByLabel('Full name').fill('Sam Signer');
  await page.getByLabel('Email').fill(uniqueEmail('signer'));
  await page.getByLabel('Password', { exact: true }).fill('signer password 1');
  await page.getByLabel('Confirm password').fill('signer password 1');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Welcome, Sam Signer')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Mail' })).toHaveCount(0);
  await page.goto('/admin/mail');
  await expect(page.getByText('Only administrators can read the local mailbox.')).toBeVisible();
  expect((await page.request.get('/api/admin/mail')).status()).toBe(403);
  await page.goto('/admin/mail/templates');
  await expect(page.getByText('Only administrators can preview the email templates.')).toBeVisible();
  expect((await page.request.get('/api/admin/mail/templates')).status()).toBe(403);
  await page.context().close();
});
