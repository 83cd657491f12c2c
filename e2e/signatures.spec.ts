import { expect, test, type Locator, type Page } from '@playwright/test';
import { makePng } from '../test/png-fixtures.ts';
import { agreeToSignElectronicallyIfAsked, registerSigner, uniqueEmail } from './helpers.ts';

/** Drags the mouse through points given as fractions of the pad. */
async function drawStroke(page: Page, pad: Locator, points: Array<[number, number]>) {
  const box = await pad.boundingBox();
  if (!box) throw new Error('the drawing pad is not on screen');
  const at = ([x, y]: [number, number]) => [box.x + x * box.width, box.y + y * box.height] as const;
  const [first, ...rest] = points;
  if (!first) return;
  await page.mouse.move(...at(first));
  await page.mouse.down();
  for (const point of rest) await page.mouse.move(...at(point), { steps: 6 });
  await page.mouse.up();
}

/** The image element really shows a decoded picture (not a broken icon). */
async function expectLoadedImage(image: Locator) {
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((element: HTMLImageElement) => (element.complete ? element.naturalWidth : 0))).toBeGreaterThan(0);
}

test('a signer draws strokes, undoes one, clears, draws again and saves the signature', async ({ page }) => {
  await registerSigner(page, 'Sam Scribble', uniqueEmail('draw'), 'long enough pw');
  await page.goto('/signature');
  await expect(page.getByRole('heading', { name: 'Your signature' })).toBeVisible();
  await expect(page.getByText('No signature saved yet')).toBeVisible();
  await expect(page.getByRole('radio', { name: 'Draw' })).toBeChecked();

  const pad = page.getByRole('img', { name: /^Signature drawing area/ });
  await drawStroke(page, pad, [
    [0.1, 0.6],
    [0.2, 0.3],
    [0.3, 0.7],
    [0.4, 0.35],
  ]);
  await drawStroke(page, pad, [
    [0.45, 0.5],
    [0.6, 0.45],
    [0.7, 0.6],
  ]);
  await drawStroke(page, pad, [
    [0.75, 0.3],
    [0.8, 0.7],
  ]);
  await expect(pad).toHaveAccessibleName('Signature drawing area: 3 strokes drawn');
  const preview = page.getByRole('img', { name: 'Preview of the signature to save' });
  await expectLoadedImage(preview);

  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(pad).toHaveAccessibleName('Signature drawing area: 2 strokes drawn');
  await expect(preview).toBeVisible();

  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(pad).toHaveAccessibleName('Signature drawing area: empty');
  await expect(page.getByText('Nothing to save yet.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Undo' })).toBeDisabled();

  await drawStroke(page, pad, [
    [0.15, 0.5],
    [0.3, 0.25],
    [0.5, 0.75],
    [0.7, 0.3],
    [0.85, 0.55],
  ]);
  await drawStroke(page, pad, [
    [0.2, 0.8],
    [0.8, 0.8],
  ]);
  await expect(pad).toHaveAccessibleName('Signature drawing area: 2 strokes drawn');
  await agreeToSignElectronicallyIfAsked(page);
  await page.getByRole('button', { name: 'Save signature' }).click();
  await expect(page.getByText('Signature saved.')).toBeVisible();
  await expect(page.getByText('No signature saved yet')).toHaveCount(0);
  await expectLoadedImage(page.getByRole('img', { name: 'Your saved signature' }));

  const saved = await (await page.request.get('/api/signature/me')).json();
  expect(saved).toMatchObject({ kind: 'signature', method: 'draw', imageUrl: `/api/signatures/${saved.id as string}/image` });

  await page.reload();
  await expectLoadedImage(page.getByRole('img', { name: 'Your saved signature' }));
  await expect(page.getByRole('img', { name: 'Your saved signature' })).toHaveAttribute('src', saved.imageUrl);
});

test('type mode, chosen with the keyboard, saves the name in a script font and replaces the drawn one', async ({ page }) => {
  await registerSigner(page, 'Tara Typist', uniqueEmail('type'), 'long enough pw');
  await page.goto('/signature');
  const pad = page.getByRole('img', { name: /^Signature drawing area/ });
  await drawStroke(page, pad, [
    [0.2, 0.5],
    [0.8, 0.5],
  ]);
  await agreeToSignElectronicallyIfAsked(page);
  await page.getByRole('button', { name: 'Save signature' }).click();
  await expect(page.getByText('Signature saved.')).toBeVisible();
  const first = await (await page.request.get('/api/signature/me')).json();

  await page.getByRole('radio', { name: 'Draw' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: 'Type' })).toBeChecked();
  const name = page.getByLabel('Type your full name');
  await expect(name).toHaveValue('Tara Typist');
  await name.fill('Tara T. Typist');
  await page.getByRole('radio', { name: 'Great Vibes' }).check();
  await expectLoadedImage(page.getByRole('img', { name: 'Preview of the signature to save' }));
  expect(await page.evaluate(() => document.fonts.check('96px "Great Vibes"', 'Tara'))).toBe(true);

  await agreeToSignElectronicallyIfAsked(page);
  await page.getByRole('button', { name: 'Save signature' }).click();
  await expect(page.getByText('New signature saved. Documents you already signed keep the earlier one.')).toBeVisible();
  const second = await (await page.request.get('/api/signature/me')).json();
  expect(second).toMatchObject({ method: 'type' });
  expect(second.id).not.toBe(first.id);
  // The earlier image stays readable for documents already signed with it.
  expect((await page.request.get(first.imageUrl)).status()).toBe(200);
});

test('initials are uploaded as an image, refused when not an image, and shown again after a reload', async ({ page }) => {
  await registerSigner(page, 'Uma Upload', uniqueEmail('upload'), 'long enough pw');
  await page.goto('/initials');
  await expect(page.getByRole('heading', { name: 'Your initials' })).toBeVisible();
  await expect(page.getByText('No initials saved yet')).toBeVisible();
  await page.getByRole('radio', { name: 'Upload' }).check();

  const input = page.getByLabel('Initials image');
  await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
  await expect(page.getByRole('alert')).toHaveText('notes.txt is not a PNG or JPEG image.');

  await input.setInputFiles({ name: 'initials.png', mimeType: 'image/png', buffer: makePng(240, 120, { color: [0, 51, 91] }) });
  const preview = page.getByRole('img', { name: 'Preview of the initials to save' });
  await expectLoadedImage(preview);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await agreeToSignElectronicallyIfAsked(page);
  await page.getByRole('button', { name: 'Save initials' }).click();
  await expect(page.getByText('Initials saved.')).toBeVisible();

  await page.reload();
  const saved = page.getByRole('img', { name: 'Your saved initials' });
  await expectLoadedImage(saved);
  expect(await saved.evaluate((element: HTMLImageElement) => [element.naturalWidth, element.naturalHeight])).toEqual([240, 120]);
  expect(await (await page.request.get('/api/initials/me')).json()).toMatchObject({ kind: 'initials', method: 'upload' });
});

test('after saving, ?next= returns to an internal page, and an outside address is ignored', async ({ page }) => {
  await registerSigner(page, 'Nia Next', uniqueEmail('next'), 'long enough pw');
  await page.goto('/initials?next=https://evil.example/');
  await expect(page.getByRole('link', { name: 'Back to dashboard' })).toBeVisible();

  // The signing workspace links here with its own path as next; it counts as a way back.
  await page.goto('/initials?next=%2Fsigning%2Fjob-1%2Fdoc-1');
  await expect(page.getByRole('link', { name: 'Back', exact: true })).toHaveAttribute('href', '/signing/job-1/doc-1');

  await page.goto('/initials?next=%2Fhelp');
  await expect(page.getByRole('link', { name: 'Back', exact: true })).toHaveAttribute('href', '/help');
  await drawStroke(page, page.getByRole('img', { name: /^Initials drawing area/ }), [
    [0.3, 0.3],
    [0.5, 0.7],
    [0.7, 0.3],
  ]);
  await agreeToSignElectronicallyIfAsked(page);
  await page.getByRole('button', { name: 'Save initials' }).click();
  await expect(page).toHaveURL(/\/help$/);
  await expect(page.getByRole('heading', { name: 'Help' })).toBeVisible();
});

test('a visitor who is not signed in is sent to sign in first', async ({ page }) => {
  await page.goto('/signature');
  await expect(page).toHaveURL(/\/login\?next=%2Fsignature$/);
});

test('typed initials saved at once, while the script font is still arriving, are saved (not a vanishing "nothing to save")', async ({ page }) => {
  await registerSigner(page, 'Hugo Hurry', uniqueEmail('hurry'), 'long enough pw');
  // The script fonts arrive a second late, as on a slow phone connection.
  await page.route(/\.woff2?(\?|$)/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await route.continue();
  });
  await page.goto('/initials');
  await page.getByRole('radio', { name: 'Type' }).check();
  await page.getByLabel('Type your initials').fill('HH');
  await agreeToSignElectronicallyIfAsked(page);
  await page.getByRole('button', { name: /Save initials|Preparing/ }).click();
  await expect(page.getByText('Initials saved.')).toBeVisible();
});
