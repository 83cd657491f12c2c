import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { uniqueEmail } from './helpers.ts';
import { giveDetails, sendLicencePhotos, takeSelfieAndAnswer } from './identity-steps.ts';
import { apiCall, apiGet, claimInvitations, openRolePages, type RolePages } from './role-pages.ts';

/**
 * The identity step end to end: a signer starts the identity step on a computer, continues on a 390 px phone
 * from the resume link (ID photos uploaded, a selfie from the fake camera, the questions answered),
 * the computer carries on by itself, and the notary admits the signer to the session.
 */

async function noSeriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);
}

test.describe.serial('proving identity before the session', () => {
  let pages: RolePages;
  let desktop: Page;
  let phone: Page;
  let jobId = '';
  let documentId = '';

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    pages = await openRolePages(browser);
    const { title, notary } = pages;
    const me = await apiGet<{ user: { id: string } }>(notary.request, '/api/auth/me');
    const email = uniqueEmail('identity-signer');
    const job = await apiCall<{ id: string; version: number }>(title.request, 'post', '/api/jobs', {
      data: { title: 'Deed for Sam Signer', notarizationType: 'acknowledgment', notaryId: me.user.id, signers: [{ name: 'Sam Signer', email }] },
    });
    jobId = job.id;
    const uploaded = await apiCall<{ items: Array<{ id: string }> }>(title.request, 'post', `/api/jobs/${jobId}/documents`, {
      multipart: { files: { name: 'deed.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Deed') } },
    });
    documentId = uploaded.items[0]?.id ?? '';
    const current = await apiGet<{ version: number }>(title.request, `/api/jobs/${jobId}`);
    await apiCall(title.request, 'patch', `/api/jobs/${jobId}`, { data: { status: 'ready', version: current.version } });
    const [claimed] = await claimInvitations(
      [{ name: 'Sam Signer', email }],
      () => browser.newContext().then((context) => context.newPage()),
      'signer password',
    );
    if (!claimed) throw new Error('the invitation was not claimed');
    desktop = claimed;
    phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true })).newPage();
  });

  test.afterAll(async () => {
    await phone?.context().close();
    await desktop?.context().close();
    await pages?.close();
  });

  test('the computer asks for the details first and hands the rest to the phone', async () => {
    // The signer lands on their dashboard; the bell's notice leads to the identity step.
    await desktop.goto('/dashboard');
    await desktop.getByRole('button', { name: /^Notifications \(\d+\)$/ }).click();
    const notices = desktop.getByRole('region', { name: 'Notifications' });
    const notice = notices.getByRole('listitem').filter({ hasText: 'Your documents are ready: prove your identity before the session.' });
    await notice.getByRole('link', { name: 'Deed for Sam Signer' }).click();
    await expect(desktop).toHaveURL(new RegExp(`/session/${jobId}$`));
    await expect(notices).toHaveCount(0);
    await giveDetails(desktop);
    await desktop.getByRole('button', { name: 'Continue on your phone' }).click();
    const link = desktop.getByRole('link', { name: /\/verify\/resume\// });
    await expect(link).toBeVisible({ timeout: 15_000 });
    const url = (await link.getAttribute('href')) ?? '';
    expect(url).toMatch(/\/verify\/resume\/[\w-]{20,}$/);
    await phone.goto(new URL(url).pathname);
  });

  test('on the phone: ID photos uploaded and read, with no serious accessibility violation and no sideways scroll', async () => {
    await expect(phone.getByRole('heading', { name: 'Photograph your ID' })).toBeVisible({ timeout: 20_000 });
    await noSeriousViolations(phone);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await sendLicencePhotos(phone);
  });

  test('on the phone: a selfie from the camera, then the questions within the time limit', async () => {
    await takeSelfieAndAnswer(phone);
    await expect(phone.getByText('Done. Go back to your computer: it carries on by itself.')).toBeVisible({ timeout: 20_000 });
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  test('the computer carries on by itself, and the notary admits the signer', async () => {
    // The computer polled the check and moved on to the device check by itself.
    await expect(desktop.getByRole('region', { name: 'Camera and microphone' })).toBeVisible({ timeout: 30_000 });
    await expect(desktop.getByRole('heading', { name: 'Photograph your ID' })).toHaveCount(0);
    const { notary } = pages;
    const { sessionId } = await apiCall<{ sessionId: string }>(notary.request, 'post', '/api/video/session', { data: { jobId } });
    await apiCall(notary.request, 'post', `/api/jobs/${jobId}/session/join`, { data: { consentToRecording: true, deviceGroupId: 'notary-desk' } });
    await desktop.getByLabel(/I agree that this session is recorded/).check();
    const enter = desktop.getByRole('button', { name: 'Enter the room' });
    await expect(enter).toBeEnabled({ timeout: 30_000 });
    await enter.click();
    const waiting = await apiGet<{ participants: Array<{ participantId: string; name: string; lobbyState: string }> }>(
      notary.request,
      `/api/video/session/${sessionId}`,
    );
    const sam = waiting.participants.find((participant) => participant.name === 'Sam Signer');
    expect(sam?.lobbyState).toBe('waiting');
    await apiCall(notary.request, 'post', `/api/video/session/${sessionId}/participants/${sam?.participantId}/admit`);
    await expect(desktop.getByRole('region', { name: 'Video call' })).toBeVisible({ timeout: 30_000 });

    // The notary sees what was read and checked, beside the call, and confirms.
    const list = await apiGet<{
      items: Array<{ name: string; check: { status: string; credential: { status: string }; kba: { status: string }; selfie: { status: string } } | null }>;
    }>(notary.request, `/api/jobs/${jobId}/identity`);
    expect(list.items[0]?.check).toMatchObject({
      status: 'ready',
      credential: { status: 'passed' },
      kba: { status: 'passed' },
      selfie: { status: 'received' },
    });

    await apiCall(notary.request, 'post', `/api/video/session/${sessionId}/activate/notary-desk`);
    await notary.setViewportSize({ width: 390, height: 844 });
    await notary.goto(`/session/${jobId}/${documentId}`);
    await notary.locator('summary', { hasText: 'Identity' }).click();
    const review = notary.locator('details.identity-review');
    await expect(review.getByRole('img').first()).toBeVisible({ timeout: 20_000 });
    await expect(review.getByText('SIGNER').first()).toBeVisible();
    await review.getByLabel('Your reason for Sam Signer').fill('Face on camera matches the licence photo');
    await review.getByRole('button', { name: /^Confirm/ }).click();
    await expect
      .poll(
        async () =>
          (await apiGet<{ items: Array<{ check: { status: string } | null }> }>(notary.request, `/api/jobs/${jobId}/identity`)).items[0]?.check?.status,
        { timeout: 15_000 },
      )
      .toBe('confirmed');
    expect(await notary.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
