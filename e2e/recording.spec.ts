import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { openRolePages, openRoute, type RolePages } from './role-pages.ts';

/**
 * The recording page (decision 022): the job's notary and administrators open it from the job page;
 * a signer of the job is refused. The role pages' job is in a started session whose recording runs.
 * No media reaches the hub in this journey, so the page shows the recording with nothing stored yet.
 */

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .setLegacyMode()
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .options({ resultTypes: ['violations'] })
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help}`);
}

test.describe('the session recording page', () => {
  let pages: RolePages;
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    pages = await openRolePages(browser);
  });
  test.afterAll(async () => {
    await pages?.close();
  });

  test('the notary opens it from the job page and sees the running recording and the events so far', async () => {
    const { notary, jobId } = pages;
    await openRoute(notary, `/jobs/detail?jobId=${jobId}`);
    await notary.getByRole('link', { name: 'Watch the session recording' }).click();
    await expect(notary).toHaveURL(new RegExp(`/jobs/${jobId}/recording$`));
    await expect(notary.getByRole('heading', { level: 1, name: 'Recording of “Refinance closing for Sam Signer”' })).toBeVisible();
    await expect(notary.getByText(/; still recording\. It is kept for 10 years after it stops\./)).toBeVisible();
    await expect(notary.getByText('No audio or video has been stored for this recording yet.', { exact: false })).toBeVisible();
    const events = notary.getByRole('list', { name: 'Audit events during the recording' });
    await expect(events).toContainText('Nadia Notary started recording the live session.');
    await expect(events).not.toContainText('recording.started');
    expect(await seriousViolations(notary)).toEqual([]);
  });

  test('on a 390 px phone it fits the screen and its controls are at least 44 px', async () => {
    const { notary, jobId } = pages;
    await notary.setViewportSize({ width: 390, height: 844 });
    await openRoute(notary, `/jobs/${jobId}/recording`);
    await expect(notary.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await notary.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const control of await notary.locator('main a:visible, main button:visible').all()) {
      const box = await control.boundingBox();
      expect(box?.height ?? 0, (await control.textContent()) ?? '').toBeGreaterThanOrEqual(44);
    }
    expect(await seriousViolations(notary)).toEqual([]);
  });

  test('administrators may watch; a signer of the job gets no link and is refused in words', async () => {
    const { admin, signer, jobId } = pages;
    await openRoute(admin, `/jobs/${jobId}/recording`);
    await expect(admin.getByRole('heading', { level: 1, name: 'Recording of “Refinance closing for Sam Signer”' })).toBeVisible();

    await openRoute(signer, `/jobs/detail?jobId=${jobId}`);
    await expect(signer.getByRole('heading', { name: 'Refinance closing for Sam Signer' }).first()).toBeVisible();
    await expect(signer.getByRole('link', { name: 'Watch the session recording' })).toHaveCount(0);
    await openRoute(signer, `/jobs/${jobId}/recording`);
    await expect(signer.getByText('Only the job’s notary and administrators may watch its recordings.')).toBeVisible();
  });
});
