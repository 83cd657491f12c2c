import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { offerSeconds } from '../src/shared/gnw.ts';
import { makePdf } from '../test/pdf-fixtures.ts';
import {
  expectAccessibleBothWays as checkBothWays,
  openAdminPage,
  useJourneyPrices,
  placeFieldByClick,
  uniqueEmail,
  useStripeJsStandIn,
  waitForMail,
  signAsNotaryInRoom,
} from './helpers.ts';
import { giveDetails, samSigner, sendLicencePhotos, takeSelfieAndAnswer } from './identity-steps.ts';
import { createApprovedNotary, storeUserInPage } from './role-pages.ts';

/**
 * Notarize Now end to end (decision 051), each person clicking from the page they land on:
 * a newcomer chooses a PDF on /notarize-now, creates an account with a mailed code, says what they
 * need, sees the estimate and holds it on a card (the Stripe stand-ins: test/stripe-stand-in.ts on the
 * server's side, test/stripe-js-stand-in.js in the browser); a notary online in another browser
 * accepts from the ring; the identity step, the recorded session and the seal happen; the person
 * comes back from the session's end to their request, is charged once and downloads the sealed PDF.
 */

const notaryName = 'Nadia Nowak';
const priceKeys = ['gnw_act', 'gnw_platform'] as const;

test.describe.serial('Notarize Now, from the landing to the notarized PDF', () => {
  const contexts: Array<{ close(): Promise<void> }> = [];
  let browserOf: Browser;
  let admin: Page;
  let notary: Page;
  let person: Page;
  let removePrices: (() => Promise<void>) | null = null;
  const email = uniqueEmail('gnw-person');

  async function newPage() {
    const context = await browserOf.newContext();
    contexts.push(context);
    await useStripeJsStandIn(context);
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      throw new Error(`A native ${dialog.type()} appeared: ${dialog.message()}`);
    });
    return page;
  }

  const expectAccessibleBothWays = (page: Page, where: string) => checkBothWays(page, where, 'gnw');

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(150_000);
    browserOf = browser;
    admin = await openAdminPage(browser);
    contexts.push(admin.context());
    // The platform's prices, as finance sets them (their own journey clicks through the Prices page).
    removePrices = await useJourneyPrices(admin, priceKeys);
    notary = await newPage();
    await createApprovedNotary(notary, admin, notaryName);
    await storeUserInPage(notary);
    await notary.goto('/dashboard');
  });

  test.afterAll(async () => {
    await removePrices?.();
    for (const context of contexts) await context.close();
  });

  test('the notary goes online from their dashboard', async () => {
    const available = notary.getByRole('switch', { name: 'Available for notarizations' });
    await expect(available).toBeVisible({ timeout: 30_000 });
    if ((await available.getAttribute('aria-checked')) !== 'true') await available.click();
    await expect(available).toHaveAttribute('aria-checked', 'true');
  });

  test('a newcomer chooses a PDF, creates an account with a mailed code, says what they need and sees the estimate', async () => {
    test.setTimeout(120_000);
    person = await newPage();
    await person.goto('/notarize-now');
    await person
      .getByLabel('Your PDF documents')
      .setInputFiles({ name: 'affidavit.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(1, 'Affidavit')) });
    await person.getByRole('button', { name: 'Get notarized now' }).click();
    await person.getByLabel('Email').fill(email);
    await person.getByRole('button', { name: 'Email me a code' }).click();
    await person.getByLabel('Full name').fill(samSigner.legalName);
    await person.getByRole('button', { name: 'Email me a code' }).click();
    const mail = await waitForMail(email, /Your Open RON code: \d{6}/);
    await person.getByLabel('6-digit code').fill(/\b(\d{6})\b/.exec(mail.subject)?.[1] ?? '');
    await person.getByRole('button', { name: 'Continue' }).click();

    // The wizard made the job and brought the chosen PDF along.
    await expect(person.getByRole('heading', { name: 'Your documents' })).toBeVisible({ timeout: 30_000 });
    await expect(person.getByText('affidavit.pdf').first()).toBeVisible();
    await person.getByRole('button', { name: 'Next: what you need' }).click();

    await person.getByRole('radio', { name: /^Acknowledgment/ }).check();
    await person.getByLabel('The state you are in').selectOption({ label: 'Virginia' });
    const estimate = person.getByRole('region', { name: 'Estimate' });
    await expect(estimate).toContainText('Notarial act');
    await expect(estimate).toContainText('Online session');
    await expect(estimate).toContainText('$20.00');
    await expectAccessibleBothWays(person, 'the needs step');
    await person.getByRole('button', { name: 'Next: payment' }).click();
  });

  test('the person holds the estimate on a card: a declined card says so, another one holds', async () => {
    test.setTimeout(90_000);
    const card = person.getByRole('textbox', { name: 'Card number' });
    await card.fill('4000 0000 0000 0002');
    await person.getByRole('button', { name: 'Hold $20.00 on this card' }).click();
    await expect(
      person
        .getByRole('alert')
        .filter({ hasText: /declined/i })
        .first(),
    ).toBeVisible();
    await card.fill('4242 4242 4242 4242');
    await person.getByRole('button', { name: 'Hold $20.00 on this card' }).click();
    // Held: the wizard goes on to the notary by itself, saying what is held.
    await expect(person.getByRole('heading', { name: 'Your notary' })).toBeVisible();
    await expect(person.getByText(/\$20\.00 is held on your card/)).toBeVisible();
    await expectAccessibleBothWays(person, 'the notary step');
  });

  test('the notary online is rung, accepts, and goes to the session; the person sees who accepted', async () => {
    test.setTimeout(150_000);
    await person.getByRole('button', { name: /Connect me with a notary now/ }).click();
    const ring = notary.getByRole('alertdialog');
    // Offers go out one notary at a time: another notary still counted online (up to 90 s after their
    // last heartbeat) may be rung first, for up to 30 s, before this one is.
    await expect(ring).toBeVisible({ timeout: (offerSeconds + 30) * 1000 });
    await expect(ring).toContainText('Acknowledgment');
    await expect(ring).toContainText('Virginia');
    await expect(ring.getByRole('timer')).toBeVisible();
    await ring.getByRole('button', { name: 'Accept' }).click();
    await expect(notary).toHaveURL(/\/session\//, { timeout: 30_000 });
    await expect(person.getByRole('heading', { name: `${notaryName} accepted` })).toBeVisible({ timeout: 30_000 });
    await expectAccessibleBothWays(person, 'the matched step');
  });

  test('the person proves their identity, and both meet in the recorded session', async () => {
    test.setTimeout(240_000);
    await person.getByRole('link', { name: 'Prove your identity' }).click();
    await giveDetails(person);
    await sendLicencePhotos(person);
    await takeSelfieAndAnswer(person);
    await expect(person.getByRole('region', { name: 'Camera and microphone' })).toBeVisible({ timeout: 30_000 });

    await notary.getByLabel(/I agree that this session is recorded/).check();
    await notary.getByRole('button', { name: 'Enter the room' }).click();
    await expect(notary.getByRole('region', { name: 'Video call' })).toBeVisible({ timeout: 30_000 });
    const enter = person.getByRole('button', { name: 'Enter the room' });
    await expect(enter).toBeEnabled({ timeout: 30_000 });
    await person.getByLabel(/I agree that this session is recorded/).check();
    await enter.click();
    await notary
      .getByRole('list', { name: 'Waiting to be let in' })
      .getByRole('button', { name: `Admit ${samSigner.legalName}` })
      .click();
    await expect(person.getByRole('region', { name: 'Video call' })).toBeVisible({ timeout: 30_000 });
    await notary.getByRole('button', { name: 'Start the notarization' }).click();
    for (const page of [notary, person]) {
      await expect(page.getByRole('status').filter({ hasText: 'This session is being recorded' })).toBeVisible({ timeout: 30_000 });
    }

    const review = notary.locator('details.identity-review');
    if (!(await review.evaluate((element) => (element as HTMLDetailsElement).open))) await review.locator('summary').click();
    await review.getByLabel(`Your reason for ${samSigner.legalName}`).fill('Face on camera matches the licence photo');
    await review.getByRole('button', { name: /^Confirm/ }).click();
    await expect(review.getByText(/confirmed/i).first()).toBeVisible({ timeout: 30_000 });
  });

  test('the notary places the fields in the room, both sign, and the notary seals and ends the session', async () => {
    test.setTimeout(240_000);
    await expect(notary.getByRole('img', { name: 'affidavit.pdf, page 1' })).toBeVisible({ timeout: 30_000 });
    await notary.getByLabel('For', { exact: true }).selectOption({ label: `${samSigner.legalName} (signer)` });
    await placeFieldByClick(notary, 'Signature', 1, 0.15, 0.45);
    await placeFieldByClick(notary, 'Notary signature', 1, 0.15, 0.7);
    await placeFieldByClick(notary, 'Notary seal', 1, 0.65, 0.7);

    await person
      .getByRole('group', { name: `Signature for ${samSigner.legalName}` })
      .getByRole('button', { name: 'Sign here' })
      .click();
    const dialog = person.getByRole('dialog', { name: 'Adopt your signature' });
    await dialog.getByRole('radio', { name: 'Type' }).check();
    await dialog.getByLabel('Type your full name').fill(samSigner.legalName);
    await dialog.getByRole('checkbox', { name: /I agree to sign electronically/ }).check();
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
    await expect(notary.getByRole('img', { name: `Signature for ${samSigner.legalName}, signed` })).toBeVisible({ timeout: 30_000 });

    await signAsNotaryInRoom(notary, notaryName);
    await expect(notary.getByRole('img', { name: /Notary signature for the notary, signed/ })).toBeVisible({ timeout: 30_000 });
    await notary.getByRole('group', { name: 'Notary seal for the notary' }).getByRole('button', { name: 'Fill notary seal' }).click();

    await notary.getByRole('button', { name: 'Complete this document' }).click();
    await notary
      .getByRole('dialog', { name: /^Complete .*\?$/ })
      .getByRole('button', { name: 'Complete the document' })
      .click();
    await expect(notary.getByText('affidavit.pdf is complete.')).toBeVisible({ timeout: 30_000 });
    await notary.getByRole('button', { name: 'Seal and complete the job' }).click();
    await notary.getByRole('dialog', { name: 'Seal and complete the job?' }).getByRole('button', { name: 'Seal and sign' }).click();
    await expect(notary.getByText('The job is sealed and digitally signed.').first()).toBeVisible({ timeout: 90_000 });
    await notary.getByRole('button', { name: 'End the session' }).first().click();
    await notary.getByRole('dialog', { name: 'End the session for everyone?' }).getByRole('button', { name: 'End the session' }).click();
    for (const page of [notary, person]) await expect(page.getByRole('heading', { name: 'The session has ended' })).toBeVisible({ timeout: 40_000 });
  });

  test('the person goes from the session’s end to their request, is charged once and downloads the sealed PDF', async () => {
    test.setTimeout(120_000);
    await person.getByRole('link', { name: 'Get your notarized documents' }).click();
    await expect(person.getByRole('status').filter({ hasText: /^Your notarization is complete\. \$20\.00 was charged to your card\./ })).toBeVisible({
      timeout: 30_000,
    });
    const downloading = person.waitForEvent('download');
    await person.getByRole('link', { name: /^Download affidavit/ }).click();
    const file = (await (await downloading).path()) ?? '';
    const { stdout } = await promisify(execFile)('pdfsig', [file]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    expect(stdout).toContain('Signature #1');
    await expectAccessibleBothWays(person, 'the done step');

    // Coming back (another visit, a reload) settles nothing again: the same single charge is reported.
    await person.reload();
    await expect(person.getByRole('status').filter({ hasText: /^Your notarization is complete\. \$20\.00 was charged to your card\./ })).toBeVisible({
      timeout: 30_000,
    });
    const payment = await person.request.get(`/api/gnw/jobs/${new URL(person.url()).searchParams.get('jobId')}`);
    const job = (await payment.json()) as { payment: { status: string; capturedCents: number | null } | null };
    expect(job.payment).toMatchObject({ status: 'captured', capturedCents: 2000 });
  });
});
