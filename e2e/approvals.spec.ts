import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { findSeriousViolations, logIn, openAdminPage, registerNotary, uniqueEmail, waitForMail } from './helpers.ts';
import { createApprovedNotary, storeUserInPage } from './role-pages.ts';

test('an administrator rejects a notary with a reason on a phone; the notary is told by email and cannot sign in', async ({ browser }) => {
  const admin = await openAdminPage(browser);
  const notaryContext = await browser.newContext();
  try {
    const notary = await notaryContext.newPage();
    const email = uniqueEmail('rejected-notary');
    await registerNotary(notary, 'Rita Rejected', email);

    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.goto('/dashboard?tab=approvals');
    const reviews = admin.locator('section', { has: admin.getByRole('heading', { name: 'Notaries awaiting approval' }) });
    await reviews.getByRole('button', { name: 'Reject Rita Rejected' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Reject Rita Rejected?' });
    await expect(dialog).toContainText('This cannot be undone');
    const reason = dialog.getByLabel('Reason for the notary');
    await expect(reason).toBeFocused();

    // Confirming without a reason says what is missing, and nothing happens.
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    await expect(dialog.getByText('Enter the reason for turning down this application; it is sent to the applicant.')).toBeVisible();
    await expect(reason).toHaveAttribute('aria-invalid', 'true');

    // The dialog fits the phone, and its part of the page has no serious accessibility problem.
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    const scan = await new AxeBuilder({ page: admin }).include('dialog').analyze();
    expect(scan.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual(
      [],
    );

    await reason.fill('Your commission number VA-2468 is not in the Virginia register.');
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    await expect(dialog).toHaveCount(0);
    const notice = reviews.getByRole('status').filter({ hasText: 'Rita Rejected was not approved and was told by email, with your reason.' });
    await expect(notice).toBeVisible();
    await expect(reviews.getByRole('heading', { name: 'Rita Rejected' })).toHaveCount(0);

    const mail = await waitForMail(email, /notary application was not approved/);
    expect(mail.text).toContain('Reason: Your commission number VA-2468 is not in the Virginia register.');

    const signIn = await (await browser.newContext()).newPage();
    await logIn(signIn, email, 'notary password');
    await expect(signIn.getByText('Your notary application was not approved, so this account cannot sign in.', { exact: false })).toBeVisible();
    await expect(signIn).toHaveURL(/\/login/);
    await signIn.context().close();
  } finally {
    await notaryContext.close();
    await admin.context().close();
  }
});

test('an administrator finds an approved notary on a phone, deactivates them so they cannot go online, and activates them again', async ({ browser }) => {
  const admin = await openAdminPage(browser);
  const notaryContext = await browser.newContext();
  try {
    const notary = await notaryContext.newPage();
    const name = `Della Directory ${Date.now().toString(36)}`;
    await createApprovedNotary(notary, admin, name);
    await storeUserInPage(notary);

    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.goto('/dashboard?tab=approvals');
    const directory = admin.getByRole('region', { name: 'All notaries' });
    await directory.getByRole('searchbox', { name: 'Search' }).fill(name);
    const row = directory.getByRole('listitem').filter({ has: admin.getByRole('heading', { name }) });
    await expect(row).toHaveCount(1, { timeout: 10_000 });
    await row.getByRole('button', { name: `Open profile of ${name}` }).click();
    // Approved: the profile opens on its form, with no list of what approval needed.
    await expect(row.getByRole('form', { name: 'Commission' })).toBeVisible();
    await expect(row.getByRole('region', { name: 'Before approval' })).toHaveCount(0);

    await row.getByRole('button', { name: `Deactivate ${name}` }).click();
    const dialog = admin.getByRole('dialog', { name: `Deactivate ${name}?` });
    await dialog.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await expect(row.getByText('Approved, deactivated', { exact: true })).toBeVisible();
    expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await findSeriousViolations(admin)).toEqual([]);

    // The deactivated notary's switch does not stay on, and says why.
    await notary.goto('/dashboard?tab=jobs');
    const available = notary.getByRole('switch', { name: 'Available for notarizations' });
    await available.click();
    await expect(notary.getByText(/Failed to update availability/)).toBeVisible();
    await expect(notary.getByText(/An administrator deactivated your notary account/).first()).toBeVisible();
    await expect(available).toHaveAttribute('aria-checked', 'false');

    await row.getByRole('button', { name: `Activate ${name}` }).click();
    await admin
      .getByRole('dialog', { name: `Activate ${name}?` })
      .getByRole('button', { name: 'Activate', exact: true })
      .click();
    await expect(row.getByRole('button', { name: `Deactivate ${name}` })).toBeVisible();
    await available.click();
    await expect(available).toHaveAttribute('aria-checked', 'true');
    // Offline again before the page closes: an online notary counts for 90 s after their last
    // heartbeat, and would be offered the next spec's Notarize Now request first.
    await available.click();
    await expect(available).toHaveAttribute('aria-checked', 'false');
  } finally {
    await notaryContext.close();
    await admin.context().close();
  }
});
