import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { logIn, logOut, registerSigner, totpCode, uniqueEmail, waitForMail } from './helpers.ts';

/** Registers a notary: MFA is required for the role, so the browser lands on /mfa/setup. */
async function registerNotary(page: Page, name: string, email: string, password: string) {
  await page.goto('/register/notary');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Commission state').selectOption('VA');
  await page.getByLabel('County').fill('Fairfax');
  await page.getByLabel('Commission number').fill('VA-7788');
  await page.getByLabel('Commission expires on').fill('2031-01-31');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/mfa\/setup$/);
}

test('a registering notary links an authenticator at once; that code signs them in and the backup codes wait until saved', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const email = uniqueEmail('totp-notary');
  await registerNotary(page, 'Tess Totp', email, 'notary password');
  await expect(page.getByText('Your role requires a second step')).toBeVisible();
  // The registration session can do nothing but set up the second factor.
  const me = await page.request.get('/api/auth/me');
  expect(me.status()).toBe(401);
  expect((await me.json()).error).toBe('mfa_required');
  expect(await page.evaluate(() => sessionStorage.getItem('user'))).toBeNull();

  await page.getByRole('button', { name: /Authenticator app \(recommended\)/ }).click();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);

  await page.getByLabel('6-digit code').fill('12ab');
  await expect(page.getByLabel('6-digit code')).toHaveValue('12');
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter the 6-digit code from your authenticator app.');

  await page.getByLabel('6-digit code').fill(totpCode(secret));
  await expect(page.getByLabel('Remember this device')).toBeChecked();
  await page.getByLabel('Remember this device').uncheck();
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByText('Authenticator linked!')).toBeVisible();
  await expect(page.getByLabel('6-digit code')).toHaveCount(0);
  const codes = page.getByRole('list', { name: 'Backup codes' }).locator('code');
  await expect(codes).toHaveCount(10);
  const backupCodes = await codes.allTextContents();
  for (const code of backupCodes) expect(code).toMatch(/^[A-Z0-9]{10}$/);
  // The sign-in is complete, yet the codes stay until the person says they saved them.
  expect((await (await page.request.get('/api/auth/me')).json()).user.email).toBe(email);
  await page.waitForTimeout(1500);
  await expect(page).toHaveURL(/\/mfa\/setup$/);

  await page.getByRole('button', { name: 'Copy codes' }).click();
  await expect(page.getByText('Backup codes copied to the clipboard.')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  for (const code of backupCodes) expect(copied).toContain(code);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download codes' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('open-ron-backup-codes.txt');
  const saved = fs.readFileSync((await download.path()) ?? '', 'utf8');
  for (const code of backupCodes) expect(saved).toContain(code);

  await page.getByRole('button', { name: 'I have saved my backup codes' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
  await expect(page.getByText('Welcome, Tess Totp')).toBeVisible();
  await expect(page.getByText(/Your notary account is pending approval/)).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('pendingMfa'))).toBeNull();
  await page.getByRole('button', { name: 'Security' }).click();
  await expect(page.getByText('Linked', { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Set up a new authenticator' })).toHaveCount(0);

  await logOut(page);
  const statusLoaded = page.waitForResponse((response) => response.url().endsWith('/api/auth/mfa/status') && response.ok());
  await logIn(page, email, 'notary password');
  await expect(page).toHaveURL(/\/mfa\/verify$/);
  expect((await (await statusLoaded).json()).totpEnabled).toBe(true);
  await expect(page.getByLabel('Authenticator code')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Use email code instead' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Set up a new authenticator' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter your 6-digit code or a backup code.');
  await page.getByLabel('Authenticator code').fill(totpCode(secret, 1));
  await page.getByLabel('Remember this device').uncheck();
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);

  await logOut(page);
  await logIn(page, email, 'notary password');
  await expect(page).toHaveURL(/\/mfa\/verify$/);
  const backupCode = backupCodes[0] ?? '';
  await page.getByLabel('Or a backup code').fill(backupCode.toLowerCase());
  await expect(page.getByLabel('Or a backup code')).toHaveValue(backupCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});

test('a notary signs in with a code read from the email that arrived over SMTP, and the device is remembered', async ({ page }) => {
  const email = uniqueEmail('email-notary');
  await registerNotary(page, 'Eli Email', email, 'notary password');
  await page.getByRole('button', { name: /Email codes/ }).click();
  await expect(page).toHaveURL(/\/mfa\/verify\?useEmail=1$/);
  // Nothing is linked yet, so the page still offers an authenticator instead.
  await expect(page.getByRole('link', { name: 'Set up a new authenticator' })).toBeVisible();

  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please enter a valid 6-digit code.');
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByText(/^Code sent to e\*+@e\*+\.test$/)).toBeVisible();
  await expect(page.getByRole('button', { name: /Send another code in \d+ s/ })).toBeDisabled();
  await expect(page.getByText(/^Code sent to/)).toHaveCount(0, { timeout: 8_000 });

  const mail = await waitForMail(email, /sign-in code/);
  const code = mail.text.match(/\b(\d{6})\b/)?.[1] ?? '';
  expect(code).toMatch(/^\d{6}$/);
  await page.getByLabel('Email code').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid or expired code. Please try again.');
  await page.getByLabel('Email code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);

  await logOut(page);
  await logIn(page, email, 'notary password');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});

test('a person resets a forgotten password from the emailed link', async ({ page }) => {
  const email = uniqueEmail('reset');
  await registerSigner(page, 'Rita Reset', email, 'old password 1');
  await logOut(page);

  await page.getByLabel('Email').fill(email);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Password reset email sent! Check your inbox.' })).toBeVisible();
  expect(dialogs).toEqual([]);

  const mail = await waitForMail(email, /Reset your Open RON password/);
  const link = mail.text.match(/https?:\/\/\S+resetToken=\S+/)?.[0] ?? '';
  expect(link).toContain('/login?resetToken=');
  await page.goto(link);
  await page.getByLabel('New Password', { exact: true }).fill('new password 2');
  await page.getByLabel('Confirm New Password').fill('new password 2');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByText('Password updated! You can now log in.')).toBeVisible();

  await page.goto(link);
  await page.getByLabel('New Password', { exact: true }).fill('another pass 3');
  await page.getByLabel('Confirm New Password').fill('another pass 3');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('alert')).toHaveText('This reset link is invalid or expired.');

  await page.getByRole('link', { name: 'Back to login' }).click();
  await logIn(page, email, 'old password 1');
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password.');
  await logIn(page, email, 'new password 2');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});

test('a signer who links an authenticator answers the code step inside the login page', async ({ page }) => {
  const email = uniqueEmail('inline');
  await registerSigner(page, 'Ines Inline', email, 'signer password');
  await page.getByRole('button', { name: 'Security' }).click();
  await page.getByRole('link', { name: 'Set up an authenticator app' }).click();
  await page.getByRole('button', { name: /Authenticator app \(recommended\)/ }).click();
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  await page.getByLabel('6-digit code').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByText('Authenticator linked!')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Backup codes' }).locator('code')).toHaveCount(10);
  await page.getByRole('button', { name: 'I have saved my backup codes' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=security/);
  await expect(page.getByRole('link', { name: 'Replace the authenticator app' })).toBeVisible();
  await logOut(page);

  await logIn(page, email, 'signer password');
  await expect(page.getByRole('heading', { name: 'Two-factor verification' })).toBeVisible();
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please enter the 2FA code.');
  await page.getByLabel('2FA code').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid 2FA code');
  await page.getByLabel('2FA code').fill(totpCode(secret, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});
