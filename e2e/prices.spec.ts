import { expect, test, type Page } from '@playwright/test';
import { findSeriousViolations, openAdminPage } from './helpers.ts';
import { apiCall } from './role-pages.ts';

async function addPrice(page: Page, price: { label: string; amount: string; counted: string; kind: 'Platform fee' | 'Notarial fee' }) {
  await page.getByRole('button', { name: 'Add a price' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a price to the defaults' });
  await dialog.getByLabel('Label').fill(price.label);
  await dialog.getByLabel('Amount in dollars').fill(price.amount);
  await dialog.getByLabel('Counted').selectOption({ label: price.counted });
  await dialog.getByRole('radio', { name: new RegExp(`^${price.kind}`) }).check();
  await dialog.getByRole('button', { name: 'Add price' }).click();
  return dialog;
}

test('an administrator sets the default prices from the sidebar, is held to the states’ caps, and gives a company an amount of its own', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const admin = await openAdminPage(browser);
  const companyName = `Price Title ${Date.now().toString(36)}`;
  await apiCall(admin.request, 'post', '/api/title-companies', { data: { name: companyName, city: 'Tampa', state: 'FL' } });

  await admin.goto('/dashboard?tab=jobs');
  await admin.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Prices' }).click();
  await expect(admin.getByRole('heading', { name: 'Prices', level: 1 })).toBeVisible();

  // A notarial fee above Florida's and Virginia's cap is refused with the statutes; the same dialog then takes $25.
  const seal = await addPrice(admin, { label: 'First seal', amount: '30', counted: 'per notarial act', kind: 'Notarial fee' });
  await expect(seal.getByText(/A notarial fee of \$30\.00 per act is more than state law allows: Florida allows at most \$25/)).toBeVisible();
  await expect(seal.getByText(/Fla\. Stat\. § 117\.275/)).toBeVisible();
  await seal.getByLabel('Amount in dollars').fill('25.00');
  await seal.getByRole('button', { name: 'Add price' }).click();
  await expect(admin.getByText('First seal is $25.00 per notarial act (notarial fee (the notary’s, capped by state law)).')).toBeVisible();
  await addPrice(admin, { label: 'Technology fee', amount: '12.50', counted: 'per job', kind: 'Platform fee' });
  const defaults = admin.getByRole('table', { name: 'Default prices, in the order invoices list them' });
  await expect(defaults.getByRole('row')).toHaveCount(3);

  // The technology fee moves to the top of the list.
  await defaults.getByRole('button', { name: 'Up Technology fee' }).click();
  await expect(defaults.getByRole('row').nth(1)).toContainText('Technology fee');
  expect(await findSeriousViolations(admin)).toEqual([]);

  // The company gets its own technology fee, then goes back to the default after a question.
  await admin.getByLabel('Find a title company').fill(companyName);
  await admin
    .getByRole('list', { name: 'Title companies' })
    .getByRole('button', { name: new RegExp(companyName) })
    .click();
  const companyPrices = admin.getByRole('table', { name: `Prices of ${companyName}` });
  await companyPrices.getByRole('button', { name: 'Set its amount for Technology fee' }).click();
  const own = admin.getByRole('dialog', { name: `Change “Technology fee” for ${companyName}` });
  await own.getByLabel('Amount in dollars').fill('8');
  await own.getByRole('button', { name: 'Save price' }).click();
  await expect(admin.getByText(`${companyName} pays $8.00 per job for “Technology fee”.`)).toBeVisible();
  await expect(companyPrices.getByRole('row', { name: /Technology fee/ })).toContainText('Its own');
  await companyPrices.getByRole('button', { name: 'Use the default for Technology fee' }).click();
  await admin.getByRole('dialog', { name: 'Use the default for “Technology fee”?' }).getByRole('button', { name: 'Use the default' }).click();
  await expect(admin.getByText(`${companyName} pays the default for “Technology fee” again: $12.50.`)).toBeVisible();
  await expect(companyPrices.getByRole('row', { name: /Technology fee/ })).toContainText('The default');
  expect(await findSeriousViolations(admin)).toEqual([]);
});
