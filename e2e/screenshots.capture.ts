import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { apiCall, apiGet, openRolePages, openRoute, type RolePages } from './role-pages.ts';

/**
 * The main screens for docs/screenshots/ (run by `npm run screenshots`): login, the dashboard of each
 * role, a job, the signing workspace on a desktop and on a 390 px phone, and /verify. The data comes
 * from the API, so each run shows the current pages with the same people and job.
 */

const folder = path.resolve('docs/screenshots');
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

async function capture(page: Page, name: string) {
  // Nothing may still be moving or loading: caret and animations off, fonts ready.
  await page.evaluate(() => document.fonts.ready);
  const file = path.join(folder, `${name}.png`);
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
  const size = fs.statSync(file).size;
  console.log(`${name}.png ${(size / 1024).toFixed(0)} KB`);
  expect(size, `${name}.png stays small enough for the README`).toBeLessThan(300 * 1024);
}

/** A signature image, drawn by the browser in a script-like font (what type mode does). */
function makeSignatureImage(page: Page, text: string): Promise<string> {
  return page.evaluate((name) => {
    const canvas = document.createElement('canvas');
    canvas.width = 600;
    canvas.height = 200;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2D canvas');
    context.fillStyle = '#0b2545';
    context.font = 'italic 72px "Great Vibes", "Dancing Script", cursive, serif';
    context.fillText(name, 30, 130);
    return canvas.toDataURL('image/png');
  }, text);
}

/** More of a real closing on the job: a date and the notary's fields; the signer has signed. */
async function furnishJob(pages: RolePages) {
  const { notary, signer, jobId, documentId } = pages;
  const base = `/api/jobs/${jobId}/documents/${documentId}/fields`;
  const assets = await apiGet<{ participants: Array<{ id: string; name: string }> }>(notary.request, `/api/jobs/${jobId}/signing-assets`);
  const sam = assets.participants.find((participant) => participant.name === 'Sam Signer');
  const place = (type: string, page: number, x: number, y: number, width: number, height: number, participantId: string | null) =>
    apiCall(notary.request, 'post', base, { data: { type, page, x, y, width, height, participantId } });
  await place('date_signed', 1, 0.12, 0.63, 0.2, 0.035, sam?.id ?? null);
  await place('notary_seal', 1, 0.62, 0.7, 0.22, 0.12, null);
  await place('notarial_certificate', 2, 0.1, 0.15, 0.8, 0.2, null);

  await signer.goto('/help');
  await apiCall(signer.request, 'post', '/api/signature', {
    data: { imageDataUrl: await makeSignatureImage(signer, 'Sam Signer'), method: 'type', hasAgreedToSignElectronically: true },
  });
  const fields = await apiGet<{ items: Array<{ id: string; type: string; participantId: string | null; version: number }> }>(signer.request, base);
  for (const field of fields.items.filter((item) => item.participantId === sam?.id && ['signature', 'date_signed'].includes(item.type))) {
    await apiCall(signer.request, 'post', `${base}/${field.id}/fill`, { data: { version: field.version } });
  }
}

test('the main screens, on a desktop and on a phone', async ({ browser }) => {
  fs.mkdirSync(folder, { recursive: true });
  const pages = await openRolePages(browser, { viewport: desktop });
  try {
    await furnishJob(pages);
    const { admin, notary, title, signer, anonymous, jobId, documentId } = pages;

    await openRoute(anonymous, '/login');
    await capture(anonymous, 'login');
    await openRoute(anonymous, '/verify');
    await capture(anonymous, 'verify');

    for (const [role, page] of [
      ['admin', admin],
      ['notary', notary],
      ['title-company', title],
      ['signer', signer],
    ] as const) {
      await openRoute(page, '/dashboard?tab=jobs');
      await expect(page.getByRole('link', { name: 'Refinance closing for Sam Signer' }).first()).toBeVisible();
      await capture(page, `dashboard-${role}`);
    }

    await openRoute(title, `/jobs/detail?jobId=${jobId}`);
    await capture(title, 'job');

    await openRoute(notary, `/signing/${jobId}/${documentId}`);
    await expect(notary.getByRole('img', { name: 'Signature for Sam Signer, signed' })).toBeVisible();
    await capture(notary, 'workspace-desktop');

    await signer.setViewportSize(phone);
    await openRoute(signer, `/signing/${jobId}/${documentId}`);
    await expect(signer.getByRole('img', { name: 'Signature for Sam Signer, signed' })).toBeVisible();
    await capture(signer, 'workspace-phone');
    await openRoute(signer, '/dashboard?tab=jobs');
    await capture(signer, 'dashboard-phone');
  } finally {
    await pages.close();
  }
});
