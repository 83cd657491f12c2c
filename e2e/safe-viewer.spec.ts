import { expect, test, type Page } from '@playwright/test';
import { makeHostilePdf } from '../test/hostile-pdf-fixtures.ts';
import { makePdf } from '../test/pdf-fixtures.ts';
import { createJobFromDashboard, findSeriousViolations, openAdminPage, uniqueEmail } from './helpers.ts';

/**
 * The safe viewer (decision 053) in real Chromium: from the job page, a person on the job opens
 * all documents (and one) in a new tab; the pages are drawn; the page has an opaque origin, so it
 * reads no cookie and calls no API; and the hostile PDF's scripts, which would change the title,
 * raise a dialog and call a watched address, do nothing.
 */

const watchedHost = 'evil.example';

/** Opens the viewer tab a click starts and waits until its pages are drawn (or it fails). */
async function openViewerFrom(page: Page, click: () => Promise<void>): Promise<Page> {
  const opening = page.context().waitForEvent('page');
  await click();
  const viewer = await opening;
  viewer.on('dialog', (dialog) => {
    throw new Error(`A dialog appeared in the viewer: ${dialog.message()}`);
  });
  await expect(viewer).toHaveURL(/\/api\/safe-viewer\?token=/);
  await expect(viewer.locator('body')).toHaveAttribute('data-state', /ready|failed/, { timeout: 30_000 });
  return viewer;
}

test('a person on the job opens its documents in the safe viewer, where nothing in them can act', async ({ browser }) => {
  test.setTimeout(120_000);
  const page = await openAdminPage(browser);
  const watchedCalls: string[] = [];
  // Anything that tries to reach the watched address (a script's getURL, a submit, a link) is caught here.
  await page.context().route(`**://${watchedHost}/**`, async (route) => {
    watchedCalls.push(route.request().url());
    await route.abort();
  });
  // Chromium reports a request its CSP stopped before it left as a failed one: those are listed apart.
  const blockedCalls: string[] = [];
  page.context().on('requestfailed', (request) => {
    if (request.url().includes(watchedHost)) blockedCalls.push(`${request.url()} ${request.failure()?.errorText ?? ''}`);
  });

  await createJobFromDashboard(page, { title: 'Safe viewer closing', signerName: 'Vera Viewer', signerEmail: uniqueEmail('vera') });
  await page.getByRole('link', { name: 'Safe viewer closing' }).click();
  await page.getByLabel('Add PDFs').setInputFiles([
    { name: 'hostile.pdf', mimeType: 'application/pdf', buffer: await makeHostilePdf(`http://${watchedHost}/hit`, 'Hostile deed') },
    { name: 'rider.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Plain rider') },
  ]);
  const documents = page.getByRole('list', { name: 'Documents in signing order' }).getByRole('listitem');
  await expect(documents).toHaveCount(2);

  const viewer = await openViewerFrom(page, () => page.getByRole('button', { name: 'Open in safe viewer' }).click());
  await expect(viewer.locator('body')).toHaveAttribute('data-state', 'ready');
  await expect(viewer.getByRole('status')).toHaveText('3 pages shown.');
  await expect(viewer.getByRole('heading', { level: 2 })).toHaveText(['hostile.pdf', 'rider.pdf']);
  await expect(viewer.getByRole('img')).toHaveCount(3);
  await expect(viewer).toHaveTitle('Safe viewer: Safe viewer closing');
  // The pages are drawn: each canvas holds dark (text) pixels, not only white.
  const inkedPages = await viewer.locator('canvas').evaluateAll((canvases) =>
    canvases.map((canvas) => {
      const context = (canvas as HTMLCanvasElement).getContext('2d');
      if (!context) return false;
      const { data } = context.getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height);
      for (let index = 0; index < data.length; index += 4) if ((data[index] ?? 255) < 100 && (data[index + 3] ?? 0) > 200) return true;
      return false;
    }),
  );
  expect(inkedPages).toEqual([true, true, true]);

  // An opaque origin: no cookie, no storage, no API, whatever a script in the page tries.
  const reach = await viewer.evaluate(async () => {
    const attempt = (read: () => unknown) => {
      try {
        return `read: ${String(read())}`;
      } catch (error) {
        return `refused: ${(error as Error).name}`;
      }
    };
    const fetched = await fetch('/api/auth/me', { credentials: 'include' }).then(
      (response) => `answered ${response.status}`,
      (error: Error) => `refused: ${error.name}`,
    );
    // What a script smuggled into the page would try next: a pop-up, a pixel, an inline handler.
    const popup = window.open('http://evil.example/popup');
    const trap = document.createElement('div');
    trap.innerHTML = '<img src="http://evil.example/pixel" onerror="document.title = \'pwned\'">';
    document.body.append(trap);
    await new Promise((resolve) => setTimeout(resolve, 500));
    trap.remove();
    return {
      origin: window.origin,
      cookie: attempt(() => document.cookie),
      storage: attempt(() => window.localStorage.length),
      fetched,
      popup: popup === null ? 'blocked' : 'opened',
    };
  });
  expect(reach).toEqual({
    origin: 'null',
    cookie: 'refused: SecurityError',
    storage: 'refused: SecurityError',
    fetched: 'refused: TypeError',
    popup: 'blocked',
  });

  // The hostile file's scripts did not run: no title change, no dialog, no call out.
  await viewer.waitForTimeout(1500);
  await expect(viewer).toHaveTitle('Safe viewer: Safe viewer closing');
  expect(watchedCalls).toEqual([]);
  expect(blockedCalls).toEqual(['http://evil.example/pixel csp']);
  expect(await findSeriousViolations(viewer)).toEqual([]);

  // Usable on a phone: the pages fit the width.
  await viewer.setViewportSize({ width: 390, height: 844 });
  const widest = await viewer.locator('canvas').evaluateAll((canvases) => Math.max(...canvases.map((canvas) => canvas.getBoundingClientRect().right)));
  expect(widest).toBeLessThanOrEqual(390);
  await viewer.close();

  // One document on its own, from its row.
  const single = await openViewerFrom(page, () => page.getByRole('button', { name: 'Open hostile.pdf in safe viewer' }).click());
  await expect(single.locator('body')).toHaveAttribute('data-state', 'ready');
  await expect(single.getByRole('status')).toHaveText('2 pages shown.');
  await expect(single.getByRole('heading', { level: 2 })).toHaveText(['hostile.pdf']);
  await single.waitForTimeout(1000);
  expect(watchedCalls).toEqual([]);
  expect(blockedCalls).toHaveLength(1);
  await expect(single).toHaveTitle('Safe viewer: Safe viewer closing');

  // The link is this person's: the same address in a browser without their session shows nothing.
  const stranger = await (await browser.newContext()).newPage();
  const refused = await stranger.goto(single.url());
  expect(refused?.status()).toBe(401);
  await expect(stranger.getByRole('alert')).toContainText('Sign in');
  await expect(stranger.locator('canvas')).toHaveCount(0);
  await stranger.context().close();
  await single.close();
});
