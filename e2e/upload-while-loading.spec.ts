import { expect, test } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { addPdfs, createJobFromDashboard, openAdminPage, uniqueEmail } from './helpers.ts';

/**
 * A PDF added while the job page is still reading its documents list is listed (decision 067). The
 * page's first read is answered by the server at once, before the upload is stored, and reaches the
 * page only later, as on a busy host: the list must be read again after the upload, not left at
 * that first, empty answer (a CI run stopped there, "No documents yet", with deed.pdf stored).
 */
test('a PDF added while the job page is still reading its documents is listed', async ({ browser }) => {
  const page = await openAdminPage(browser);
  await createJobFromDashboard(page, { title: 'Slow list check', signerName: 'Lena List', signerEmail: uniqueEmail('lena') });

  let firstRead: { answered: string; delivered: boolean } | null = null;
  let deliver: () => void = () => undefined;
  await page.route(/\/api\/jobs\/[^/]+\/documents$/, async (route) => {
    if (route.request().method() !== 'GET' || firstRead) return route.continue();
    const response = await route.fetch();
    firstRead = { answered: await response.text(), delivered: false };
    await new Promise<void>((resolve) => {
      deliver = resolve;
    });
    firstRead.delivered = true;
    await route.fulfill({ response });
  });

  await page.getByRole('link', { name: 'Open the new job' }).click();
  await expect(page.getByRole('heading', { name: 'Slow list check' })).toBeVisible();
  await expect.poll(() => firstRead?.answered).toBe('{"items":[]}');
  // The upload is stored while the empty answer is still on its way to the page.
  const stored = page.waitForResponse((response) => response.url().endsWith('/documents/batch') && response.request().method() === 'POST');
  await page.getByLabel('Add PDFs').setInputFiles([{ name: 'deed.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Deed') }]);
  expect((await stored).status()).toBe(201);
  deliver();
  await expect.poll(() => firstRead?.delivered).toBe(true);
  await expect(page.getByRole('list', { name: 'Documents in signing order' }).getByRole('listitem')).toHaveCount(1);
  await expect(page.getByRole('link', { name: 'deed.pdf' })).toBeVisible();

  // A second PDF, with nothing on its way, is listed after the first.
  await page.unroute(/\/api\/jobs\/[^/]+\/documents$/);
  await addPdfs(page, [{ name: 'rider.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Rider') }]);
  await page.context().close();
});
