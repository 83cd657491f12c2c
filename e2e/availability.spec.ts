import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { findSeriousViolations, openAdminPage, registerApprovedNotary, registerSigner, uniqueEmail } from './helpers.ts';

/**
 * A notary's availability: the notary's online switch in the sidebar (on, still on after a reload,
 * off; a failure puts it back with 'Failed to update availability'; a heartbeat every 30 s while
 * online), hidden from everyone else, and the Availability tab's scheduled slots.
 */

const timeZone = 'America/Chicago';
let notaryContext: BrowserContext;
let notary: Page;

/** The calendar day `days` from today in the notary's zone, as a date input takes it. */
function dayFromNow(days: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(Date.now() + days * 24 * 3600 * 1000),
  );
}

test.describe.serial('notary availability', () => {
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    const admin = await openAdminPage(browser);
    notaryContext = await browser.newContext({ timezoneId: timeZone });
    notary = await notaryContext.newPage();
    await registerApprovedNotary(notary, admin, 'Olive Online', uniqueEmail('online-notary'));
    await admin.context().close();
  });

  test.afterAll(async () => {
    await notaryContext?.close();
  });

  const availabilitySwitch = () => notary.getByRole('switch', { name: 'Available for notarizations' });

  test('a notary turns availability on, finds it still on after a reload, and turns it off', async () => {
    await notary.goto('/dashboard?tab=jobs');
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
    await availabilitySwitch().click();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'true');
    await expect(notary.getByText('Online', { exact: true })).toBeVisible();

    await notary.reload();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'true');
    expect(await findSeriousViolations(notary)).toEqual([]);

    await availabilitySwitch().click();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
    await notary.reload();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
  });

  test('a failed change puts the switch back and says so', async () => {
    await notary.goto('/dashboard?tab=jobs');
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
    await notary.route('**/api/notary-availability/toggle', (route) =>
      route.fulfill({ status: 500, json: { error: 'internal_error', message: 'Something went wrong on our side. Please try again.' } }),
    );
    try {
      await availabilitySwitch().click();
      await expect(notary.getByRole('alert').filter({ hasText: 'Failed to update availability' })).toBeVisible();
      await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
    } finally {
      await notary.unroute('**/api/notary-availability/toggle');
    }
    await notary.reload();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
  });

  test('while online the browser sends a heartbeat every 30 seconds, and stops once offline', async () => {
    await notary.clock.install();
    await notary.goto('/dashboard?tab=jobs');
    await availabilitySwitch().click();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'true');
    const expectHeartbeat = async () => {
      const heartbeat = notary.waitForResponse((response) => response.url().endsWith('/api/notary-availability/heartbeat'));
      await notary.clock.fastForward(30_000);
      const response = await heartbeat;
      expect(response.status()).toBe(200);
      expect(await response.json()).toMatchObject({ is_available: true });
    };
    await expectHeartbeat();
    await expectHeartbeat();
    // A page without the sidebar (the signature page) keeps the heartbeat going.
    await notary.goto('/signature');
    await expect(availabilitySwitch()).toHaveCount(0);
    await expectHeartbeat();
    await notary.goto('/dashboard?tab=jobs');
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'true');
    await availabilitySwitch().click();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
    let beatsAfter = 0;
    notary.on('request', (request) => {
      if (request.url().endsWith('/api/notary-availability/heartbeat')) beatsAfter += 1;
    });
    await notary.clock.fastForward(65_000);
    await notary.waitForTimeout(300);
    expect(beatsAfter).toBe(0);
  });

  test('a status that cannot be loaded says so; a 403 hides the switch without a word', async () => {
    await notary.route('**/api/notary-availability/status', (route) => route.fulfill({ status: 500, json: { error: 'internal_error', message: 'Down.' } }));
    await notary.goto('/dashboard?tab=jobs');
    await expect(notary.getByText('Failed to load availability status')).toBeVisible({ timeout: 15_000 });
    await expect(availabilitySwitch()).toHaveCount(0);
    await notary.unroute('**/api/notary-availability/status');

    await notary.route('**/api/notary-availability/status', (route) =>
      route.fulfill({ status: 403, json: { error: 'forbidden', message: 'You do not have permission to do that.' } }),
    );
    await notary.goto('/dashboard?tab=jobs');
    await expect(notary.getByText('Welcome, Olive Online')).toBeVisible();
    await notary.waitForTimeout(500);
    await expect(availabilitySwitch()).toHaveCount(0);
    await expect(notary.getByText('Failed to load availability status')).toHaveCount(0);
    await notary.unroute('**/api/notary-availability/status');
  });

  test('a notary adds a slot in their time zone, sees it listed, and deletes it', async () => {
    await notary.goto('/dashboard?tab=availability');
    await expect(notary.getByRole('heading', { name: 'Your availability' })).toBeVisible();
    await expect(notary.getByText(`Times are in ${timeZone}`)).toBeVisible();
    await expect(notary.getByText('You have no upcoming slots.')).toBeVisible();

    const day = dayFromNow(5);
    await notary.getByLabel('Date').fill(day);
    await notary.getByLabel('Start time').fill('11:00');
    await notary.getByLabel('End time').fill('09:00');
    await notary.getByRole('button', { name: 'Add slot' }).click();
    await expect(notary.getByRole('alert').filter({ hasText: 'The slot must end after it starts.' })).toBeVisible();

    await notary.getByLabel('Start time').fill('09:00');
    await notary.getByLabel('End time').fill('11:30');
    await notary.getByRole('button', { name: 'Add slot' }).click();
    const upcoming = notary.getByRole('list', { name: 'Upcoming slots' });
    await expect(upcoming.getByRole('listitem')).toHaveCount(1);
    await expect(upcoming).toContainText('9:00 AM');
    await expect(upcoming).toContainText('11:30 AM');
    await expect(upcoming).toContainText(timeZone);
    expect(await findSeriousViolations(notary)).toEqual([]);

    // The same hours again overlap the slot just added: the server's sentence is shown.
    await notary.getByLabel('Date').fill(day);
    await notary.getByLabel('Start time').fill('10:00');
    await notary.getByLabel('End time').fill('12:00');
    await notary.getByRole('button', { name: 'Add slot' }).click();
    await expect(notary.getByRole('alert').filter({ hasText: 'The slot overlaps your slot' })).toBeVisible();

    await upcoming.getByRole('button', { name: /^Delete the slot/ }).click();
    await expect(notary.getByText('You have no upcoming slots.')).toBeVisible();
  });

  test('on a 390 px phone the switch sits in the bar and the Availability tab fits', async () => {
    await notary.setViewportSize({ width: 390, height: 844 });
    await notary.goto('/dashboard?tab=availability');
    await expect(availabilitySwitch()).toBeVisible();
    const box = await availabilitySwitch().boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await availabilitySwitch().click();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'true');
    expect(await notary.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await findSeriousViolations(notary)).toEqual([]);
    await availabilitySwitch().click();
    await expect(availabilitySwitch()).toHaveAttribute('aria-checked', 'false');
  });
});

test('someone who is not a notary never sees the availability switch or tab', async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const statusCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/notary-availability/')) statusCalls.push(request.url());
    });
    await registerSigner(page, 'Sid Signer', uniqueEmail('signer'), 'signer password 1');
    await expect(page.getByText('Welcome, Sid Signer')).toBeVisible();
    await expect(page.getByRole('switch', { name: 'Available for notarizations' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Availability' })).toHaveCount(0);
    await page.goto('/dashboard?tab=availability');
    await expect(page.getByRole('heading', { name: 'Your availability' })).toHaveCount(0);
    expect(statusCalls).toEqual([]);
  } finally {
    await context.close();
  }
});
