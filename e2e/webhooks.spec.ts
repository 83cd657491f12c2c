import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { findSeriousViolations, openAdminPage, uniqueEmail, waitForMail } from './helpers.ts';

/**
 * Webhooks (decision 055): title staff open their company from the sidebar, register an endpoint
 * pointing at a receiver this spec runs on loopback (e2e/start-server.mjs allows http:// and
 * loopback for this), create a job, see the delivery in the log as delivered, and replay it.
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function acceptInvitationAsNewPerson(page: Page, email: string, name: string, companyName: string) {
  const mail = await waitForMail(email, new RegExp(`Join ${companyName}`));
  const link = mail.text.match(/https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/)?.[0];
  if (!link) throw new Error('no invitation link');
  await page.goto(new URL(link).pathname);
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill('company password 1');
  await page.getByLabel('Confirm password').fill('company password 1');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText(`Welcome, ${name}`)).toBeVisible();
}

test('title staff register a webhook, see a job’s event delivered and signed, and replay it', async ({ browser }) => {
  test.setTimeout(120_000);
  const receiver = await startReceiver();
  try {
    const admin = await openAdminPage(browser);
    const companyName = `Beacon Title ${Date.now().toString(36)}`;
    const staffEmail = uniqueEmail('hooks-staff');
    await admin.goto('/dashboard?tab=jobs');
    await admin.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Title companies' }).click();
    await admin.getByRole('link', { name: 'New title company' }).click();
    await admin.getByLabel('Company name').fill(companyName);
    await admin.getByLabel('City').fill('Richmond');
    await admin.getByLabel('State').selectOption('VA');
    await admin.getByLabel('Their full name').fill('Hana Hooks');
    await admin.getByLabel('Their email').fill(staffEmail);
    await admin.getByRole('button', { name: 'Create the company' }).click();
    await expect(admin.getByRole('heading', { name: companyName, level: 1 })).toBeVisible();
    // Administrators do not manage a company's webhooks.
    await expect(admin.getByRole('heading', { name: 'Webhooks' })).toHaveCount(0);

    const staff = await (await browser.newContext()).newPage();
    await acceptInvitationAsNewPerson(staff, staffEmail, 'Hana Hooks', companyName);
    await staff.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Company' }).click();
    await expect(staff.getByRole('heading', { name: companyName, level: 1 })).toBeVisible();
    const panel = staff.getByRole('region', { name: 'Webhooks' });
    await expect(panel.getByText('No endpoints yet.')).toBeVisible();

    // Register the endpoint: a refused address first, then the receiver.
    await panel.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = staff.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.getByLabel('Endpoint URL').fill(receiver.url);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(dialog.getByText('Choose at least one event.')).toBeVisible();
    await dialog.getByLabel('Job created').check();
    await dialog.getByLabel('Job completed').check();
    await dialog.getByLabel('Description (optional)').fill('Closing system');
    await expect.poll(() => findSeriousViolations(staff)).toEqual([]);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(dialog).toHaveCount(0);
    const secret = await panel.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await expect(panel.getByText('it is not shown again')).toBeVisible();
    await panel.getByRole('button', { name: 'I have stored it' }).click();
    await expect(panel.getByLabel('Signing secret')).toHaveCount(0);
    const endpoints = panel.getByRole('list', { name: 'Webhook endpoints' });
    await expect(endpoints.getByRole('heading', { name: receiver.url })).toBeVisible();
    await expect(endpoints.getByText('Events: Job created, Job completed')).toBeVisible();
    await expect(panel.getByText('Nothing sent yet.')).toBeVisible();

    // A job of the company: its event is sent to the receiver, signed with the secret.
    await staff.getByRole('button', { name: 'New Signing Request' }).click();
    const request = staff.getByRole('dialog');
    await request.getByLabel('Title', { exact: true }).fill('Beacon refinance');
    await request.getByRole('button', { name: 'Create signing request' }).click();
    await expect(staff.getByRole('link', { name: 'Open the new job' })).toBeVisible();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
    const [first] = receiver.received;
    const timestamp = String(first!.headers['webhook-timestamp']);
    const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${first!.body}`).digest('hex')}`;
    expect(first!.headers['webhook-signature']).toBe(expected);
    expect(JSON.parse(first!.body)).toMatchObject({ type: 'job.created', data: { status: 'draft' } });

    // The delivery log says so, in words; a replay sends the same event again.
    await staff.goto('/dashboard?tab=jobs');
    await staff.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Company' }).click();
    await panel.getByRole('button', { name: /Show deliveries/ }).click();
    const log = panel.getByRole('list', { name: `Deliveries to ${receiver.url}` });
    const delivered = log.getByRole('listitem').filter({ hasText: 'Job created' });
    await expect(delivered).toContainText('Delivered');
    await expect(delivered).toContainText('Answered 204');
    await expect(delivered).toContainText('1 try');
    await expect.poll(() => findSeriousViolations(staff)).toEqual([]);
    // The log fits a phone.
    await staff.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => staff.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await staff.setViewportSize({ width: 1280, height: 720 });
    await delivered.getByRole('button', { name: /Replay/ }).click();
    await expect(panel.getByText('The event is queued to be sent again.')).toBeVisible();
    await expect(log.getByRole('listitem').filter({ hasText: 'Job created (replay)' })).toContainText('Delivered', { timeout: 15_000 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);

    // Disabling asks first.
    await panel.getByRole('button', { name: `Disable ${receiver.url}` }).click();
    const confirm = staff.getByRole('dialog', { name: `Disable the endpoint ${receiver.url}?` });
    await confirm.getByRole('button', { name: 'Disable endpoint' }).click();
    await expect(endpoints.getByText('Disabled', { exact: true })).toBeVisible();
  } finally {
    await receiver.close();
  }
});
