import { expect, test, type Page } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { logIn, logOut, registerSigner, uniqueEmail, waitForMail } from './helpers.ts';

/** A code for the next 30-second step: the server refuses a code of a step already used. */
function nextCode(secret: string, offsetSteps = 1): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

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
  await expect(page).toHaveURL(/\/dashboard/);
}

test('a notary must enrol an authenticator at sign-in and then signs in with it', async ({ page }) => {
  const email = uniqueEmail('totp-notary');
  await registerNotary(page, 'Tess Totp', email, 'notary password');
  await logOut(page);

  await logIn(page, email, 'notary password');
  await expect(page).toHaveURL(/\/mfa\/setup$/);
  await expect(page.getByText('Your role requires a second step')).toBeVisible();
  await page.getByRole('button', { name: /Authenticator app \(recommended\)/ }).click();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);

  await page.getByLabel('6-digit code').fill('12ab');
  await expect(page.getByLabel('6-digit code')).toHaveValue('12');
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter the 6-digit code from your authenticator app.');

  await page.getByLabel('6-digit code').fill(nextCode(secret, 0));
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByText('Authenticator linked!')).toBeVisible();
  await expect(page).toHaveURL(/\/mfa\/verify$/);

  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter your 6-digit code or a backup code.');
  await page.getByLabel('Authenticator code').fill(nextCode(secret, 1));
  await page.getByLabel('Remember this device').uncheck();
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
  await expect(page.getByText('Welcome, Tess Totp')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('pendingMfa'))).toBeNull();

  await page.getByRole('button', { name: 'Security' }).click();
  await expect(page.getByText('Linked', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Create backup codes' }).click();
  const codes = page.getByRole('list', { name: 'Backup codes' }).locator('code');
  await expect(codes).toHaveCount(10);
  const backupCode = (await codes.first().textContent()) ?? '';

  await logOut(page);
  await logIn(page, email, 'notary password');
  await expect(page).toHaveURL(/\/mfa\/verify$/);
  await page.getByLabel('Or a backup code').fill(backupCode.toLowerCase());
  await expect(page.getByLabel('Or a backup code')).toHaveValue(backupCode);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});

test('a notary signs in with a code read from the email that arrived over SMTP, and the device is remembered', async ({ page }) => {
  const email = uniqueEmail('email-notary');
  await registerNotary(page, 'Eli Email', email, 'notary password');
  await logOut(page);

  await logIn(page, email, 'notary password');
  await expect(page).toHaveURL(/\/mfa\/setup$/);
  await page.getByRole('button', { name: /Email codes/ }).click();
  await expect(page).toHaveURL(/\/mfa\/verify\?useEmail=1$/);

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
  const alerts: string[] = [];
  page.once('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.accept();
  });
  await page.getByRole('button', { name: 'Forgot password?' }).click();
  await expect.poll(() => alerts).toEqual(['Password reset email sent! Check your inbox.']);

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
  await page.getByLabel('6-digit code').fill(nextCode(secret, 0));
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByText('Authenticator linked!')).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\?tab=security/);
  await logOut(page);

  await logIn(page, email, 'signer password');
  await expect(page.getByRole('heading', { name: 'Two-factor verification' })).toBeVisible();
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please enter the 2FA code.');
  await page.getByLabel('2FA code').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid 2FA code');
  await page.getByLabel('2FA code').fill(nextCode(secret, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});
