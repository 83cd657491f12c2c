import { expect, test } from '@playwright/test';
import { registerSigner, uniqueEmail } from './helpers.ts';

const refusal = (label: string) => `${label} must be one line of text, without line breaks, control characters or text-direction overrides.`;

test('registration names a field holding a text-direction override and creates no account', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/register/user');
  await page.getByLabel('Full name').fill('Sam\u202Erengis');
  await page.getByLabel('Email').fill(uniqueEmail('bidi'));
  await page.getByLabel('Password', { exact: true }).fill('long enough pw');
  await page.getByLabel('Confirm password').fill('long enough pw');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Please correct the highlighted fields.')).toBeVisible();
  await expect(page.getByLabel('Full name')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText(refusal('Your name'))).toBeVisible();
  await expect(page).toHaveURL(/\/register\/user$/);
});

test('a typed signature holding a text-direction override is refused with a field error and nothing to save', async ({ page }) => {
  await registerSigner(page, 'Tara Typist', uniqueEmail('typed-bidi'), 'long enough pw');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/signature');
  await page.getByRole('radio', { name: 'Type' }).check();
  const name = page.getByLabel('Type your full name');
  await expect(page.getByRole('img', { name: 'Preview of the signature to save' })).toBeVisible();
  await name.fill('Tara\u202E Typist');
  await expect(page.getByText(refusal('The typed name'))).toBeVisible();
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Nothing to save yet.')).toBeVisible();

  await name.fill('Tara Typist');
  await expect(page.getByText(refusal('The typed name'))).toHaveCount(0);
  await expect(page.getByRole('img', { name: 'Preview of the signature to save' })).toBeVisible();
});
