import { expect, test } from '@playwright/test';

// On a phone the sign-in form sat below a full-screen hero, and an invited person typed the
// address the invitation was sent to.
test.describe('the sign-in page on a 390 px phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  for (const height of [844, 664]) {
    test(`shows the whole sign-in form first, without scrolling, on a screen ${height} px high`, async ({ page }) => {
      await page.setViewportSize({ width: 390, height });
      await page.goto('/login');
      for (const target of [page.getByLabel('Email'), page.getByLabel('Password', { exact: true }), page.getByRole('button', { name: 'Sign in' })]) {
        await expect(target).toBeInViewport({ ratio: 1 });
      }
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    });
  }

  test('pre-fills the email field with the invited address from the link', async ({ page }) => {
    await page.goto('/login?next=%2Fclaim%2Fabc&email=pat%40example.test');
    await expect(page.getByLabel('Email')).toHaveValue('pat@example.test');
    await page.goto('/login?email=not-an-address');
    await expect(page.getByLabel('Email')).toHaveValue('');
  });
});
