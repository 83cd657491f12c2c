import { expect, test, type CDPSession, type Locator, type Page } from '@playwright/test';
import { openRolePages, openRoute, secondFactorRoutes, signedInRoutes, signedOutRoutes, type RolePages, type SignedInRole } from './role-pages.ts';

/**
 * The pages as people hold them: on a 390 x 844 touch phone every route of the router (src/web/router.tsx) fits
 * the screen's width, nothing fixed floats over a control, and every control is a 44 px target. The
 * signing workspace has one scroll container, and a notice never moves the work area. Then a signer
 * goes the whole way by touch: opens the invitation, signs and finishes.
 */

const phone = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

interface LayoutProblems {
  scrollWidth: number;
  covered: string[];
  smallTargets: string[];
}

/** What is wrong with the page in view: its width, controls under something fixed, targets under 44 px. */
function findLayoutProblems(page: Page): Promise<LayoutProblems> {
  return page.evaluate(() => {
    const isShown = (element: Element) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && !element.closest('[hidden], .visually-hidden, dialog:not([open])');
    };
    const describe = (element: Element) =>
      `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}"`;
    const all = [...document.querySelectorAll('body *')];
    const floating = all.filter(
      (element) => ['fixed', 'sticky'].includes(getComputedStyle(element).position) && isShown(element) && !element.closest('dialog[open]'),
    );
    const controls = [...document.querySelectorAll('button, a[href], input, select, textarea, summary, [role="button"]')].filter(
      (element) => isShown(element) && !(element instanceof HTMLInputElement && element.type === 'hidden'),
    );
    const covered: string[] = [];
    for (const control of controls) {
      const box = control.getBoundingClientRect();
      for (const over of floating) {
        if (over.contains(control) || control.contains(over)) continue;
        const other = over.getBoundingClientRect();
        const width = Math.min(box.right, other.right) - Math.max(box.left, other.left);
        const height = Math.min(box.bottom, other.bottom) - Math.max(box.top, other.top);
        if (width > 1 && height > 1) covered.push(`${describe(control)} under ${describe(over)}`);
      }
    }
    // Links inside running text are exempt (WCAG 2.5.8); checkboxes and radios count by their label.
    const smallTargets: string[] = [];
    for (const control of controls) {
      if (control.closest('dialog:not([open])')) continue;
      const isInlineLink = control.tagName === 'A' && !control.classList.contains('button') && !control.closest('nav, .actions');
      if (isInlineLink) continue;
      const target = control instanceof HTMLInputElement && ['checkbox', 'radio'].includes(control.type) ? (control.closest('label') ?? control) : control;
      const box = target.getBoundingClientRect();
      if (box.width < 44 - 0.5 || box.height < 44 - 0.5) smallTargets.push(`${describe(control)} ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, covered, smallTargets };
  });
}

async function expectFitsPhone(page: Page, route: string) {
  await openRoute(page, route);
  const problems = await findLayoutProblems(page);
  expect.soft(problems.scrollWidth, `${route} is wider than the phone`).toBeLessThanOrEqual(390);
  expect.soft(problems.covered, `${route}: controls under something fixed`).toEqual([]);
  expect.soft(problems.smallTargets, `${route}: touch targets under 44 px`).toEqual([]);
}

/** Elements that scroll their content, and whether the page itself scrolls. */
function findScrollContainers(page: Page) {
  return page.evaluate(() => {
    const scrolling = [...document.querySelectorAll('body *')].filter((element) => {
      const style = getComputedStyle(element);
      const scrollsY = /(auto|scroll)/.test(style.overflowY) && element.scrollHeight > element.clientHeight + 1;
      const scrollsX = /(auto|scroll)/.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1;
      return (scrollsY || scrollsX) && element.getBoundingClientRect().height > 0;
    });
    const root = document.scrollingElement ?? document.documentElement;
    return {
      isPageScrolling: root.scrollHeight > root.clientHeight + 1 || root.scrollWidth > root.clientWidth + 1,
      containers: scrolling.map((element) => element.className.toString()),
      nested: scrolling
        .filter((element) => scrolling.some((other) => other !== element && other.contains(element)))
        .map((element) => element.className.toString()),
    };
  });
}

/** The top of the work area: the pages column and the first page on it. */
function workAreaTop(page: Page) {
  return page.evaluate(() => {
    const column = document.querySelector('.pages')?.getBoundingClientRect().top ?? NaN;
    const first = document.querySelector('.pages .pdf-page')?.getBoundingClientRect().top ?? NaN;
    return { column: Math.round(column), first: Math.round(first) };
  });
}

/** A finger drawing on the element: real touch events through the browser's input pipeline. */
async function drawWithFinger(page: Page, cdp: CDPSession, area: Locator) {
  const box = await area.boundingBox();
  if (!box) throw new Error('the drawing area is not on screen');
  const strokes: Array<Array<[number, number]>> = [
    [
      [0.1, 0.6],
      [0.25, 0.3],
      [0.4, 0.7],
      [0.55, 0.35],
      [0.7, 0.6],
    ],
    [
      [0.2, 0.8],
      [0.8, 0.75],
    ],
  ];
  // Each event is stamped a frame after the one before, and the finger rests before it lifts, as a
  // hand does: events sent all at once would read as a fling, and the next tap would only stop it.
  let time = Date.now() / 1000;
  const send = (type: 'touchStart' | 'touchMove' | 'touchEnd', touchPoints: Array<{ x: number; y: number }>, pause = 0.016) => {
    time += pause;
    return cdp.send('Input.dispatchTouchEvent', { type, touchPoints, timestamp: time });
  };
  for (const stroke of strokes) {
    const points = stroke.map(([x, y]) => ({ x: box.x + x * box.width, y: box.y + y * box.height }));
    const last = points.at(-1) ?? { x: 0, y: 0 };
    await send('touchStart', [points[0] ?? last]);
    for (const point of points.slice(1)) await send('touchMove', [point]);
    await send('touchMove', [last], 0.15);
    await send('touchEnd', [], 0.05);
  }
  await expect(page.getByRole('img', { name: /^Preview of the signature/ })).toBeVisible();
}

test.describe('pages on a 390 px touch phone', () => {
  let pages: RolePages;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    pages = await openRolePages(browser, phone);
  });

  test.afterAll(async () => {
    await pages?.close();
  });

  test('every page a signed-out person opens fits the screen, with nothing floating over a control', async () => {
    for (const route of signedOutRoutes(pages)) await expectFitsPhone(pages.anonymous, route);
    for (const route of secondFactorRoutes) await expectFitsPhone(pages.pendingMfa, route);
  });

  for (const role of ['admin', 'notary', 'title', 'signer'] as const satisfies readonly SignedInRole[]) {
    test(`every page a ${role} opens fits the screen, with nothing floating over a control`, async () => {
      for (const route of signedInRoutes(role, pages)) await expectFitsPhone(pages[role], route);
    });
  }

  test('the workspace has one scroll container and a notice never moves the work area', async () => {
    const { notary, jobId, documentId } = pages;
    await openRoute(notary, `/signing/${jobId}/${documentId}`);
    await expect(notary.getByRole('img', { name: 'refinance-deed.pdf, page 1', exact: true })).toBeVisible();
    const scrolling = await findScrollContainers(notary);
    expect(scrolling.isPageScrolling).toBe(false);
    expect(scrolling.nested).toEqual([]);
    expect(scrolling.containers.filter((name) => name.split(' ').includes('pages'))).toHaveLength(1);

    // A placement notice, then an error: the pages stay where they were.
    const before = await workAreaTop(notary);
    await notary.getByRole('button', { name: /^Tools and your fields/ }).tap();
    await notary.getByRole('button', { name: 'Date', exact: true }).tap();
    await expect(notary.getByTestId('placement-announcer')).toContainText('Placing Date for');
    expect(await workAreaTop(notary)).toEqual(before);
    await notary.route(`**/api/jobs/${jobId}/documents/${documentId}/fields`, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'unavailable', message: 'The field could not be saved. Try again.' }),
          })
        : route.fallback(),
    );
    const sheet = notary.locator('.pages .pdf-page[data-page="1"]');
    const box = (await sheet.boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 };
    await notary.touchscreen.tap(box.x + box.width * 0.5, box.y + Math.min(box.height * 0.3, 200));
    const error = notary.getByText('The field could not be saved. Try again.');
    await expect(error).toBeVisible();
    expect(await workAreaTop(notary)).toEqual(before);
    // The notice has a slot of its own: it covers no part of the pages.
    const errorBox = (await error.boundingBox()) ?? { y: 9999, height: 0 };
    expect(errorBox.y + errorBox.height).toBeLessThanOrEqual(before.column);
    expect((await findLayoutProblems(notary)).covered).toEqual([]);
    expect((await findScrollContainers(notary)).isPageScrolling).toBe(false);
    await notary.unroute(`**/api/jobs/${jobId}/documents/${documentId}/fields`);

    // On a desktop too: one scroll container for the pages, and the chat opener in the tools column.
    await notary.setViewportSize({ width: 1280, height: 800 });
    try {
      await openRoute(notary, `/signing/${jobId}/${documentId}`);
      await expect(notary.getByRole('img', { name: 'refinance-deed.pdf, page 1', exact: true })).toBeVisible();
      const desktop = await findScrollContainers(notary);
      expect(desktop.isPageScrolling).toBe(false);
      expect(desktop.nested).toEqual([]);
      expect((await findLayoutProblems(notary)).covered).toEqual([]);
      await expect(notary.getByRole('complementary', { name: 'Session tools' }).getByRole('button', { name: 'Chat with us' })).toBeVisible();
    } finally {
      await notary.setViewportSize(phone.viewport);
    }
  });

  test('zoomed in on a phone, every part of the page can be scrolled to, inside the pages only', async () => {
    const { signer, jobId, documentId } = pages;
    await openRoute(signer, `/signing/${jobId}/${documentId}`);
    const sheet = signer.locator('.pages .pdf-page[data-page="1"]');
    await expect(signer.getByRole('img', { name: 'refinance-deed.pdf, page 1', exact: true })).toBeVisible();
    const fitted = (await sheet.boundingBox()) ?? { x: -1, width: 0 };
    expect(fitted.x).toBeGreaterThanOrEqual(0);
    expect(fitted.width).toBeGreaterThan(390 * 0.9);
    expect(fitted.x + fitted.width).toBeLessThanOrEqual(390);
    // The signer's controls on the page stay on it: nothing to scroll sideways at the fitted width.
    await expect(signer.getByRole('button', { name: 'Initial here' })).toBeVisible();
    expect(await signer.locator('.pages').evaluate((column) => column.scrollWidth - column.clientWidth)).toBeLessThanOrEqual(0);
    const zoom = signer.getByRole('group', { name: 'Zoom' });
    await zoom.getByRole('button', { name: 'Zoom in' }).tap();
    await zoom.getByRole('button', { name: 'Zoom in' }).tap();
    await expect(zoom).toContainText('150%');
    try {
      await expect.poll(async () => (await sheet.boundingBox())?.width ?? 0).toBeGreaterThan(fitted.width * 1.4);
      expect(await signer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const edges = await signer.locator('.pages').evaluate((column) => {
        column.scrollLeft = 0;
        const left = column.querySelector('.pdf-page')?.getBoundingClientRect().left ?? -1;
        column.scrollLeft = column.scrollWidth;
        const right = column.querySelector('.pdf-page')?.getBoundingClientRect().right ?? 9999;
        const view = column.getBoundingClientRect();
        column.scrollLeft = 0;
        return { left: left - view.left, right: view.right - right };
      });
      expect(edges.left).toBeGreaterThanOrEqual(0);
      expect(edges.right).toBeGreaterThanOrEqual(0);
    } finally {
      await zoom.getByRole('button', { name: 'Zoom out' }).tap();
      await zoom.getByRole('button', { name: 'Zoom out' }).tap();
    }
  });

  test('a signer opens the invitation, signs and finishes, by touch alone', async ({ browser }) => {
    const context = await browser.newContext(phone);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    try {
      await page.goto(pages.spareClaimPath);
      await expect(page.getByRole('heading', { name: 'Accept your invitation' })).toBeVisible();
      await page.getByLabel('Full name').tap();
      await page.keyboard.type('Tara Touch');
      await page.getByLabel('Password', { exact: true }).tap();
      await page.keyboard.type('touch password');
      await page.getByLabel('Confirm password').tap();
      await page.keyboard.type('touch password');
      await page.getByRole('button', { name: 'Create account' }).tap();
      await expect(page).toHaveURL(/\/jobs\/detail\?jobId=/);
      expect((await findLayoutProblems(page)).scrollWidth).toBeLessThanOrEqual(390);

      await page.getByRole('link', { name: 'Open signing workspace' }).tap();
      await expect(page.getByRole('img', { name: 'refinance-deed.pdf, page 1', exact: true })).toBeVisible();
      await page.getByRole('button', { name: 'Tools and your fields (1 left)' }).tap();
      await page.getByRole('list', { name: 'Your remaining fields' }).getByRole('button', { name: 'Signature on page 1' }).tap();
      await expect(page.getByRole('button', { name: 'Sign here' })).toBeFocused();
      await expect(page.getByRole('button', { name: 'Sign here' })).toBeInViewport();
      await page.getByRole('button', { name: 'Sign here' }).tap();

      // No signature yet: it is adopted in a dialog over the workspace, and the field is signed at once.
      const dialog = page.getByRole('dialog', { name: 'Adopt your signature' });
      await expect(dialog).toBeVisible();
      await expect(page).toHaveURL(/\/signing\//);
      expect((await findLayoutProblems(page)).scrollWidth).toBeLessThanOrEqual(390);
      await drawWithFinger(page, cdp, dialog.getByRole('img', { name: /^Signature drawing area/ }));
      await dialog.getByRole('checkbox', { name: /I agree to sign electronically/ }).tap();
      await dialog.getByRole('button', { name: 'Adopt and sign' }).tap();
      await expect(page.getByRole('img', { name: 'Signature for Tara Touch, signed' })).toBeVisible();
      await page.getByRole('button', { name: 'Tools and your fields' }).tap();
      await expect(page.getByText('You have filled all your fields. The notary will complete the document.')).toBeVisible();
      const problems = await findLayoutProblems(page);
      expect(problems.scrollWidth).toBeLessThanOrEqual(390);
      expect(problems.covered).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
