import { expect, test, type Browser, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { expectAccessibleBothWays, findSeriousViolations, openAdminPage, registerSigner, uniqueEmail } from './helpers.ts';
import { apiCall, apiGet, claimInvitations, createApprovedNotary, storeUserInPage } from './role-pages.ts';

/**
 * Entering the live session (decision 023): the pre-join checks with Chromium's fake camera and
 * microphone, consent, the lobby, the notary admitting and denying, and the pages on a phone.
 */

const jobTitle = 'Session entry closing';
const phone = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

function failOnNativeDialogs(page: Page) {
  page.on('dialog', (dialog) => {
    throw new Error(`A native ${dialog.type()} appeared: ${dialog.message()}`);
  });
}

async function newPage(browser: Browser, pages: Page[], options = {}) {
  const page = await (await browser.newContext(options)).newPage();
  failOnNativeDialogs(page);
  pages.push(page);
  return page;
}

async function expectNoSeriousViolations(page: Page, where: string) {
  expect.soft(await findSeriousViolations(page), where).toEqual([]);
}

async function expectFitsPhone(page: Page, where: string) {
  expect.soft(await page.evaluate(() => document.documentElement.scrollWidth), `${where} is wider than the phone`).toBeLessThanOrEqual(390);
}

test.describe.serial('entering the live session', () => {
  const opened: Page[] = [];
  let notary: Page;
  let signer: Page;
  let denied: Page;
  let observer: Page;
  let jobId = '';
  let documentId = '';

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    const admin = await openAdminPage(browser);
    opened.push(admin);
    notary = await newPage(browser, opened);
    const notaryId = await createApprovedNotary(notary, admin, 'Nell Notary');
    await storeUserInPage(notary);
    const people = [
      { name: 'Sam Signer', email: uniqueEmail('entry-signer'), role: 'signer' },
      { name: 'Dee Denied', email: uniqueEmail('entry-denied'), role: 'signer' },
      { name: 'Olive Observer', email: uniqueEmail('entry-observer'), role: 'observer' },
    ];
    const job = await apiCall<{ id: string; version: number }>(notary.request, 'post', '/api/jobs', {
      data: { title: jobTitle, notarizationType: 'acknowledgment', notaryId, signers: people },
    });
    jobId = job.id;
    const uploaded = await apiCall<{ items: Array<{ id: string }> }>(notary.request, 'post', `/api/jobs/${jobId}/documents`, {
      multipart: { files: { name: 'entry-deed.pdf', mimeType: 'application/pdf', buffer: await makePdf(2, 'Entry deed') } },
    });
    documentId = uploaded.items[0]?.id ?? '';
    const current = await apiGet<{ version: number }>(notary.request, `/api/jobs/${jobId}`);
    await apiCall(notary.request, 'patch', `/api/jobs/${jobId}`, { data: { status: 'ready', version: current.version } });
    const claimed = await claimInvitations(people, () => newPage(browser, opened), 'entry password');
    [signer, denied, observer] = claimed as [Page, Page, Page];
    // Entering is what this journey is about, not the identity step (identity-journey.spec): the notary
    // lets the signers past it as people they know personally (a bypass the state allows).
    const onJob = await apiGet<{ participants: Array<{ id: string; role: string }> }>(notary.request, `/api/jobs/${jobId}`);
    for (const participant of onJob.participants.filter((item) => item.role === 'signer')) {
      await apiCall(notary.request, 'post', `/api/jobs/${jobId}/signers/${participant.id}/id-bypass`, {
        data: { enabled: true, reason: 'Identity step not under test here', method: 'personal_knowledge' },
      });
    }
  });

  test.afterAll(async () => {
    for (const page of opened) await page.context().close();
  });

  /** The notary is present only while heard from in the last 90 s; the room sends these, and this page has no room. */
  async function keepNotaryPresent() {
    const place = await apiGet<{ session: { sessionId: string } }>(notary.request, `/api/jobs/${jobId}/can-enter`);
    await apiCall(notary.request, 'post', '/api/video/heartbeat', { data: { sessionId: place.session.sessionId, role: 'notary' } });
  }

  test('/session says plainly when a person has no session to enter', async ({ browser }) => {
    const stranger = await newPage(browser, opened, phone);
    await registerSigner(stranger, 'Nico Nobody', uniqueEmail('entry-nobody'), 'nobody password');
    await stranger.goto('/session');
    await expect(stranger.getByRole('heading', { name: 'No sessions to enter' })).toBeVisible();
    await expect(stranger.getByText('A session appears here when a job you notarize, sign, witness or observe is ready')).toBeVisible();
    await expectNoSeriousViolations(stranger, '/session, empty');
    await expectFitsPhone(stranger, '/session, empty');
  });

  test('/session lists the signer’s job with Enter, which opens its pre-join screen', async () => {
    await signer.goto('/session');
    const row = signer.getByRole('list', { name: 'Your sessions' }).getByRole('listitem').filter({ hasText: jobTitle });
    await expect(row).toContainText('You sign');
    await expect(row).toContainText('The notary has not opened the session yet.');
    await row.getByRole('link', { name: `Enter the session of ${jobTitle}` }).click();
    await expect(signer).toHaveURL(new RegExp(`/session/${jobId}$`));
  });

  test('the pre-join screen shows the devices, a moving microphone level and the network check', async () => {
    await signer.goto(`/session/${jobId}`);
    const camera = signer.getByLabel('Camera', { exact: true });
    await expect(camera.locator('option')).not.toHaveCount(0);
    // Labels come once permission is granted: Chromium's fake devices are named.
    await expect(camera.locator('option').first()).not.toHaveText(/^Camera \d+$/);
    await expect(signer.getByLabel('Microphone', { exact: true }).locator('option')).not.toHaveCount(0);
    const video = signer.getByLabel('Your camera, as others will see you');
    await expect.poll(() => video.evaluate((element: HTMLVideoElement) => element.videoWidth), { timeout: 10_000 }).toBeGreaterThan(0);
    const meter = signer.getByLabel('Microphone level');
    // The fake microphone beeps: the meter rises above silence within a few seconds.
    await expect.poll(() => meter.evaluate((element: HTMLMeterElement) => element.value), { timeout: 10_000, intervals: [100] }).toBeGreaterThan(0.01);
    await expect(signer.getByText(/^The server answered in \d+ ms\.$/)).toBeVisible();
    await expect(signer.getByText('Your browser can make video connections.')).toBeVisible();
    await expect(signer.getByText('The notary has not opened the session yet.')).toBeVisible();
    await expect(signer.getByText(/^The identity questions of this platform come from its development provider/)).toBeVisible();
    await expect(signer.getByRole('button', { name: 'Enter the room' })).toBeDisabled();
    await expectNoSeriousViolations(signer, '/session/:jobId, pre-join');
  });

  test('the notary opens the session from the pre-join screen and is taken to the room', async () => {
    await notary.goto(`/session/${jobId}`);
    await notary.getByLabel(/I agree that this session is recorded/).check();
    await notary.getByRole('button', { name: 'Enter the room' }).click();
    await expect(notary).toHaveURL(new RegExp(`/session/${jobId}/${documentId}$`));
    const choice = await notary.evaluate((id) => sessionStorage.getItem(`session_devices:${id}`), jobId);
    expect(JSON.parse(choice ?? '{}')).toMatchObject({ deviceGroupId: expect.stringMatching(/^dg-/), videoOff: false, audioMuted: false });
    // Back on the entry page, the notary who is in the session has its controls.
    await notary.goto(`/session/${jobId}`);
    await expect(notary.getByRole('heading', { name: 'Session controls' })).toBeVisible();
    await expect(notary.getByRole('button', { name: 'Return to the room' })).toBeVisible();
  });

  test('entering needs consent to the recording', async () => {
    await keepNotaryPresent();
    await signer.goto(`/session/${jobId}`);
    const enter = signer.getByRole('button', { name: 'Enter the room' });
    await expect(enter).toBeEnabled();
    await enter.click();
    await expect(signer.getByRole('alert').filter({ hasText: 'You must agree to the session being recorded to enter it.' })).toBeVisible();
    await expect(signer.getByLabel(/I agree that this session is recorded/)).toBeFocused();
    await expect(signer.getByText('The notary will let you in')).toHaveCount(0);
    const place = await apiGet<{ session: { lobbyState: string | null } }>(signer.request, `/api/jobs/${jobId}/can-enter`);
    expect(place.session.lobbyState).toBeNull();
  });

  test('a signer waits in the lobby, the notary admits them, and they are sent to the room', async () => {
    await keepNotaryPresent();
    await signer.getByLabel(/I agree that this session is recorded/).check();
    await signer.getByRole('button', { name: 'Enter the room' }).click();
    await expect(signer.getByText('The notary will let you in')).toBeVisible();
    await expectNoSeriousViolations(signer, '/session/:jobId, lobby');

    const waiting = notary.getByRole('list', { name: 'Waiting to be let in' });
    await expect(waiting).toContainText('Sam Signer');
    await waiting.getByRole('button', { name: 'Admit Sam Signer' }).click();
    await expect(notary.getByRole('list', { name: 'In the session' })).toContainText('Sam Signer');
    await expect(signer).toHaveURL(new RegExp(`/session/${jobId}/${documentId}$`), { timeout: 15_000 });
  });

  test('the notary sees an observer marked as not signing, and a denied signer is told', async () => {
    await keepNotaryPresent();
    for (const page of [observer, denied]) {
      await page.goto(`/session/${jobId}`);
      await page.getByLabel(/I agree that this session is recorded/).check();
      await page.getByRole('button', { name: 'Enter the room' }).click();
      await expect(page.getByText('The notary will let you in')).toBeVisible();
    }
    await expect(observer.getByText('You are an observer: you will see and hear the session, and you do not sign.')).toBeVisible();
    const waiting = notary.getByRole('list', { name: 'Waiting to be let in' });
    await expect(waiting.getByRole('listitem').filter({ hasText: 'Olive Observer' })).toContainText('observes, does not sign');
    await expectNoSeriousViolations(notary, '/session/:jobId, session controls');

    await waiting.getByRole('button', { name: 'Deny Dee Denied' }).click();
    const dialog = notary.getByRole('dialog', { name: 'Keep Dee Denied out of the session?' });
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    await expect(waiting).not.toContainText('Dee Denied');
    await expect(denied.getByText('The notary did not admit you to this session.')).toBeVisible({ timeout: 15_000 });
    await expect(denied).toHaveURL(new RegExp(`/session/${jobId}$`));
  });

  test('the notary starts the session, records it, and everyone sees the recording indicator', async () => {
    // One start: the notarization and its recording together.
    await expect(notary.getByRole('button', { name: 'Start recording' })).toHaveCount(0);
    await notary.getByRole('button', { name: 'Start the notarization' }).click();
    await expect(notary.getByText('The notarization has started and is being recorded.').first()).toBeVisible();
    const indicatorOf = (page: Page) => page.getByRole('status').filter({ hasText: 'This session is being recorded' });
    await expect(indicatorOf(notary)).toContainText(/^Recording/);
    await expect(indicatorOf(notary).locator('.recording-dot')).toBeVisible();
    // The observer still waiting is told too.
    await expect(indicatorOf(observer)).toBeVisible({ timeout: 15_000 });
  });

  test('the pre-join, lobby and controls fit a 390 px phone', async ({ browser }) => {
    for (const [page, where] of [
      [notary, 'session controls'],
      [observer, 'lobby'],
    ] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await expectFitsPhone(page, where);
    }
    const phonePage = await newPage(browser, opened, phone);
    await phonePage.context().addCookies(await signer.context().cookies());
    await phonePage.goto('/help');
    await phonePage.evaluate((user) => sessionStorage.setItem('user', user ?? ''), await signer.evaluate(() => sessionStorage.getItem('user')));
    await phonePage.goto(`/session/${jobId}`);
    await expect(phonePage.getByLabel('Microphone level')).toBeVisible();
    await expectFitsPhone(phonePage, 'pre-join');
    const enter = await phonePage.getByRole('button', { name: /Enter the room|Return to the room/ }).boundingBox();
    expect(enter?.height ?? 0).toBeGreaterThanOrEqual(44);
  });

  test('the observer, let in, finds the room accessible on a desktop and on a 390 px phone', async () => {
    await observer.setViewportSize({ width: 1280, height: 720 });
    await keepNotaryPresent();
    await notary.getByRole('list', { name: 'Waiting to be let in' }).getByRole('button', { name: 'Admit Olive Observer' }).click();
    await expect(observer).toHaveURL(new RegExp(`/session/${jobId}/${documentId}$`), { timeout: 15_000 });
    await expect(observer.getByRole('region', { name: 'Video call' })).toBeVisible();
    await expect(observer.getByRole('status').filter({ hasText: 'This session is being recorded' })).toBeVisible({ timeout: 15_000 });
    await expectAccessibleBothWays(observer, 'the room, observer');
  });

  test('the notary ends the session for everyone and reads what happens next', async () => {
    await notary.getByRole('button', { name: 'End the session' }).click();
    await notary.getByRole('dialog', { name: 'End the session for everyone?' }).getByRole('button', { name: 'End the session' }).click();
    // Ending stores the recording's last segments, then finalizes, showing each step as it goes: two
    // server calls that took 6.5 s together on a loaded machine, past the default 5 s.
    await expect(notary).toHaveURL(new RegExp(`/session/complete\\?jobId=${jobId}$`), { timeout: 20_000 });
    await expect(notary.getByRole('heading', { name: 'The session has ended' })).toBeVisible();
    await expect(notary.getByText('The job was not sealed in this session, so it is back to ready.', { exact: false })).toBeVisible();
    await expectNoSeriousViolations(notary, '/session/complete');
    await expectFitsPhone(notary, '/session/complete');
    // The observer, in the room by now, is sent to the same page, with their own next step.
    await expect(observer).toHaveURL(new RegExp(`/session/complete\\?jobId=${jobId}$`), { timeout: 15_000 });
    await expect(observer.getByText('Nothing more is needed from you.')).toBeVisible();
  });
});
