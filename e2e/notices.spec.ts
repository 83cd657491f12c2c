import { expect, test } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { addPdfs, createJobFromDashboard, openAdminPage, uniqueEmail } from './helpers.ts';

test('a job page asks before deleting, removing, bypassing or cancelling in the page itself, never in a native dialog', async ({ browser }) => {
  const page = await openAdminPage(browser);
  page.on('dialog', (dialog) => {
    throw new Error(`A native ${dialog.type()} appeared: ${dialog.message()}`);
  });
  await createJobFromDashboard(page, { title: 'Confirmation check', signerName: 'Cora Confirm', signerEmail: uniqueEmail('cora') });
  await page.getByRole('link', { name: 'Confirmation check' }).click();
  await addPdfs(page, [{ name: 'old.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Old') }]);
  const documents = page.getByRole('list', { name: 'Documents in signing order' }).getByRole('listitem');
  await expect(documents).toHaveCount(1);

  await documents.getByRole('button', { name: 'Delete' }).click();
  let dialog = page.getByRole('dialog', { name: 'Delete old.pdf?' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(documents).toHaveCount(1);
  await documents.getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(documents).toHaveCount(0);

  await page.getByRole('button', { name: 'Bypass ID' }).click();
  dialog = page.getByRole('dialog', { name: 'Let Cora Confirm skip the identity step?' });
  await dialog.getByRole('button', { name: 'Bypass ID' }).click();
  await expect(dialog.getByText('Choose one: how do you know who this person is?')).toBeVisible();
  await dialog.getByLabel('The notary knows the person personally').check();
  await dialog.getByRole('button', { name: 'Bypass ID' }).click();
  await expect(dialog.getByText('Give a reason.')).toBeVisible();
  await dialog.getByLabel('Your reason, as it goes on record').fill('Known personally to the notary');
  await dialog.getByRole('button', { name: 'Bypass ID' }).click();
  await expect(page.getByRole('cell', { name: 'Waived: the notary knows the person personally (Known personally to the notary)' })).toBeVisible();

  await page.getByRole('button', { name: 'Remove' }).click();
  dialog = page.getByRole('dialog', { name: 'Remove Cora Confirm from this job?' });
  await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(page.getByText('No signers yet.')).toBeVisible();

  await page.getByRole('button', { name: 'Cancel job' }).click();
  dialog = page.getByRole('dialog', { name: 'Cancel this job? This cannot be undone.' });
  await dialog.getByRole('button', { name: 'Cancel job' }).click();
  await expect(page.getByText('The job is now cancelled.')).toBeVisible();
  await page.context().close();
});
