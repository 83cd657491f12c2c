import { expect, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { waitForMail } from './helpers.ts';

/**
 * A newcomer on /notarize-now up to the notary step of Notarize Now (decision 051): chooses a PDF,
 * creates an account with the mailed code, picks an acknowledgment in Virginia, and holds the
 * estimate on the stand-in card (the page's context must use useStripeJsStandIn).
 */
export async function reachNotaryStepAsNewcomer(person: Page, email: string, legalName: string, file = 'affidavit.pdf') {
  await person.goto('/notarize-now');
  await person.getByLabel('Your PDF documents').setInputFiles({ name: file, mimeType: 'application/pdf', buffer: Buffer.from(await makePdf(1, 'Affidavit')) });
  await person.getByRole('button', { name: 'Get notarized now' }).click();
  await person.getByLabel('Email').fill(email);
  await person.getByRole('button', { name: 'Email me a code' }).click();
  await person.getByLabel('Full name').fill(legalName);
  await person.getByRole('button', { name: 'Email me a code' }).click();
  const mail = await waitForMail(email, /Your Open RON code: \d{6}/);
  await person.getByLabel('6-digit code').fill(/\b(\d{6})\b/.exec(mail.subject)?.[1] ?? '');
  await person.getByRole('button', { name: 'Continue' }).click();
  await expect(person.getByRole('heading', { name: 'Your documents' })).toBeVisible({ timeout: 30_000 });
  await person.getByRole('button', { name: 'Next: what you need' }).click();
  await person.getByRole('radio', { name: /^Acknowledgment/ }).check();
  await person.getByLabel('The state you are in').selectOption({ label: 'Virginia' });
  await expect(person.getByRole('region', { name: 'Estimate' })).toContainText('$');
  await person.getByRole('button', { name: 'Next: payment' }).click();
  await person.getByRole('textbox', { name: 'Card number' }).fill('4242 4242 4242 4242');
  await person.getByRole('button', { name: /^Hold \$[\d.,]+ on this card$/ }).click();
  await expect(person.getByRole('heading', { name: 'Your notary' })).toBeVisible({ timeout: 30_000 });
}
