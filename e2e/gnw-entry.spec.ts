import { expect, test, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { findSeriousViolations, uniqueEmail, waitForMail } from './helpers.ts';
import { baseUrl, openRoute } from './role-pages.ts';

/**
 * The way into Notarize Now (decision 051): the landing, the gate and the code sign-in. A newcomer
 * chooses a PDF, asks to be notarized now, creates an account with a mailed code and arrives at the
 * wizard signed in; an account that needs its password is sent to the login page.
 */

const phone = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

/** The names of the files the landing kept in this browser (IndexedDB), read as the wizard will read them. */
function readKeptFileNames(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open('notarize-now', 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const read = open.result.transaction('seed-files', 'readonly').objectStore('seed-files').get('files');
          read.onsuccess = () => resolve(((read.result as { files?: File[] } | undefined)?.files ?? []).map((file) => file.name));
          read.onerror = () => reject(read.error);
        };
      }),
  );
}

async function readMailedCode(email: string): Promise<string> {
  const mail = await waitForMail(email, /Your Open RON code: \d{6}/);
  const code = /\b(\d{6})\b/.exec(mail.subject)?.[1];
  if (!code) throw new Error(`no code in "${mail.subject}"`);
  return code;
}

test('the login page’s Notarize Now link goes through the gate to the code sign-in, keeping the seed', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Notarize Now' }).click();
  await expect(page).toHaveURL(/\/gnw-login$/);
  await expect(page.getByRole('heading', { name: 'Continue to Notarize Now' })).toBeVisible();
  const seed = await page.evaluate(() => JSON.parse(localStorage.getItem('gnw_seed') ?? 'null') as { lane: string; createdAt: number } | null);
  expect(seed?.lane).toBe('instant');
  expect(Date.now() - (seed?.createdAt ?? 0)).toBeLessThan(60_000);
});

test('a newcomer chooses a PDF on /notarize-now, creates an account with a mailed code and arrives at /gnw/start signed in', async ({ page }) => {
  await page.goto('/notarize-now');
  await expect(page.getByRole('heading', { level: 1, name: 'Notarize Now' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'What you need' })).toBeVisible();
  await expect(page.getByText('A government photo ID')).toBeVisible();
  // A file that is not a PDF is refused with a sentence; the PDF is taken and listed.
  await page.getByLabel('Your PDF documents').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('not a pdf') });
  await expect(page.getByRole('alert')).toHaveText('photo.png is not a PDF.');
  await page.getByLabel('Your PDF documents').setInputFiles({ name: 'deed.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(1)) });
  await expect(page.getByRole('list', { name: 'Chosen documents' }).getByText('deed.pdf')).toBeVisible();
  await page.getByRole('button', { name: 'Get notarized now' }).click();

  await expect(page).toHaveURL(/\/gnw-login$/);
  expect(await readKeptFileNames(page)).toEqual(['deed.pdf']);
  expect(await page.evaluate(() => (JSON.parse(localStorage.getItem('gnw_seed') ?? '{}') as { lane?: string }).lane)).toBe('instant');

  const email = uniqueEmail('newcomer');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  // A new address: the name is asked for before anything is mailed.
  await expect(page.getByRole('status').filter({ hasText: 'There is no account for this address yet.' })).toBeVisible();
  await expect(page.getByLabel('Full name')).toBeFocused();
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await expect(page.getByText('Enter your full name.')).toBeVisible();
  await page.getByLabel('Full name').fill('Nina Newcomer');
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await expect(page.getByRole('status').filter({ hasText: `We emailed a 6-digit code to ${email}.` })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Send a new code in \d+ s$/ })).toBeDisabled();

  const code = await readMailedCode(email);
  await page.getByLabel('6-digit code').fill('123');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('Please enter a valid 6-digit code.')).toBeVisible();
  await page.getByLabel('6-digit code').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText('That code is not right. You have 4 tries left.');
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();

  // /gnw/start belongs to the wizard; this journey ends at its address, signed in as the new signer.
  await expect(page).toHaveURL(/\/gnw\/start$/);
  const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('user') ?? 'null') as { name?: string; email?: string; roles?: string[] } | null);
  expect(stored).toMatchObject({ name: 'Nina Newcomer', email, roles: ['signer'] });
  // Signed in, /gnw-login goes straight on to the wizard.
  await page.goto('/gnw-login');
  await expect(page).toHaveURL(/\/gnw\/start$/);
});

test('an account that needs its password is sent to the login page, coming back to the wizard', async ({ page, browser }) => {
  const email = uniqueEmail('company');
  const other = await browser.newContext();
  const created = await other.request.post('/api/auth/register/title-company', {
    headers: { origin: baseUrl() },
    data: { name: 'Tess Title', email, password: 'title password', companyName: 'Tess Title LLC' },
  });
  expect(created.status()).toBe(201);
  await other.close();

  await page.goto('/gnw-login');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('6-digit code').fill(await readMailedCode(email));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toContainText('Sign in with your password: this account is protected by more than an emailed code.');
  await page.getByRole('main').getByRole('link', { name: 'Sign in with your password' }).first().click();
  await expect(page).toHaveURL(/\/login\?next=%2Fgnw%2Fstart$/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('the landing and the code sign-in have no serious accessibility problem, on a desktop and at 390 px', async ({ browser }) => {
  for (const [label, options] of [
    ['desktop', { viewport: { width: 1280, height: 800 } }],
    ['390 px', phone],
  ] as const) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    for (const route of ['/notarize-now', '/gnw-login']) {
      await openRoute(page, route);
      expect.soft(await findSeriousViolations(page), `${route} (${label})`).toEqual([]);
      expect.soft(await page.evaluate(() => document.documentElement.scrollWidth), `${route} (${label}) width`).toBeLessThanOrEqual(options.viewport.width);
    }
    // The code step and the name step, as a person reaches them.
    const email = uniqueEmail('axe');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await expect(page.getByLabel('Full name')).toBeVisible();
    expect.soft(await findSeriousViolations(page), `/gnw-login name step (${label})`).toEqual([]);
    await page.getByLabel('Full name').fill('Axel Access');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await expect(page.getByLabel('6-digit code')).toBeFocused();
    expect.soft(await findSeriousViolations(page), `/gnw-login code step (${label})`).toEqual([]);
    expect
      .soft(await page.evaluate(() => document.documentElement.scrollWidth), `/gnw-login code step (${label}) width`)
      .toBeLessThanOrEqual(options.viewport.width);
    await context.close();
  }
});
