import { expect, request, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import ICAL from 'ical.js';
import { expectAccessibleBothWays, openAdminPage, uniqueEmail, useJourneyPrices, useStripeJsStandIn } from './helpers.ts';
import { reachNotaryStepAsNewcomer } from './gnw-steps.ts';
import { apiCall, baseUrl, createApprovedNotary, storeUserInPage } from './role-pages.ts';

/**
 * The calendar (decision 052), each person clicking from the page they land on: a notary in Chicago
 * opens Calendar from the sidebar, makes their feed address and copies it; a newcomer books the
 * notary's free time through Notarize Now's "Pick a time"; the notary sees the session on the
 * calendar page and in the feed, opens its job from there, and adds and deletes an event of their own.
 */

const notaryName = 'Carla Calendar';
const priceKeys = ['cal_act', 'cal_platform'] as const;

test.describe.serial('The calendar: a feed, a booked session and one’s own events', () => {
  const contexts: BrowserContext[] = [];
  let browserOf: Browser;
  let admin: Page;
  let notary: Page;
  let feedUrl = '';
  let removePrices: (() => Promise<void>) | null = null;
  const personEmail = uniqueEmail('cal-person');

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    browserOf = browser;
    admin = await openAdminPage(browser);
    contexts.push(admin.context());
    removePrices = await useJourneyPrices(admin, priceKeys);
    const context = await browser.newContext({ timezoneId: 'America/Chicago' });
    contexts.push(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    notary = await context.newPage();
    await createApprovedNotary(notary, admin, notaryName);
    // Free tomorrow afternoon (their availability tab has its own journey).
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await apiCall(notary.request, 'post', '/api/availability', {
      data: { timeZone: 'America/Chicago', slots: [{ start: `${tomorrow}T13:00`, end: `${tomorrow}T15:00` }] },
    });
    await storeUserInPage(notary);
    await notary.goto('/dashboard');
  });

  test.afterAll(async () => {
    await removePrices?.();
    for (const context of contexts) await context.close();
  });

  test('the notary opens Calendar from the sidebar, makes their feed address and copies it', async () => {
    await notary.getByRole('navigation').getByRole('link', { name: 'Calendar' }).click();
    await expect(notary.getByRole('heading', { name: 'Calendar', level: 1 })).toBeVisible();
    await notary.getByRole('button', { name: 'Agenda' }).click();
    await expect(notary.getByRole('link', { name: /^Available for notarizations, 1:00 PM – 3:00 PM/ })).toBeVisible();
    await notary.getByRole('button', { name: 'Make my calendar address' }).click();
    const address = notary.getByLabel('Your calendar address (shown only now)');
    await expect(address).toHaveValue(/\/api\/calendar\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
    feedUrl = await address.inputValue();
    await notary.getByRole('button', { name: 'Copy the address' }).click();
    await expect(notary.getByText('The address is copied. Paste it into your calendar app.')).toBeVisible();
    expect(await notary.evaluate(() => navigator.clipboard.readText())).toBe(feedUrl);
    await expectAccessibleBothWays(notary, 'the calendar page');
  });

  test('a newcomer books the notary’s free time through Notarize Now', async () => {
    test.setTimeout(120_000);
    const context = await browserOf.newContext({ timezoneId: 'America/New_York' });
    contexts.push(context);
    await useStripeJsStandIn(context);
    const person = await context.newPage();
    await reachNotaryStepAsNewcomer(person, personEmail, 'Bea Booker', 'lease.pdf');
    await person.getByRole('button', { name: /Pick a time/ }).click();
    const times = person.getByRole('radiogroup', { name: 'Free times' });
    await expect(times).toBeVisible({ timeout: 30_000 });
    // 1:00 PM in Chicago is 2:00 PM in New York, where the person is.
    await times
      .getByRole('radio', { name: new RegExp(`^2:00 PM [A-Z]+ ${notaryName}$`) })
      .first()
      .check();
    await person.getByRole('button', { name: 'Book this time' }).click();
    await expect(person.getByText(new RegExp(`with ${notaryName}\\.$`)).first()).toBeVisible({ timeout: 30_000 });
  });

  test('the notary sees the session on the calendar and in the feed, and opens its job from there', async () => {
    await notary.reload();
    await notary.getByRole('button', { name: 'Agenda' }).click();
    const session = notary.getByRole('link', { name: /^Session: Notarization for Bea Booker, 1:00 PM – 1:30 PM$/ });
    await expect(session).toBeVisible({ timeout: 30_000 });

    // A calendar app reads the address with no cookie at all.
    const calendarApp = await request.newContext();
    const feed = await calendarApp.get(feedUrl);
    expect(feed.status()).toBe(200);
    const events = new ICAL.Component(ICAL.parse(await feed.text())).getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
    expect(events.map((event) => event.summary)).toEqual(
      expect.arrayContaining(['Notarization session: Notarization for Bea Booker', 'Available for notarizations']),
    );
    await calendarApp.dispose();

    await session.click();
    await expect(notary).toHaveURL(/\/jobs\/detail\?jobId=/);
  });

  test('the notary adds an event of their own, sees it, and deletes it after a question', async () => {
    await notary.getByRole('navigation').getByRole('link', { name: 'Calendar' }).click();
    await notary.getByRole('button', { name: 'Add an event' }).click();
    const dialog = notary.getByRole('dialog', { name: 'Add an event' });
    await dialog.getByLabel('Title').fill('Office hours');
    await dialog.getByLabel('Notes (optional)').fill('Room 4');
    await dialog.getByRole('button', { name: 'Add the event' }).click();
    await expect(notary.getByText('“Office hours” was added to your calendar.')).toBeVisible();
    await notary.getByRole('button', { name: 'Agenda' }).click();
    await notary.getByRole('button', { name: /^Event: Office hours, 9:00 AM – 10:00 AM/ }).click();
    const change = notary.getByRole('dialog', { name: 'Change the event' });
    await change.getByRole('button', { name: 'Delete' }).click();
    await notary.getByRole('dialog', { name: 'Delete “Office hours”?' }).getByRole('button', { name: 'Delete the event' }).click();
    await expect(notary.getByText('“Office hours” was deleted.')).toBeVisible();
    await expect(notary.getByRole('button', { name: /^Event: Office hours/ })).toHaveCount(0);
  });
});
