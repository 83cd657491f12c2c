import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect as baseExpect, test, type Browser, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { giveDetails, sendLicencePhotos, takeSelfieAndAnswer } from './identity-steps.ts';
import {
  addPdfs,
  findSeriousViolations,
  openAdminPage,
  openStaffPage,
  placeFieldByClick,
  removeDefaultPrices,
  uniqueEmail,
  waitForMail,
  signAsNotaryInRoom,
} from './helpers.ts';
import { apiCall, apiGet, confirmEmail, createApprovedNotary, storeUserInPage } from './role-pages.ts';

/**
 * One notarial act: one acknowledgment, each person clicking only from the page they land on (no
 * typed address, no API call once the accounts exist). The title company creates and readies the
 * job; the signer accepts from the mail and proves identity from the job page's primary action; the
 * notary goes online, opens the room from the job page, admits, starts the notarization (and its
 * recording), confirms identity; both sign in the room without leaving it; the notary seals after a
 * question, ends the session and finishes the journal; every promised mail arrives. With
 * JOURNEY_SCREENSHOTS set (npm run screenshots), each step is written to docs/screenshots/act-*.png.
 */

/** Three browsers, a media hub and a recorder share two cores: every step gets 20 s rather than 5. */
const expect = baseExpect.configure({ timeout: 20_000 });

const jobTitle = 'Acknowledgment of a deed';
const signerName = 'Sam Signer';
const notaryName = 'Noor Notary';
const screenshots = process.env.JOURNEY_SCREENSHOTS ? path.resolve('docs/screenshots') : null;
const phone = { width: 390, height: 844 };

/** A step as its person sees it: on a desktop, then on a 390 px phone (written only for npm run screenshots). */
async function capture(page: Page, name: string, options: { phoneToo?: boolean } = {}) {
  if (!screenshots) return;
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(screenshots, `act-${name}.png`), animations: 'disabled', caret: 'hide' });
  if (!options.phoneToo) return;
  const desktop = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.setViewportSize(phone);
  try {
    await page.screenshot({ path: path.join(screenshots, `act-${name}-phone.png`), animations: 'disabled', caret: 'hide' });
  } finally {
    await page.setViewportSize(desktop);
  }
}

/** No serious or critical axe violation on this page now, on a desktop and on a 390 px phone. */
async function expectAccessibleBothWays(page: Page, where: string) {
  baseExpect(await findSeriousViolations(page), `${where}, desktop`).toEqual([]);
  const desktop = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.setViewportSize(phone);
  try {
    baseExpect(await findSeriousViolations(page), `${where}, phone`).toEqual([]);
    baseExpect(await page.evaluate(() => document.documentElement.scrollWidth), `${where} fits a phone`).toBeLessThanOrEqual(phone.width);
  } finally {
    await page.setViewportSize(desktop);
  }
}

test.describe.serial('one notarial act, clicked through by each person', () => {
  const contexts: Array<{ close(): Promise<void> }> = [];
  let browserOf: Browser;
  let title: Page;
  let notary: Page;
  let signer: Page;
  let signerEmail = '';
  let titleEmail = '';
  let notaryEmail = '';
  let admin: Page;
  let finance: Page;

  async function newPage() {
    const context = await browserOf.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      throw new Error(`A native ${dialog.type()} appeared: ${dialog.message()}`);
    });
    return page;
  }

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    browserOf = browser;
    // The accounts exist before the act: an approved notary and an approved title company (made
    // through the API, as their own journeys cover registering and approval). Each lands signed in.
    admin = await openAdminPage(browser);
    contexts.push(admin.context());
    notary = await newPage();
    await createApprovedNotary(notary, admin, notaryName);
    notaryEmail = (await apiGet<{ user: { email: string } }>(notary.request, '/api/auth/me')).user.email;
    await storeUserInPage(notary);
    await notary.goto('/dashboard');
    title = await newPage();
    titleEmail = uniqueEmail('act-title');
    await apiCall(title.request, 'post', '/api/auth/register/title-company', {
      data: { name: 'Tess Title', email: titleEmail, password: 'title password', companyName: 'Harbor Title LLC' },
    });
    await confirmEmail(title, titleEmail);
    const pending = await apiGet<{ items: Array<{ id: string; name: string }> }>(admin.request, '/api/title-companies/pending');
    const company = pending.items.find((item) => item.name === 'Harbor Title LLC');
    if (company) await apiCall(admin.request, 'post', `/api/title-companies/${company.id}/approve`);
    await storeUserInPage(title);
    // Each lands on their dashboard, as after signing in.
    await title.goto('/dashboard');
  });

  test.afterAll(async () => {
    // The last step removes the act's prices by clicking; when an earlier step failed it never ran.
    if (admin) await removeDefaultPrices(admin, ['act_notarization', 'platform_service']);
    for (const context of contexts) await context.close();
  });

  test('finance staff set the prices the act will be charged, from their sidebar', async () => {
    test.setTimeout(90_000);
    finance = await openStaffPage(browserOf, admin, 'Fern Finance', 'finance');
    contexts.push(finance.context());
    await finance.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Prices' }).click();
    await expect(finance.getByRole('heading', { name: 'Prices', level: 1 })).toBeVisible();
    for (const price of [
      { label: 'Act notarization', amount: '5', counted: 'per notarial act', kind: /^Notarial fee/ },
      { label: 'Platform service', amount: '12.50', counted: 'per job', kind: /^Platform fee/ },
    ]) {
      await finance.getByRole('button', { name: 'Add a price' }).click();
      const dialog = finance.getByRole('dialog', { name: 'Add a price to the defaults' });
      await dialog.getByLabel('Label').fill(price.label);
      await dialog.getByLabel('Amount in dollars').fill(price.amount);
      await dialog.getByLabel('Counted').selectOption({ label: price.counted });
      await dialog.getByRole('radio', { name: price.kind }).check();
      await dialog.getByRole('button', { name: 'Add price' }).click();
      await expect(finance.getByRole('table', { name: /^Default prices/ }).getByRole('row', { name: new RegExp(price.label) })).toBeVisible();
    }
  });

  test('the title company creates the job, places the fields and marks it ready', async () => {
    test.setTimeout(120_000);
    signerEmail = uniqueEmail('act-signer');
    await title.getByRole('button', { name: 'New Signing Request' }).click();
    const dialog = title.getByRole('dialog', { name: 'New Signing Request' });
    await dialog.getByLabel('Title').fill(jobTitle);
    await dialog.getByLabel('Notarization type').selectOption('acknowledgment');
    await dialog.getByLabel('Name 1').fill(signerName);
    await dialog.getByLabel('Email 1').fill(signerEmail);
    const picker = dialog.getByRole('combobox', { name: 'Notary (optional)' });
    await picker.fill('Noor');
    await dialog.getByRole('option').filter({ hasText: notaryName }).click();
    await dialog.getByRole('button', { name: 'Create signing request' }).click();
    await title.getByRole('link', { name: 'Open the new job' }).click();
    await expect(title.getByRole('heading', { name: jobTitle })).toBeVisible();
    await addPdfs(title, [{ name: 'deed.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Deed') }]);

    // The fields, placed in the workspace by clicking on the page.
    await title.getByRole('link', { name: 'Open signing workspace' }).click();
    await expect(title.getByRole('img', { name: 'deed.pdf, page 1' })).toBeVisible();
    await title.getByLabel('For').selectOption({ label: `${signerName} (signer)` });
    await placeFieldByClick(title, 'Signature', 1, 0.15, 0.45);
    await expect(title.getByRole('group', { name: `Signature for ${signerName}` })).toBeVisible();
    await placeFieldByClick(title, 'Notary signature', 1, 0.15, 0.7);
    await placeFieldByClick(title, 'Notary seal', 1, 0.65, 0.7);
    await expect(title.getByRole('group', { name: 'Notary seal for the notary' })).toBeVisible();
    await capture(title, 'title-fields');
    await title.getByRole('link', { name: '← Job' }).click();
    await title.getByRole('button', { name: 'Mark ready' }).click();
    await expect(title.getByText('The job is now ready.')).toBeVisible();
    await capture(title, 'title-ready', { phoneToo: true });

    // The notary is told by mail that the job was assigned to them, and again once it is ready: two
    // mails, each with a link to this job's page.
    const jobPage = `/jobs/detail?jobId=${new URL(title.url()).searchParams.get('jobId') ?? 'unknown'}`;
    const assigned = await waitForMail(notaryEmail, new RegExp(`^You were assigned "${jobTitle}"$`), 20_000);
    const ready = await waitForMail(notaryEmail, new RegExp(`^Ready for you: "${jobTitle}"$`), 20_000);
    for (const mail of [assigned, ready]) baseExpect(mail.text, mail.subject).toContain(jobPage);
  });

  test('the signer accepts from the mail and proves their identity from the job page’s primary action', async () => {
    test.setTimeout(180_000);
    const invitation = await waitForMail(signerEmail, new RegExp(`You are invited to sign "${jobTitle}"`));
    const link = invitation.text.match(/https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/)?.[0] ?? '';
    signer = await newPage();
    // The link in the mail is the signer's way in.
    await signer.goto(link);
    await signer.getByLabel('Full name').fill(signerName);
    await signer.getByLabel('Password', { exact: true }).fill('signer password');
    await signer.getByLabel('Confirm password').fill('signer password');
    await signer.getByRole('button', { name: 'Create account' }).click();
    await expect(signer.getByRole('heading', { name: jobTitle })).toBeVisible();
    const actions = signer.getByRole('group', { name: 'Actions on this job' });
    await expect(actions.locator('.button.primary')).toHaveText('Prove your identity');
    await capture(signer, 'signer-job', { phoneToo: true });
    await actions.getByRole('link', { name: 'Prove your identity' }).click();

    await giveDetails(signer);
    await sendLicencePhotos(signer);
    await takeSelfieAndAnswer(signer);
    // Done: the device check, and the page waits for the notary by itself.
    await expect(signer.getByRole('region', { name: 'Camera and microphone' })).toBeVisible({ timeout: 30_000 });
    await expect(signer.getByText('The notary has not opened the session yet.')).toBeVisible();
    await capture(signer, 'signer-waiting');
  });

  test('the notary goes online, opens the room from the job page, admits the signer and starts the notarization', async () => {
    test.setTimeout(150_000);
    await notary.getByRole('link', { name: 'Dashboard Home' }).click();
    await notary.reload();
    const available = notary.getByRole('switch', { name: 'Available for notarizations' });
    if ((await available.getAttribute('aria-checked')) !== 'true') await available.click();
    await expect(available).toHaveAttribute('aria-checked', 'true');
    await notary.getByRole('link', { name: `Review the job: ${jobTitle}` }).click();
    await expect(notary.getByRole('heading', { name: jobTitle })).toBeVisible();
    await expect(notary.getByRole('cell', { name: 'Ready for the notary to confirm' })).toBeVisible();
    const actions = notary.getByRole('group', { name: 'Actions on this job' });
    await expect(actions.locator('.button.primary')).toHaveText('Open the session room');
    await expect(actions.getByRole('button', { name: 'Notify notary' })).toHaveCount(0);
    await expect(notary.getByRole('link', { name: 'Watch the session recording' })).toHaveCount(0);
    await capture(notary, 'notary-job', { phoneToo: true });
    await actions.getByRole('link', { name: 'Open the session room' }).click();

    await notary.getByLabel(/I agree that this session is recorded/).check();
    await expect(notary.getByText('the notary may ask you to turn it on')).toHaveCount(0);
    await notary.getByRole('button', { name: 'Enter the room' }).click();
    await expect(notary.getByRole('region', { name: 'Video call' })).toBeVisible();

    // The signer's page saw the room open by itself; the signer enters and waits to be let in.
    const enter = signer.getByRole('button', { name: 'Enter the room' });
    await expect(enter).toBeEnabled({ timeout: 30_000 });
    await signer.getByLabel(/I agree that this session is recorded/).check();
    await enter.click();
    await expect(signer.getByText('The notary will let you in')).toBeVisible();
    const waiting = notary.getByRole('list', { name: 'Waiting to be let in' });
    await waiting.getByRole('button', { name: `Admit ${signerName}` }).click();
    await expect(signer.getByRole('region', { name: 'Video call' })).toBeVisible({ timeout: 30_000 });

    // One start: the act and its recording together.
    await expect(notary.getByRole('button', { name: 'Start recording' })).toHaveCount(0);
    await notary.getByRole('button', { name: 'Start the notarization' }).click();
    for (const page of [notary, signer]) await expect(page.getByRole('status').filter({ hasText: 'This session is being recorded' })).toBeVisible();
    await capture(notary, 'notary-room', { phoneToo: true });
    await capture(signer, 'signer-room', { phoneToo: true });
    await expectAccessibleBothWays(signer, 'the room, signer');
  });

  test('the notary confirms the signer’s identity beside the call', async () => {
    const review = notary.locator('details.identity-review');
    if (!(await review.evaluate((element) => (element as HTMLDetailsElement).open))) await review.locator('summary').click();
    await expect(review.getByRole('img').first()).toBeVisible();
    await review.getByLabel(`Your reason for ${signerName}`).fill('Face on camera matches the licence photo');
    await review.getByRole('button', { name: /^Confirm/ }).click();
    await expect(review.getByText(/confirmed/i).first()).toBeVisible();
    await expectAccessibleBothWays(notary, 'the room, notary');
  });

  test('both sign in the room through a dialog, without leaving the call', async () => {
    test.setTimeout(120_000);
    const navigations: string[] = [];
    signer.on('framenavigated', (frame) => {
      if (frame === signer.mainFrame()) navigations.push(frame.url());
    });
    const roomUrl = signer.url();
    await signer
      .getByRole('group', { name: `Signature for ${signerName}` })
      .getByRole('button', { name: 'Sign here' })
      .click();
    const dialog = signer.getByRole('dialog', { name: 'Adopt your signature' });
    await dialog.getByRole('radio', { name: 'Type' }).check();
    await dialog.getByLabel('Type your full name').fill(signerName);
    await dialog.getByRole('checkbox', { name: /I agree to sign electronically/ }).check();
    await capture(signer, 'signer-adopt-signature', { phoneToo: true });
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
    await expect(signer.getByRole('img', { name: `Signature for ${signerName}, signed` })).toBeVisible();
    await expect(notary.getByRole('img', { name: `Signature for ${signerName}, signed` })).toBeVisible();
    baseExpect(navigations).toEqual([]);
    baseExpect(signer.url()).toBe(roomUrl);

    await signAsNotaryInRoom(notary, notaryName);
    await expect(notary.getByRole('img', { name: /Notary signature for the notary, signed/ })).toBeVisible();
    await notary.getByRole('group', { name: 'Notary seal for the notary' }).getByRole('button', { name: 'Fill notary seal' }).click();
    await expect(notary.getByRole('img', { name: new RegExp(`Notary seal of ${notaryName}`) }).first()).toBeVisible();
    await expect(notary.getByText(/lost their connection/)).toHaveCount(0);
  });

  test('the notary completes the document and seals after a question, then ends the session', async () => {
    test.setTimeout(150_000);
    await notary.getByRole('button', { name: 'Complete this document' }).click();
    const complete = notary.getByRole('dialog', { name: /^Complete .*\?$/ });
    await expect(complete).toContainText(/cannot be undone|can no longer/);
    await complete.getByRole('button', { name: 'Complete the document' }).click();
    await expect(notary.getByText('deed.pdf is complete.')).toBeVisible();

    await notary.getByRole('button', { name: 'Seal and complete the job' }).click();
    const seal = notary.getByRole('dialog', { name: 'Seal and complete the job?' });
    await expect(seal).toContainText('cannot be undone');
    await capture(notary, 'notary-seal-question');
    await seal.getByRole('button', { name: 'Seal and sign' }).click();
    await expect(notary.getByText('The job is sealed and digitally signed.').first()).toBeVisible({ timeout: 90_000 });
    // Guided on: end the session, then the journal.
    const next = notary.getByRole('region', { name: 'What comes next' });
    await expect(next).toContainText('End the session');
    await capture(notary, 'notary-sealed');
    await notary.getByRole('button', { name: 'End the session' }).first().click();
    await notary.getByRole('dialog', { name: 'End the session for everyone?' }).getByRole('button', { name: 'End the session' }).click();
    for (const page of [notary, signer]) await expect(page.getByRole('heading', { name: 'The session has ended' })).toBeVisible({ timeout: 40_000 });
    await capture(signer, 'signer-complete', { phoneToo: true });
  });

  test('the recording shows nobody out of the call for longer than the policy allows, on the sealed certificate', async () => {
    await notary.getByRole('link', { name: 'Finish the journal entry' }).click();
    await expect(notary.getByRole('heading', { name: jobTitle })).toBeVisible();
    await expect(notary.getByRole('cell', { name: 'Confirmed by the notary' })).toBeVisible();
    await expect(notary.getByRole('button', { name: 'Bypass ID' })).toHaveCount(0);
    const downloading = notary.waitForEvent('download');
    await notary.getByRole('region', { name: 'Notarized documents' }).locator('a[download]').first().click();
    const file = (await (await downloading).path()) ?? '';
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-']);
    const text = stdout.replace(/\s+/g, ' ');
    baseExpect(text).toContain(signerName);
    baseExpect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    // The sealed record states each person's time out of the recorded call; the notary never left.
    baseExpect(text).toContain(`${notaryName} (notary): none longer than`);
    baseExpect(text).toContain(`${signerName} (signer):`);
  });

  test('the notary finishes the journal entry after a question, finds it in the journal, adds an addendum and keeps the journal as CSV, JSON and a signed PDF', async () => {
    test.setTimeout(90_000);
    const drafts = notary.getByRole('region', { name: 'Journal entries to finish' });
    await expect(drafts).toBeVisible();
    await drafts.getByLabel(`Address of ${signerName}`).fill('1208 Maple Avenue, Richmond, VA 23220');
    await drafts.getByLabel('Fee charged (dollars)').fill('25');
    await drafts.getByRole('button', { name: 'Finalize in my journal' }).click();
    const question = notary.getByRole('dialog', { name: 'Finalize this journal entry?' });
    await expect(question.getByText(/This cannot be undone/)).toBeVisible();
    await question.getByRole('button', { name: 'Finalize', exact: true }).click();
    await expect(drafts.getByText(/The entry is in your journal now/)).toBeVisible();
    await expect(notary.getByText('They can no longer change')).toHaveCount(0);
    await capture(notary, 'notary-journal-finalized', { phoneToo: true });

    await notary.getByRole('link', { name: 'Dashboard Home' }).click();
    await notary.getByRole('navigation', { name: 'Dashboard sections' }).getByRole('button', { name: 'Journal' }).click();
    const entry = notary.locator('details', { hasText: signerName });
    await expect(entry).toBeVisible();
    await entry.locator('summary').click();
    await expect(entry.getByText('$25.00')).toBeVisible();
    // People read dates and names: no ISO timestamp, no drivers_license.
    await expect(entry).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    await expect(entry).not.toContainText('drivers_license');
    baseExpect(await findSeriousViolations(notary)).toEqual([]);
    await capture(notary, 'notary-journal', { phoneToo: true });
    const downloading = notary.waitForEvent('download');
    await notary.getByRole('link', { name: 'Download as CSV' }).click();
    const csv = fs.readFileSync((await (await downloading).path()) ?? '', 'utf8');
    baseExpect(csv).toContain(signerName);
    baseExpect(csv).toContain('"1208 Maple Avenue, Richmond, VA 23220"');
    baseExpect(csv).not.toContain('drivers_license');

    // A correction is an addendum: the entry itself stays as it was.
    await entry.getByLabel('Add an addendum').fill('The signer also showed a utility bill with the same address.');
    await entry.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(entry.getByText('The signer also showed a utility bill with the same address.')).toBeVisible();

    // The journal the notary keeps when they leave: JSON with the addendum, and a signed PDF.
    const jsonDownload = notary.waitForEvent('download');
    await notary.getByRole('link', { name: 'Download as JSON' }).click();
    const jsonText = fs.readFileSync((await (await jsonDownload).path()) ?? '', 'utf8');
    baseExpect(jsonText).toContain('The signer also showed a utility bill with the same address.');
    const pdfDownload = notary.waitForEvent('download');
    await notary.getByRole('link', { name: 'Download signed PDF' }).click();
    const pdfPath = (await (await pdfDownload).path()) ?? '';
    baseExpect(fs.readFileSync(pdfPath).includes('/ByteRange')).toBe(true);
    const { stdout: pdfText } = await promisify(execFile)('pdftotext', ['-layout', pdfPath, '-']);
    baseExpect(pdfText.replace(/\s+/g, '')).toContain(createHash('sha256').update(jsonText).digest('hex'));
  });

  test('every promised mail arrives, each with a link to the right page', async () => {
    const signerMail = await waitForMail(signerEmail, new RegExp(jobTitle), 20_000).then(async (first) =>
      /complet|notarized|sealed/i.test(first.subject) ? first : waitForMail(signerEmail, /complet|notarized|sealed/i, 20_000),
    );
    baseExpect(signerMail.text).toMatch(/\/jobs\/detail\?jobId=/);
    const titleMail = await waitForMail(titleEmail, /complet|notarized|sealed/i, 20_000);
    baseExpect(titleMail.text).toMatch(/\/jobs\/detail\?jobId=/);
    // The signer's completion page named the address it was sent to.
    if (screenshots) fs.mkdirSync(screenshots, { recursive: true });
  });

  test('billing finds the act’s charges on the company’s draft, issues it and keeps the PDF; finance records the payment; the company sees it paid', async () => {
    test.setTimeout(150_000);
    const billing = await openStaffPage(browserOf, admin, 'Bill Billing', 'billing');
    contexts.push(billing.context());
    // The dashboard says what waits and leads there.
    const home = billing.getByRole('region', { name: 'Invoices' });
    await expect(home).toContainText(/ready to issue/);
    await home.getByRole('link', { name: 'Open the pending invoices' }).click();
    await expect(billing.getByRole('heading', { name: 'Pending invoices', level: 1 })).toBeVisible();
    await billing.getByRole('button', { name: 'Show the drafts' }).click();
    const row = billing.getByRole('row', { name: /Harbor Title LLC/ });
    await row.getByRole('button', { name: /^Open/ }).click();
    const invoice = billing.getByRole('dialog', { name: /Harbor Title LLC$/ });
    // One act at $5.00 (the notarial fee), the platform's $12.50 apart: $17.50.
    await expect(invoice.getByRole('region', { name: `Charges of ${jobTitle}` })).toContainText('Act notarization: 1 × $5.00 per notarial act');
    await expect(invoice.getByRole('region', { name: `Charges of ${jobTitle}` })).toContainText('Platform service: 1 × $12.50 per job');
    await expect(invoice.getByRole('definition').last()).toHaveText('$17.50');
    await capture(billing, 'billing-draft', { phoneToo: true });
    baseExpect(await findSeriousViolations(billing)).toEqual([]);
    await invoice.getByRole('button', { name: 'Issue the invoice' }).click();
    await billing.getByRole('dialog', { name: 'Issue the invoice of $17.50 to Harbor Title LLC?' }).getByRole('button', { name: 'Issue the invoice' }).click();
    await expect(invoice.getByText(/^Invoice \d{4}-\d{6} is issued to Harbor Title LLC, due /)).toBeVisible();
    const downloading = billing.waitForEvent('download');
    await invoice.getByRole('link', { name: 'Download the PDF' }).click();
    const file = (await (await downloading).path()) ?? '';
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-']);
    for (const expected of ['Harbor Title LLC', jobTitle, '$17.50', 'Status: Issued']) baseExpect(stdout).toContain(expected);
    // Billing issues; only finance records the payment.
    await expect(invoice.getByRole('button', { name: 'Mark as paid' })).toHaveCount(0);

    await finance.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Invoices' }).click();
    await finance
      .getByRole('row', { name: /Harbor Title LLC/ })
      .getByRole('button', { name: /^Open/ })
      .click();
    const toPay = finance.getByRole('dialog', { name: /Harbor Title LLC$/ });
    await toPay.getByRole('button', { name: 'Mark as paid' }).click();
    const question = finance.getByRole('dialog', { name: /^Record the payment of \$17\.50/ });
    await question.getByLabel('Payment reference').fill('Check 1042');
    await question.getByRole('button', { name: 'Mark as paid' }).click();
    await expect(toPay.getByText(/is paid\. It is listed under Paid\.$/)).toBeVisible();

    await title.goto('/dashboard');
    await title.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Invoices' }).click();
    await expect(title.getByRole('heading', { name: 'Billing of Harbor Title LLC' })).toBeVisible();
    await expect(title.getByRole('row', { name: /\d{4}-\d{6}/ })).toContainText('Paid');
    await capture(title, 'title-invoices', { phoneToo: true });
    baseExpect(await findSeriousViolations(title)).toEqual([]);
    // The job page says how it is paid: a title company's job goes on its invoice, cards or not.
    await title.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Dashboard Home' }).click();
    await title.getByRole('link', { name: jobTitle }).first().click();
    await expect(title.getByRole('region', { name: 'Charges' })).toContainText('$17.50');
    await expect(title.getByRole('region', { name: 'Payment' })).toContainText(/go(es)? on (its|the) title company’s invoice/);

    // The prices were this act's: finance removes them again, after a question each.
    await finance.keyboard.press('Escape');
    await finance.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Prices' }).click();
    for (const label of ['Act notarization', 'Platform service']) {
      await finance.getByRole('button', { name: `Remove ${label}` }).click();
      await finance
        .getByRole('dialog', { name: `Remove “${label}” from the default prices?` })
        .getByRole('button', { name: 'Remove price' })
        .click();
      await expect(finance.getByRole('row', { name: new RegExp(label) })).toHaveCount(0);
    }
  });
});
