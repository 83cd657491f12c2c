import { expect, test } from '@playwright/test';
import { logIn, readBootstrapUrl, registerSigner, uniqueEmail } from './helpers.ts';

test('a person registers, lands on the dashboard, logs out and signs in again', async ({ page }) => {
  const email = uniqueEmail('signer');
  await registerSigner(page, 'Riley Signer', email, 'correct horse battery');
  await expect(page.getByText('Welcome, Riley Signer')).toBeVisible();
  await expect(page.getByText('Viewing: Jobs')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Dashboard Home' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Help' })).toBeVisible();

  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  const me = await page.request.get('/api/auth/me');
  expect(me.status()).toBe(401);

  await logIn(page, email, 'correct horse battery');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
  await expect(page.getByText('Welcome, Riley Signer')).toBeVisible();
});

test('the dashboard keeps other query parameters when it defaults the tab', async ({ page }) => {
  await registerSigner(page, 'Query Keeper', uniqueEmail('query'), 'long enough pw');
  await page.goto('/dashboard?ref=email');
  await expect(page).toHaveURL(/\/dashboard\?ref=email&tab=jobs/);
});

test('a notary registration says the account is pending approval, and the first admin approves it', async ({ page, browser }) => {
  const notaryEmail = uniqueEmail('notary');
  await page.goto('/register');
  await page.getByRole('link', { name: /Notary/ }).click();
  await expect(page.getByText(/start pending approval/)).toBeVisible();
  await page.getByLabel('Full name').fill('Nadia Notary');
  await page.getByLabel('Email').fill(notaryEmail);
  await page.getByLabel('Commission state').selectOption('TX');
  await page.getByLabel('County').fill('Travis');
  await page.getByLabel('Commission number').fill('TX-12345');
  await page.getByLabel('Commission expires on').fill('2030-06-30');
  await page.getByLabel('Password', { exact: true }).fill('notary password');
  await page.getByLabel('Confirm password').fill('notary password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
  await expect(page.getByText(/Your notary account is pending approval/)).toBeVisible();

  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await admin.goto(readBootstrapUrl());
  await expect(admin.getByText('Create the first administrator account')).toBeVisible();
  await admin.getByLabel('Full name').fill('Ada Admin');
  await admin.getByLabel('Email').fill(uniqueEmail('admin'));
  await admin.getByLabel('Password', { exact: true }).fill('admin password 1');
  await admin.getByLabel('Confirm password').fill('admin password 1');
  await admin.getByRole('button', { name: 'Create account' }).click();
  await expect(admin.getByText('Welcome, Ada Admin')).toBeVisible();
  await admin.getByRole('button', { name: 'Approvals' }).click();
  await expect(admin.getByText('Viewing: Approvals')).toBeVisible();
  await admin.getByRole('button', { name: 'Approve Nadia Notary' }).click();
  await expect(admin.getByRole('button', { name: 'Approve Nadia Notary' })).toHaveCount(0);

  await admin.goto(readBootstrapUrl());
  await expect(admin.getByText('This invitation link is invalid, expired or already used.')).toBeVisible();
  await adminContext.close();

  const me = await page.request.get('/api/auth/me');
  expect((await me.json()).user.status).toBe('active');
});
