import zlib from 'node:zlib';
import { expect, test } from '@playwright/test';
import { registerSigner, uniqueEmail } from './helpers.ts';

test('unknown routes and / go to /login when signed out and to the dashboard when signed in', async ({ page }) => {
  await page.goto('/no/such/page');
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
  await registerSigner(page, 'Una Known', uniqueEmail('unknown'), 'password 123');
  await page.goto('/no/such/page');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
  await page.goto('/dashboard/admin');
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
});

test('an unparseable stored user counts as signed out', async ({ page }) => {
  await page.goto('/login');
  await page.evaluate(() => sessionStorage.setItem('user', '{not json'));
  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
});

test('the route error screen appears when the dashboard fails to load and Try Again recovers', async ({ page }) => {
  await registerSigner(page, 'Erin Error', uniqueEmail('error'), 'password 123');
  await page.goto('/help');
  let isBlocked = true;
  await page.route(/\/assets\/dashboard-[^/]+\.js$/, (route) => (isBlocked ? route.abort() : route.continue()));
  await page.getByRole('link', { name: 'Dashboard Home' }).click();
  await expect(page.getByRole('heading', { name: 'Something went wrong' })).toBeVisible();
  await expect(page.getByText('An error occurred while loading Dashboard')).toBeVisible();
  await expect(page.getByText('Stack trace')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Go Back' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Go to Dashboard' })).toBeVisible();
  isBlocked = false;
  await page.getByRole('button', { name: 'Try Again' }).click();
  await expect(page.getByText('Viewing: Jobs')).toBeVisible();
});

test('/setup shows its values and sends a signed-out person to /login', async ({ page }) => {
  await page.goto('/setup?jobId=job-42&start=video');
  await expect(page).toHaveURL(/\/login\?next=/);
});

test('/gnw leads a signed-out person through /gnw/start to the code sign-in of Notarize Now', async ({ page }) => {
  await page.goto('/gnw');
  await expect(page).toHaveURL(/\/gnw-login$/);
  await expect(page.getByRole('heading', { name: 'Continue to Notarize Now' })).toBeVisible();
});

test('the chat opener says in the page when no chat widget is configured, never in a native alert', async ({ page }) => {
  await page.goto('/login');
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.getByRole('button', { name: 'Chat with us' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Chat is loading, please try again in a moment.' })).toBeVisible();
  expect(dialogs).toEqual([]);
});

test('a chat notice from a click while the page still loads stays when the page puts its own opener in place', async ({ page }) => {
  // The login page's code arrives late; meanwhile the site footer's opener is the one on screen.
  let releaseLogin: () => void = () => {};
  const loginHeld = new Promise<void>((resolve) => (releaseLogin = resolve));
  await page.route(/\/assets\/login-[^/]*\.js$/, async (route) => {
    await loginHeld;
    await route.continue();
  });
  await page.goto('/login', { waitUntil: 'commit' });
  await page.getByRole('button', { name: 'Chat with us' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Chat is loading, please try again in a moment.' })).toBeVisible();
  releaseLogin();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Chat is loading, please try again in a moment.' })).toBeVisible();
});

test('a changed build id clears storage on start-up', async ({ page }) => {
  await registerSigner(page, 'Bea Build', uniqueEmail('build'), 'password 123');
  await page.evaluate(() => sessionStorage.setItem('app_build_id', 'an-older-build'));
  await page.goto('/help');
  await expect(page).toHaveURL(/\/help$/);
  await expect.poll(() => page.evaluate(() => sessionStorage.getItem('user'))).toBeNull();
  expect(await page.evaluate(() => sessionStorage.getItem('app_build_id'))).not.toBe('an-older-build');
});

test('the login page first load stays under 150 KB of gzipped JavaScript', async ({ page }) => {
  const scripts: Buffer[] = [];
  page.on('response', async (response) => {
    if (response.url().endsWith('.js')) scripts.push(await response.body());
  });
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  const gzippedBytes = scripts.reduce((sum, body) => sum + zlib.gzipSync(body, { level: 9 }).length, 0);
  console.log(`login first load: ${scripts.length} scripts, ${(gzippedBytes / 1024).toFixed(1)} KB gzipped`);
  expect(gzippedBytes).toBeLessThan(150 * 1024);
});
