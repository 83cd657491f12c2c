import { expect, test, type Page } from '@playwright/test';
import { findSeriousViolations } from './helpers.ts';
import { openRolePages, openRoute, secondFactorRoutes, signedInRoutes, signedOutRoutes, type RolePages, type SignedInRole } from './role-pages.ts';

/**
 * axe on every page of the router, signed out and signed in as each role (the pages that
 * differ by role are visited by each): no serious or critical violation of WCAG 2.1 A and AA. One
 * page per role is reused and the data comes from the API, so the whole file stays quick.
 */

async function expectAccessible(page: Page, route: string, state?: string) {
  if (!state) await openRoute(page, route);
  expect.soft(await findSeriousViolations(page), `${route}${state ? ` (${state})` : ''}`).toEqual([]);
}

test.describe('accessibility of every page', () => {
  let pages: RolePages;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    pages = await openRolePages(browser);
  });

  test.afterAll(async () => {
    await pages?.close();
  });

  test('every page, signed out and as each role, each role in its own page at the same time', async () => {
    // Some 100 pages, each checked by axe, five at a time on two cores: it outgrew a 120 s budget
    // (about 150 s on a quiet machine, one axe pass alone 22 s); the budget leaves room for a busy one.
    test.setTimeout(300_000);
    const signedOut = async () => {
      for (const route of signedOutRoutes(pages)) await expectAccessible(pages.anonymous, route);
      for (const route of secondFactorRoutes) await expectAccessible(pages.pendingMfa, route);
    };
    const signedIn = async (role: SignedInRole) => {
      const page = pages[role];
      for (const route of signedInRoutes(role, pages)) await expectAccessible(page, route);
      // What opens over a page: the new-job dialog and the notifications.
      await openRoute(page, '/dashboard?tab=jobs');
      await page.getByRole('button', { name: 'New Signing Request' }).click();
      await expect(page.getByRole('dialog', { name: 'New Signing Request' })).toBeVisible();
      await expectAccessible(page, '/dashboard?tab=jobs', 'the New Signing Request dialog');
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: /^Notifications/ }).click();
      await expect(page.getByRole('region', { name: 'Notifications' })).toBeVisible();
      await expectAccessible(page, '/dashboard?tab=jobs', 'the notifications');
    };
    await Promise.all([signedOut(), ...(['admin', 'notary', 'title', 'signer'] as const).map(signedIn)]);
  });

  test('the signing workspace on a desktop and on a phone, as each role: every scrollable pane is reachable by keyboard and named', async () => {
    const { jobId, documentId } = pages;
    for (const role of ['title', 'notary', 'signer'] as const) {
      const page = pages[role];
      for (const height of [720, 800]) {
        await page.setViewportSize({ width: 1280, height });
        await openRoute(page, `/signing/${jobId}/${documentId}`);
        await expectAccessible(page, `/signing/${jobId}/${documentId}`, `desktop ${height}, ${role}, as it opens`);
        await expect(page.getByRole('img', { name: /page 1$/ })).toBeVisible();
        await expectAccessible(page, `/signing/${jobId}/${documentId}`, `desktop ${height}, ${role}, pages drawn`);
      }
      // And on a 390 px phone, for each role too.
      await page.setViewportSize({ width: 390, height: 844 });
      await openRoute(page, `/signing/${jobId}/${documentId}`);
      await expect(page.getByRole('img', { name: /page 1$/ })).toBeVisible();
      await expectAccessible(page, `/signing/${jobId}/${documentId}`, `phone, ${role}`);
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  test('the workspace on a phone, with its tools open', async () => {
    const { signer, jobId, documentId } = pages;
    await signer.setViewportSize({ width: 390, height: 844 });
    try {
      await openRoute(signer, `/signing/${jobId}/${documentId}`);
      await signer.getByRole('button', { name: /^Tools and your fields/ }).click();
      await expect(signer.getByRole('list', { name: 'Your remaining fields' })).toBeVisible();
      await expectAccessible(signer, `/signing/${jobId}/${documentId}`, 'phone, tools open');
    } finally {
      await signer.setViewportSize({ width: 1280, height: 720 });
    }
  });
});
