import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { makePng } from '../test/png-fixtures.ts';

export function readBootstrapUrl(): string {
  const port = process.env.E2E_PORT ?? '3210';
  const state = JSON.parse(fs.readFileSync(path.join(os.tmpdir(), `ron-e2e-${port}.json`), 'utf8')) as { bootstrapUrl: string };
  return state.bootstrapUrl;
}

let counter = 0;
export function uniqueEmail(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.test`;
}

export async function registerSigner(page: Page, name: string, email: string, password: string) {
  await page.goto('/register/user');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard\?tab=jobs/);
}

export async function logIn(page: Page, email: string, password: string, query = '') {
  await page.goto(`/login${query}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export interface CaughtMail {
  to: string[];
  subject: string;
  text: string;
}

/** Waits for a message to arrive at the SMTP server that e2e/start-server.mjs runs. */
export async function waitForMail(to: string, subjectPattern: RegExp, timeoutMs = 15_000): Promise<CaughtMail> {
  const port = process.env.E2E_PORT ?? '3210';
  const file = path.join(os.tmpdir(), `ron-e2e-${port}-mail.jsonl`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const mails = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as CaughtMail);
    const found = mails.reverse().find((mail) => mail.to.includes(to.toLowerCase()) && subjectPattern.test(mail.subject));
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail to ${to} matching ${subjectPattern} within ${timeoutMs} ms`);
}

export async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

/** An authenticator code of this secret, `offsetSteps` 30-second steps from now. */
export function totpCode(secret: string, offsetSteps = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/**
 * On /mfa/setup: links an authenticator app with a real code (which also completes the sign-in),
 * reads the backup codes shown once, and confirms they were saved.
 */
export async function linkAuthenticator(page: Page): Promise<{ secret: string; backupCodes: string[] }> {
  await expect(page).toHaveURL(/\/mfa\/setup$/);
  await page.getByRole('button', { name: /Authenticator app \(recommended\)/ }).click();
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  await page.getByLabel('6-digit code').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Verify and link' }).click();
  await expect(page.getByText('Authenticator linked!')).toBeVisible();
  const codes = page.getByRole('list', { name: 'Backup codes' }).locator('code');
  await expect(codes).toHaveCount(10);
  const backupCodes = await codes.allTextContents();
  await page.getByRole('button', { name: 'I have saved my backup codes' }).click();
  return { secret, backupCodes };
}

/**
 * A page signed in as the administrator. The first caller creates the account through the one-time
 * link the server printed and keeps its session (cookies and session storage) for later spec files
 * of the same run: signing in again would ask an administrator to set up a second factor.
 * `options` shape the browser context (a phone's viewport and touch, for instance).
 */
export async function openAdminPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const port = process.env.E2E_PORT ?? '3210';
  const file = path.join(os.tmpdir(), `ron-e2e-${port}-admin.json`);
  const state = JSON.parse(fs.readFileSync(path.join(os.tmpdir(), `ron-e2e-${port}.json`), 'utf8')) as { bootstrapUrl: string; dataDir: string };
  type Saved = { dataDir: string; storage: Awaited<ReturnType<BrowserContext['storageState']>>; session: Record<string, string> };
  const known = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Saved) : null;
  if (known && known.dataDir === state.dataDir) {
    const context = await browser.newContext({ ...options, storageState: known.storage });
    await context.addInitScript((entries: Record<string, string>) => {
      if (sessionStorage.getItem('e2e_seeded')) return;
      for (const [key, value] of Object.entries(entries)) sessionStorage.setItem(key, value);
      sessionStorage.setItem('e2e_seeded', '1');
    }, known.session);
    const admin = await context.newPage();
    await admin.goto('/dashboard?tab=jobs');
    await expect(admin.getByText('Welcome, Ada Admin')).toBeVisible();
    return admin;
  }
  const admin = await (await browser.newContext(options)).newPage();
  const password = 'admin password 1';
  await admin.goto(state.bootstrapUrl);
  await expect(admin.getByText('Create the first administrator account')).toBeVisible();
  await admin.getByLabel('Full name').fill('Ada Admin');
  await admin.getByLabel('Email').fill(uniqueEmail('admin'));
  await admin.getByLabel('Password', { exact: true }).fill(password);
  await admin.getByLabel('Confirm password').fill(password);
  await admin.getByRole('button', { name: 'Create account' }).click();
  // An administrator links a second factor before anything else.
  await linkAuthenticator(admin);
  await expect(admin.getByText('Welcome, Ada Admin')).toBeVisible();
  const saved: Saved = { dataDir: state.dataDir, storage: await admin.context().storageState(), session: await admin.evaluate(() => ({ ...sessionStorage })) };
  fs.writeFileSync(file, JSON.stringify(saved));
  return admin;
}

/** Registers a notary (pending approval) and links the authenticator a notary must have. */
export async function registerNotary(page: Page, name: string, email: string, password = 'notary password') {
  await page.goto('/register/notary');
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Commission state').selectOption('VA');
  await page.getByLabel('County').fill('Arlington');
  await page.getByLabel('Commission number').fill('VA-2468');
  await page.getByLabel('Commission expires on').fill('2031-05-31');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  // A notary links a second factor before anything else.
  await linkAuthenticator(page);
  await expect(page).toHaveURL(/\/dashboard/);
}

/**
 * The signed-in notary (page) completes what approval asks for (decision 027) through the API the
 * Profile tab uses: commission details, bond and E&O, the four documents, signature and initials.
 * The Profile tab itself is exercised where the journey is about it.
 */
export async function completeNotaryProfileByApi(page: Page) {
  // Cookie-authenticated writes must say they come from the app's own origin (the page may be blank yet).
  const pageOrigin = page.url().startsWith('http') ? new URL(page.url()).origin : null;
  const headers = { origin: pageOrigin ?? `http://localhost:${process.env.E2E_PORT ?? '3210'}` };
  const me = (await (await page.request.get('/api/auth/me')).json()) as { user: { name: string } };
  const put = await page.request.put('/api/notary/profile', {
    headers,
    data: {
      commissionedName: me.user.name,
      commissionStartsOn: '2023-06-01',
      bondAmountCents: 1_000_000,
      bondExpiresOn: '2031-05-31',
      eoAmountCents: 2_500_000,
      eoExpiresOn: '2031-05-31',
    },
  });
  expect(put.status(), await put.text()).toBe(200);
  const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
  const png = makePng(120, 120);
  for (const kind of ['commission_certificate', 'bond', 'eo_insurance', 'seal_image']) {
    const file =
      kind === 'seal_image' ? { name: 'seal.png', mimeType: 'image/png', buffer: png } : { name: `${kind}.pdf`, mimeType: 'application/pdf', buffer: pdf };
    const res = await page.request.post('/api/notary/profile/upload', { headers, multipart: { kind, file } });
    expect(res.status(), await res.text()).toBe(201);
  }
  const image = `data:image/png;base64,${makePng(300, 100, { color: [0, 51, 91] }).toString('base64')}`;
  for (const kind of ['signature', 'initials']) {
    const res = await page.request.post(kind === 'signature' ? '/api/signature' : '/api/initials', {
      headers,
      data: { imageDataUrl: image, method: 'draw', hasAgreedToSignElectronically: true },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
}

/** On the Approvals tab, the administrator approves a notary or title company by name and confirms in the dialog. */
export async function approveApplication(admin: Page, name: string) {
  await admin.goto('/dashboard?tab=approvals');
  await admin.getByRole('button', { name: `Approve ${name}` }).click();
  const dialog = admin.getByRole('dialog', { name: `Approve ${name}?` });
  await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
  await expect(admin.getByRole('status').filter({ hasText: `${name} was approved` })).toBeVisible();
  await expect(admin.getByRole('button', { name: `Approve ${name}` })).toHaveCount(0);
}

/** Registers a notary and has the administrator approve the account. */
export async function registerApprovedNotary(page: Page, admin: Page, name: string, email: string) {
  await registerNotary(page, name, email);
  await completeNotaryProfileByApi(page);
  await approveApplication(admin, name);
}

/**
 * On /signature or /initials (or in the adopt dialog): ticks the consent to sign electronically
 * when the form asks for it, which it does only before a first signature or initials is adopted.
 */
export async function agreeToSignElectronicallyIfAsked(scope: Page | Locator) {
  await expect(scope.getByRole('button', { name: /^(Save (signature|initials)|Adopt and sign)$/ })).toBeEnabled();
  const consent = scope.getByRole('checkbox', { name: /I agree to sign electronically/ });
  if ((await consent.count()) > 0) await consent.check();
}

/** Draws two strokes on the signature (or initials) pad of the page. */
export async function drawSignature(page: Page, kind: 'Signature' | 'Initials' = 'Signature') {
  const pad = page.getByRole('img', { name: new RegExp(`^${kind} drawing area`) });
  const box = await pad.boundingBox();
  if (!box) throw new Error('the drawing pad is not on screen');
  const strokes: Array<Array<[number, number]>> = [
    [
      [0.1, 0.6],
      [0.25, 0.3],
      [0.4, 0.7],
      [0.55, 0.35],
      [0.7, 0.6],
    ],
    [
      [0.2, 0.8],
      [0.8, 0.75],
    ],
  ];
  for (const stroke of strokes) {
    const [first, ...rest] = stroke;
    if (!first) continue;
    await page.mouse.move(box.x + first[0] * box.width, box.y + first[1] * box.height);
    await page.mouse.down();
    for (const [x, y] of rest) await page.mouse.move(box.x + x * box.width, box.y + y * box.height, { steps: 5 });
    await page.mouse.up();
  }
}

/** In the signing workspace: a point on a document page (fractions of the page), scrolled to the middle of the screen. */
export async function pointOnPage(page: Page, pageNumber: number, x: number, y: number) {
  const sheet = page.locator(`.pages .pdf-page[data-page="${pageNumber}"]`);
  await sheet.evaluate((element, fraction) => {
    const column = element.closest('.pages');
    if (!column) return;
    const box = element.getBoundingClientRect();
    const view = column.getBoundingClientRect();
    column.scrollTop += box.top + fraction * box.height - (view.top + view.height / 2);
  }, y);
  const box = await sheet.boundingBox();
  if (!box) throw new Error(`page ${pageNumber} is not on screen`);
  return { x: box.x + x * box.width, y: box.y + y * box.height };
}

/** In the signing workspace: chooses a field type in the palette, then clicks where its centre goes (fractions of the page). */
export async function placeFieldByClick(page: Page, label: string, pageNumber: number, x: number, y: number) {
  await page.getByRole('button', { name: label, exact: true }).click();
  const point = await pointOnPage(page, pageNumber, x, y);
  await page.mouse.click(point.x, point.y);
  await expect(page.getByRole('application')).toHaveCount(0);
}

const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * The serious and critical violations on the page in view, one line each, naming the elements.
 * Legacy mode runs axe.run in the page itself instead of opening a blank helper page for every check
 * (which doubled the time); it would skip cross-origin frames, and these pages have none.
 */
export async function findSeriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .withTags(wcagTags)
    .options({ resultTypes: ['violations'] })
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * The page as it is, then the same at 390 px, each without a serious accessibility problem or a
 * sideways scroll; with `screenshotPrefix` (npm run screenshots sets JOURNEY_SCREENSHOTS) each size is
 * photographed into docs/screenshots as `{prefix}-{where}[-phone].png`.
 */
export async function expectAccessibleBothWays(page: Page, where: string, screenshotPrefix: string | null = null) {
  const phone = { width: 390, height: 844 };
  const directory = process.env.JOURNEY_SCREENSHOTS && screenshotPrefix ? path.resolve('docs/screenshots') : null;
  const before = page.viewportSize() ?? { width: 1280, height: 720 };
  for (const size of [before, phone]) {
    await page.setViewportSize(size);
    if (directory) {
      const name = `${screenshotPrefix}-${where.replace(/^the /, '').replace(/\W+/g, '-')}${size === phone ? '-phone' : ''}.png`;
      await page.screenshot({ path: path.join(directory, name), animations: 'disabled', caret: 'hide' });
    }
    expect.soft(await findSeriousViolations(page), `${where} at ${size.width} px`).toEqual([]);
    expect.soft(await page.evaluate(() => document.documentElement.scrollWidth), `${where} at ${size.width} px: width`).toBeLessThanOrEqual(size.width);
  }
  await page.setViewportSize(before);
}

/** The two Notarize Now prices the journeys estimate $20.00 with, as finance would set them; returns their removal. */
export async function useJourneyPrices(admin: Page, keys: readonly [string, string]): Promise<() => Promise<void>> {
  await apiCallAs(admin, '/api/admin/pricing/defaults', { key: keys[0], label: 'Notarial act', amountCents: 500, unit: 'act', feeKind: 'notarial' });
  await apiCallAs(admin, '/api/admin/pricing/defaults', { key: keys[1], label: 'Online session', amountCents: 1500, unit: 'job', feeKind: 'platform' });
  return () => removeDefaultPrices(admin, keys);
}

/**
 * Takes default prices a journey added out of the list again, those its own steps did not already
 * remove: the defaults are shared by every later spec (a fee left here changes the caps the prices
 * journey is held to). A refusal fails where it happens.
 */
export async function removeDefaultPrices(admin: Page, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    const response = await admin.request.delete(`/api/admin/pricing/defaults/${key}`, { headers: { origin: new URL(admin.url()).origin } });
    if (!response.ok() && response.status() !== 404)
      throw new Error(`Removing the default price ${key} answered ${response.status()}: ${await response.text()}`);
  }
}

async function apiCallAs(page: Page, url: string, data: Record<string, unknown>) {
  const response = await page.request.post(url, { data, headers: { origin: new URL(page.url()).origin } });
  if (!response.ok()) throw new Error(`POST ${url} answered ${response.status()}: ${await response.text()}`);
}

/**
 * A page signed in as a new staff member (billing or finance): the administrator creates the
 * account, the person chooses a password from the mail's link, signs in and links the
 * authenticator their role must have, and lands on their dashboard.
 */
export async function openStaffPage(browser: Browser, admin: Page, name: string, role: 'billing' | 'finance'): Promise<Page> {
  const email = uniqueEmail(role);
  const origin = `http://localhost:${process.env.E2E_PORT ?? '3210'}`;
  const created = await admin.request.post('/api/admin/users', { headers: { origin }, data: { name, email, roles: [role] } });
  expect(created.status(), await created.text()).toBe(201);
  const mail = await waitForMail(email, /An Open RON account was created for you/);
  const link = mail.text.match(/https?:\/\/\S+resetToken=\S+/)?.[0] ?? '';
  const page = await (await browser.newContext()).newPage();
  await page.goto(link);
  const password = `${role} password 1`;
  await page.getByLabel('New Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm New Password').fill(password);
  await page.getByRole('button', { name: 'Update password' }).click();
  await expect(page.getByText('Password updated! You can now log in.')).toBeVisible();
  await logIn(page, email, password);
  await linkAuthenticator(page);
  await expect(page.getByText(`Welcome, ${name}`)).toBeVisible();
  return page;
}

const stripeJsStandIn = fs.readFileSync(path.join(import.meta.dirname, '..', 'test', 'stripe-js-stand-in.js'), 'utf8');

/**
 * Serves the Stripe.js stand-in (test/stripe-js-stand-in.js) to this context in place of
 * https://js.stripe.com/…: the journeys run offline, against the Stripe stand-in the server uses.
 */
export async function useStripeJsStandIn(context: BrowserContext): Promise<void> {
  await context.route(/^https:\/\/js\.stripe\.com\//, (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: stripeJsStandIn }));
}

/**
 * In the room: the notary clicks their signature field; with no saved signature, they adopt one by
 * typing their name in the room's dialog (agreeing to sign electronically the first time), never
 * leaving the call.
 */
export async function signAsNotaryInRoom(notary: Page, notaryName: string) {
  await notary.getByRole('group', { name: 'Notary signature for the notary' }).getByRole('button').first().click();
  const dialog = notary.getByRole('dialog', { name: /Adopt your signature/ });
  if (await dialog.isVisible()) {
    await dialog.getByRole('radio', { name: 'Type' }).check();
    await dialog.getByLabel('Type your full name').fill(notaryName);
    const consent = dialog.getByRole('checkbox', { name: /I agree to sign electronically/ });
    if (await consent.count()) await consent.check();
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
  }
}

/**
 * Adds PDFs through a job's "Add PDFs" zone, as a person chooses them, and waits for what they see
 * when it is over: each file in the documents list, or the page's refusal, which fails the step in
 * its own words. The page shows the upload's progress, then "Checking the PDFs…" while the server
 * reads them (a thread of its own, bounded at 60 s: pdf-check-pool.ts), so the wait is as long.
 */
export async function addPdfs(page: Page, files: Array<{ name: string; mimeType: string; buffer: Buffer }>): Promise<void> {
  const panel = page.getByRole('region', { name: 'Documents', exact: true });
  const listed = panel.getByRole('list', { name: 'Documents in signing order' }).getByRole('listitem');
  const before = await listed.count();
  await page.getByLabel('Add PDFs').setInputFiles(files);
  const refusal = panel.getByRole('alert');
  await expect(
    listed
      .nth(before + files.length - 1)
      .or(refusal)
      .first(),
  ).toBeVisible({ timeout: 70_000 });
  if (await refusal.isVisible()) throw new Error(`The upload was refused: ${await refusal.innerText()}`);
  await expect(listed).toHaveCount(before + files.length);
}

/**
 * From the jobs dashboard, as a person does: New Signing Request, a title and one signer, created.
 * The page is left on the dashboard, where the new job is listed and the notice offers to open it.
 */
export async function createJobFromDashboard(page: Page, job: { title: string; signerName: string; signerEmail: string }): Promise<void> {
  await page.goto('/dashboard?tab=jobs');
  await page.getByRole('button', { name: 'New Signing Request' }).click();
  const creation = page.getByRole('dialog', { name: 'New Signing Request' });
  await creation.getByLabel('Title').fill(job.title);
  await creation.getByLabel('Name 1').fill(job.signerName);
  await creation.getByLabel('Email 1').fill(job.signerEmail);
  await creation.getByRole('button', { name: 'Create signing request' }).click();
}
