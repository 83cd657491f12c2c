import { expect, test, type Locator, type Page } from '@playwright/test';
import { findSeriousViolations, openAdminPage, openStaffPage } from './helpers.ts';

/** Confirms the in-app question of that name with its button, and waits for it to close. */
async function answer(page: Page, question: string, button: string) {
  const dialog = page.getByRole('dialog', { name: question });
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await expect(dialog).toHaveCount(0);
}

/** The account's history, as the open panel shows it, holds this sentence. */
async function expectHistory(history: Locator, sentence: string) {
  await expect(history.getByRole('listitem').filter({ hasText: sentence })).toHaveCount(1);
}

test('an administrator finds a person from the sidebar, gives and takes a role and deactivates them after a question, reads it in the history, and reactivates them on a phone', async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const admin = await openAdminPage(browser);
  const name = `Uma Managed ${Date.now().toString(36)}`;
  // The person is signed in elsewhere (billing staff, with their second factor) while the administrator works.
  const person = await openStaffPage(browser, admin, name, 'billing');

  await admin.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Users' }).click();
  await expect(admin.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
  await admin.getByRole('search', { name: 'Find accounts' }).getByRole('searchbox', { name: 'Search' }).fill(name);
  const row = admin
    .getByRole('list', { name: 'Accounts' })
    .getByRole('listitem')
    .filter({ has: admin.getByRole('heading', { name, level: 3 }) });
  await expect(row).toHaveCount(1);
  await expect(admin.getByRole('list', { name: 'Accounts' }).getByRole('heading', { level: 3 })).toHaveCount(1);
  await row.getByRole('button', { name: `Manage ${name}` }).click();
  const history = row.getByRole('region', { name: 'History of this account' });
  // Its history opens with the account's creation by the administrator.
  await expect(history.getByRole('listitem').first()).toBeVisible();
  expect(await findSeriousViolations(admin)).toEqual([]);

  // A role is given after a question, then taken away after another; a question answered "Not now" changes nothing.
  await row.getByLabel('Give another role').selectOption({ label: 'Observer' });
  await row.getByRole('button', { name: 'Give role', exact: true }).click();
  await answer(admin, `Give ${name} the Observer role?`, 'Give role');
  await expect(row.getByRole('status').filter({ hasText: `${name} now has the observer role.` })).toBeVisible();
  const removeObserver = row.getByRole('button', { name: `Remove the Observer role from ${name}` });
  await expect(removeObserver).toBeVisible();
  await expectHistory(history, `Ada Admin gave ${name} the observer role.`);

  await removeObserver.click();
  await answer(admin, `Take the Observer role from ${name}?`, 'Not now');
  await expect(removeObserver).toBeFocused();
  await removeObserver.click();
  await answer(admin, `Take the Observer role from ${name}?`, 'Remove role');
  await expect(row.getByRole('status').filter({ hasText: `${name} no longer has the observer role.` })).toBeVisible();
  await expect(removeObserver).toHaveCount(0);
  await expect(row.getByRole('button', { name: `Remove the Billing role from ${name}` })).toBeVisible();
  await expectHistory(history, `Ada Admin took the observer role from ${name}.`);

  // Deactivated after a question: their open tab is signed out at once, the row says so, the history tells it.
  await row.getByRole('button', { name: `Deactivate ${name}` }).click();
  await answer(admin, `Deactivate ${name}?`, 'Deactivate');
  await expect(row.getByRole('status').filter({ hasText: `${name}’s account is deactivated` })).toBeVisible();
  await expect(row.getByRole('button', { name: `Reactivate ${name}` })).toBeVisible();
  await expect(row.getByRole('definition').filter({ hasText: /^Deactivated/ })).toBeVisible();
  await expectHistory(history, `Ada Admin deactivated the account of ${name}: they were signed out everywhere and cannot sign in.`);
  await expect(person).toHaveURL(/\/login/);
  expect(await findSeriousViolations(admin)).toEqual([]);

  // On a phone the page fits, passes axe, and the account is reactivated after a question.
  await admin.setViewportSize({ width: 390, height: 844 });
  await row.getByRole('button', { name: `Reactivate ${name}` }).click();
  const question = admin.getByRole('dialog', { name: `Reactivate ${name}?` });
  await expect(question).toBeVisible();
  const box = await question.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  await answer(admin, `Reactivate ${name}?`, 'Reactivate');
  await expect(row.getByRole('status').filter({ hasText: `${name}’s account is active again: they can sign in.` })).toBeVisible();
  await expect(row.getByRole('button', { name: `Deactivate ${name}` })).toBeVisible();
  await expectHistory(history, `Ada Admin reactivated the account of ${name}.`);
  expect(await admin.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await findSeriousViolations(admin)).toEqual([]);
  await person.context().close();
  await admin.context().close();
});
