import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { expectAccessibleBothWays, openAdminPage, registerApprovedNotary, uniqueEmail } from './helpers.ts';

/**
 * The notary exports their records from the journal, downloads the archive and checks it on
 * /verify-archive with the network cut: it passes; a copy with one byte changed fails and the page
 * names the changed file.
 */

test.describe.configure({ mode: 'serial' });

let notary: Page;
let archivePath: string;
const workDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-archive-journey-'));

test.afterAll(() => fs.rmSync(workDirectory, { recursive: true, force: true }));

test('the notary builds the archive of their records on the journal page and downloads it', async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await openAdminPage(browser);
  notary = await (await browser.newContext({ acceptDownloads: true })).newPage();
  await registerApprovedNotary(notary, admin, 'Nora Archive', uniqueEmail('nora-archive'));
  await notary.goto('/dashboard?tab=journal');
  await notary.getByRole('button', { name: 'Build the archive' }).click();
  const download = notary.getByRole('link', { name: /^Download/ });
  await expect(download).toBeVisible({ timeout: 60_000 });
  const [file] = await Promise.all([notary.waitForEvent('download'), download.click()]);
  archivePath = path.join(workDirectory, file.suggestedFilename());
  await file.saveAs(archivePath);
  expect(fs.statSync(archivePath).size).toBeGreaterThan(1000);
});

test('the archive passes on the verification page with the network cut', async () => {
  await notary.getByRole('link', { name: 'Check a notary archive' }).click();
  await expect(notary).toHaveURL(/\/verify-archive$/);
  await expect(notary.getByRole('heading', { name: 'Check a notary archive' })).toBeVisible();
  await expect(notary.getByText('the file is not uploaded and nothing is sent anywhere')).toBeVisible();
  await notary.context().setOffline(true);
  await notary.getByLabel('Archive to check').setInputFiles(archivePath);
  await expect(notary.getByRole('heading', { name: 'Passed' })).toBeVisible({ timeout: 30_000 });
  await expect(notary.getByText(/Every check passed for the archive of Nora Archive/)).toBeVisible();
  await expect(notary.getByText(/manifest\.json\.p7s is a valid signature over manifest\.json/)).toBeVisible();
  await expectAccessibleBothWays(notary, 'the archive check that passed');
});

test('a copy with one byte changed fails, naming the changed file', async () => {
  const bytes = fs.readFileSync(archivePath);
  // The notary's own events in the archive; every entry is stored as is, so its bytes sit in the ZIP unchanged.
  const target = 'account/audit.json';
  const nameAt = bytes.indexOf(Buffer.from(target));
  const dataAt = bytes.indexOf(Buffer.from('"scope"'), nameAt);
  expect(dataAt).toBeGreaterThan(nameAt);
  const tampered = Buffer.from(bytes);
  tampered[dataAt + 12] = (tampered[dataAt + 12] as number) ^ 0x01;
  const tamperedPath = path.join(workDirectory, 'tampered.zip');
  fs.writeFileSync(tamperedPath, tampered);
  await notary.getByLabel('Archive to check').setInputFiles(tamperedPath);
  await expect(notary.getByRole('heading', { name: /problems? found/ })).toBeVisible({ timeout: 30_000 });
  const problems = notary.locator('.archive-files > li.has-problems');
  await expect(problems.first().getByRole('heading')).toContainText(target);
  await expect(problems.first()).toContainText(`${target} was changed: its SHA-256 is`);
  await expectAccessibleBothWays(notary, 'the archive check that failed');
  await notary.context().setOffline(false);
});
