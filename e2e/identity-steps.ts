import { expect, type Page } from '@playwright/test';
import { makeAamvaText, makeLicenceBack, makeLicenceFront } from '../test/id-documents.ts';

/**
 * The identity step as a signer takes it in the browser, shared by the journeys that go
 * through it: Sam Signer's details, a Virginia licence read from its barcode, a selfie from the fake
 * camera, and the development provider's questions answered from what was typed.
 */

export const samSigner = { legalName: 'Sam Signer', birthDate: '1984-07-09', street: '1208 Maple Avenue', city: 'Richmond', state: 'VA', zip: '23220' };

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** What the person typed answers each development question (the provider makes them from it). */
const answers: Record<string, string> = {
  'In which year were you born?': '1984',
  'In which month were you born?': 'July',
  'On which day of the month were you born?': '9',
  'On which day of the week were you born?': weekdays[new Date(Date.UTC(1984, 6, 9)).getUTCDay()] ?? '',
  'In which decade were you born?': '1980s',
  'What is the house number of your address?': '1208',
  'On which street do you live?': 'Maple Avenue',
  'In which city do you live?': 'Richmond',
  'In which state do you live?': 'Virginia',
  'What is your ZIP code?': '23220',
  'What are the last two digits of your ZIP code?': '20',
  'What is the first digit of your ZIP code?': '2',
  'With which letter does your last name begin?': 'S',
  'With which letter does your first name begin?': 'S',
  'How many letters are in your last name?': '6',
};

/** "Your details": Sam Signer's legal name, birth date and address, then on to the ID. */
export async function giveDetails(page: Page) {
  await expect(page.getByRole('heading', { name: 'Your details' })).toBeVisible({ timeout: 20_000 });
  await page.getByLabel('Full legal name').fill(samSigner.legalName);
  await page.getByLabel('Date of birth').fill(samSigner.birthDate);
  await page.getByLabel('Street address').fill(samSigner.street);
  await page.getByLabel('City').fill(samSigner.city);
  await page.getByLabel('State').selectOption(samSigner.state);
  await page.getByLabel('ZIP code').fill(samSigner.zip);
  await page.getByRole('button', { name: 'Continue to your ID' }).click();
  await expect(page.getByRole('heading', { name: 'Photograph your ID' })).toBeVisible({ timeout: 15_000 });
}

/** "Photograph your ID": the front and the back of a Virginia licence as photo files. */
export async function sendLicencePhotos(page: Page) {
  await page.getByLabel('Driver’s licence').check();
  const licence = { state: 'VA', issuerNumber: '636000', firstName: 'SAM', lastName: 'SIGNER', birthDate: samSigner.birthDate };
  const back = await makeLicenceBack({ text: makeAamvaText(licence) });
  await page
    .getByLabel('Or give a photo file: front of the card')
    .setInputFiles({ name: 'front.png', mimeType: 'image/png', buffer: await makeLicenceFront(licence) });
  await page.getByLabel('Or give a photo file: back of the card').setInputFiles({ name: 'back.png', mimeType: 'image/png', buffer: back });
  await page.getByRole('button', { name: 'Send both photos' }).click();
  await expect(page.getByRole('heading', { name: 'Take a selfie' })).toBeVisible({ timeout: 40_000 });
}

/** A selfie from the camera, then the five questions answered right within the time limit. */
export async function takeSelfieAndAnswer(page: Page) {
  await page.getByRole('button', { name: /^Use the camera/ }).click();
  const take = page.getByRole('button', { name: /^Take the photo/ });
  await expect(take).toBeEnabled({ timeout: 15_000 });
  await take.click();
  // The photo is kept once it shows; Send before that finds no photo yet.
  await expect(page.getByRole('img', { name: 'Your photo: Selfie' })).toBeVisible();
  await page.getByRole('button', { name: /^Send/ }).click();
  await expect(page.getByRole('heading', { name: 'Answer questions about yourself' })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(/development provider/).first()).toBeVisible();
  // A first try has no "last time".
  await expect(page.getByText(/Last time you answered/)).toHaveCount(0);
  await page.getByRole('button', { name: 'Start the questions' }).click();
  await expect(page.getByRole('timer')).toBeVisible({ timeout: 15_000 });
  const groups = page.locator('fieldset.kba-question');
  await expect(groups).toHaveCount(5);
  for (const group of await groups.all()) {
    const prompt = ((await group.locator('legend').textContent()) ?? '').replace(/^\d+\.\s*/, '').trim();
    const expected = answers[prompt];
    expect(expected, `an answer for "${prompt}"`).toBeDefined();
    await group.getByLabel(expected ?? '', { exact: true }).check();
  }
  await page.getByRole('button', { name: 'Send my answers' }).click();
  // The result waits for Continue, unless the page learns first (its own poll) that the whole step is
  // done and goes on to the device check by itself: either is what the person sees next.
  const passed = page.getByText('You answered 5 of 5 questions correctly: you passed.');
  const deviceCheck = page.getByRole('region', { name: 'Camera and microphone' });
  await expect(passed.or(deviceCheck).first()).toBeVisible({ timeout: 20_000 });
  if (await passed.isVisible()) {
    await page
      .getByRole('button', { name: 'Continue', exact: true })
      .click({ timeout: 5_000 })
      .catch(() => expect(deviceCheck).toBeVisible());
  }
}
