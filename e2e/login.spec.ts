import { expect, test } from '@playwright/test';
import { logIn, registerSigner, uniqueEmail } from './helpers.ts';

test('the login page shows its validation messages and error texts', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please enter both email and password.');

  await page.getByRole('button', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please enter your email first.');

  await logIn(page, 'nobody@example.test', 'wrong password');
  await expect(page.getByRole('alert')).toHaveText('Invalid email or password.');
  expect(await page.evaluate(() => sessionStorage.getItem('user'))).toBeNull();
});

test('the password toggle shows and hides the password', async ({ page }) => {
  await page.goto('/login');
  const password = page.getByLabel('Password', { exact: true });
  await password.fill('secret value');
  await expect(password).toHaveAttribute('type', 'password');
  await page.getByRole('button', { name: 'Show password' }).click();
  await expect(password).toHaveAttribute('type', 'text');
  await expect(page.getByRole('button', { name: 'Hide password' })).toHaveText('Hide');
  await page.getByRole('button', { name: 'Hide password' }).click();
  await expect(password).toHaveAttribute('type', 'password');
});

test('the login page links to registration and Notarize Now', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('link', { name: 'Register Here' })).toHaveAttribute('href', '/register/user');
  await expect(page.getByRole('link', { name: 'Notarize Now' })).toHaveAttribute('href', '/notarize');
});

test('reset mode validates both password fields', async ({ page }) => {
  await page.goto('/login?resetToken=not-a-real-token');
  await expect(page.getByLabel('New Password', { exact: true })).toBeVisible();
  await expect(page.getByLabel('Confirm New Password')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to login' })).toBeVisible();
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please fill out both password fields.');
  await page.getByLabel('New Password', { exact: true }).fill('abcdefgh');
  await page.getByLabel('Confirm New Password').fill('abcdefgX');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('alert')).toHaveText('Passwords do not match.');
  await page.getByLabel('Confirm New Password').fill('abcdefgh');
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByRole('alert')).toHaveText('This reset link is invalid or expired.');
});

test('a safe next path is followed after sign-in and an unsafe one is ignored', async ({ page }) => {
  const email = uniqueEmail('next');
  await registerSigner(page, 'Nell Next', email, 'next password');
  await page.evaluate(() => sessionStorage.clear());
  await logIn(page, email, 'next password', '?next=/help');
  await expect(page).toHaveURL(/\/help$/);
  await page.evaluate(() => sessionStorage.clear());
  await logIn(page, email, 'next password', '?next=//evil.example/steal');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
  await page.evaluate(() => sessionStorage.clear());
  await logIn(page, email, 'next password', '?next=/signing/abc');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});
