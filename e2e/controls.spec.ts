import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { openAdminPage, registerApprovedNotary, uniqueEmail, waitForMail } from './helpers.ts';

/** No serious or critical accessibility violation on what the page shows now. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.id}: ${violation.help}`),
  ).toEqual([]);
}

/** Drops files on a drop zone the way a browser does: a drop event carrying them. */
async function dropFiles(page: Page, files: Array<{ name: string; type: string; base64: string }>) {
  const dataTransfer = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const file of list)
      transfer.items.add(new File([Uint8Array.from(atob(file.base64), (character) => character.charCodeAt(0))], file.name, { type: file.type }));
    return transfer;
  }, files);
  const zone = page.getByTestId('drop-zone');
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await expect(zone).toHaveClass(/is-over/);
  await zone.dispatchEvent('drop', { dataTransfer });
}

test.describe.serial('controls: role homes, the notary picker, drop zones and the new-job dialog', () => {
  const notaryName = `Quinn Quill ${Date.now().toString(36)}`;
  const jobTitle = 'Quitclaim deed';
  let company: Page;
  let notary: Page;
  let signerEmail = '';

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    const admin = await openAdminPage(browser);
    notary = await (await browser.newContext()).newPage();
    await registerApprovedNotary(notary, admin, notaryName, uniqueEmail('quill'));

    company = await (await browser.newContext()).newPage();
    await company.goto('/register/title-company');
    await company.getByLabel('Company name').fill('Controls Title');
    await company.getByLabel('Your full name').fill('Cleo Company');
    await company.getByLabel('Email').fill(uniqueEmail('cleo'));
    await company.getByLabel('Password', { exact: true }).fill('company password');
    await company.getByLabel('Confirm password').fill('company password');
    await company.getByRole('button', { name: 'Create account' }).click();
    await expect(company.getByText(/Your title company account is pending approval/)).toBeVisible();
    const pending = (await (await admin.request.get('/api/title-companies/pending')).json()) as { items: Array<{ id: string; name: string }> };
    const id = pending.items.find((item) => item.name === 'Controls Title')?.id;
    const approved = await admin.request.post(`/api/title-companies/${id}/approve`, { headers: { origin: new URL(admin.url()).origin } });
    expect(approved.status()).toBe(200);
    await admin.context().close();
  });

  test.afterAll(async () => {
    await company?.context().close();
    await notary?.context().close();
  });

  test('the title company’s home counts its jobs by status, in sentences', async () => {
    await company.goto('/dashboard?tab=jobs');
    const home = company.getByRole('region', { name: 'Your jobs by status' });
    await expect(home.getByText('You have no jobs yet. Use New Signing Request to create one.')).toBeVisible();
    await expect(home.getByRole('button', { name: 'Draft 0 jobs' })).toBeVisible();
    await expectAccessible(company);
  });

  test('the empty new-job dialog highlights each field with its message and focuses the first', async () => {
    await company.getByRole('button', { name: 'New Signing Request' }).click();
    const dialog = company.getByRole('dialog', { name: 'New Signing Request' });
    await dialog.getByRole('button', { name: 'Create signing request' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Please correct the highlighted fields.');
    const title = dialog.getByLabel('Title');
    await expect(title).toHaveAttribute('aria-invalid', 'true');
    await expect(title).toHaveAccessibleDescription('Enter a title for the job.');
    await expect(title).toBeFocused();

    await title.fill(jobTitle);
    await dialog.getByLabel('Name 1').fill('Sam Quill');
    await dialog.getByRole('button', { name: 'Create signing request' }).click();
    const email = dialog.getByLabel('Email 1');
    await expect(email).toHaveAttribute('aria-invalid', 'true');
    await expect(email).toHaveAccessibleDescription('Enter a valid email address.');
    await expect(email).toBeFocused();
    await expect(title).not.toHaveAttribute('aria-invalid', 'true');
    signerEmail = uniqueEmail('sam-quill');
    await email.fill(signerEmail);
  });

  test('the notary is chosen by keyboard from a searchable list showing name, county and state', async () => {
    const dialog = company.getByRole('dialog', { name: 'New Signing Request' });
    const picker = dialog.getByRole('combobox', { name: 'Notary (optional)' });
    await picker.focus();
    await company.keyboard.type('arlington');
    const options = dialog.getByRole('listbox', { name: 'Notary (optional)' }).getByRole('option');
    await expect(options.filter({ hasText: notaryName })).toContainText('Arlington County, Virginia');
    const box = await options.first().boundingBox();
    expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    await expectAccessible(company);

    // Escape closes the list, not the dialog around it.
    await company.keyboard.press('Escape');
    await expect(picker).toHaveAttribute('aria-expanded', 'false');
    await expect(dialog).toBeVisible();
    await picker.fill('');
    // A hurried Down and Enter while the search runs never picks a notary from the previous list.
    const typed = notaryName.split(' ')[2] ?? '';
    await company.keyboard.type(typed);
    await company.keyboard.press('ArrowDown');
    await company.keyboard.press('Enter');
    expect([typed, notaryName]).toContain(await picker.inputValue());
    await expect(dialog).toBeVisible();
    await picker.fill('');
    await company.keyboard.type(typed);
    await expect(options).toHaveCount(1);
    await company.keyboard.press('ArrowDown');
    await expect(picker).toHaveAttribute('aria-activedescendant', /.+/);
    await expect(options.first()).toHaveAttribute('aria-selected', 'true');
    await company.keyboard.press('Enter');
    await expect(picker).toHaveValue(notaryName);
    await expect(picker).toHaveAttribute('aria-expanded', 'false');
    await expect(dialog).toBeVisible();

    await dialog.getByRole('button', { name: 'Create signing request' }).click();
    await expect(company.getByText(`Created "${jobTitle}".`)).toBeVisible();
    const home = company.getByRole('region', { name: 'Your jobs by status' });
    await expect(home.getByText('You have 1 draft to finish.')).toBeVisible();
    await home.getByRole('button', { name: 'Draft 1 job' }).click();
    await expect(home.getByRole('button', { name: 'Draft 1 job' })).toHaveAttribute('aria-pressed', 'true');
    await expect(company).toHaveURL(/status=draft/);
    await expect(company.getByLabel('Status', { exact: true })).toHaveValue('draft');
  });

  test('documents are dropped or chosen with a keyboard-reachable button; a wrong file is refused with the reason', async () => {
    await company.getByRole('link', { name: jobTitle }).click();
    await expect(company.getByRole('heading', { name: jobTitle })).toBeVisible();
    await expect(company.getByText('PDFs up to 50 MB each.', { exact: false })).toBeVisible();
    await dropFiles(company, [{ name: 'notes.txt', type: 'text/plain', base64: Buffer.from('not a pdf').toString('base64') }]);
    await expect(company.getByRole('alert')).toHaveText('notes.txt is not a PDF.');

    const pdf = await makePdf(1, 'Quitclaim deed');
    await dropFiles(company, [{ name: 'quitclaim.pdf', type: 'application/pdf', base64: pdf.toString('base64') }]);
    const documents = company.getByRole('list', { name: 'Documents in signing order' }).getByRole('listitem');
    await expect(documents).toHaveCount(1);
    await expect(company.getByRole('alert')).toHaveCount(0);

    const choose = company.getByRole('button', { name: 'Choose PDFs' });
    await choose.focus();
    const chooser = company.waitForEvent('filechooser');
    await company.keyboard.press('Enter');
    await (await chooser).setFiles([{ name: 'rider.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Rider') }]);
    await expect(documents).toHaveCount(2);
  });

  test('the job page offers the title company one primary action and never "Start session"', async () => {
    const actions = company.getByRole('group', { name: 'Actions on this job' });
    await expect(actions.locator('.button.primary')).toHaveCount(1);
    await expect(actions.locator('.button.primary')).toHaveText('Mark ready');
    await expect(actions.getByRole('button', { name: 'Start session' })).toHaveCount(0);
    await expectAccessible(company);

    // The notary is changed with the same picker, by keyboard.
    const picker = company.getByRole('combobox', { name: 'Change the notary' });
    await expect(picker).toHaveValue(notaryName);
    await company.getByRole('button', { name: 'Clear the notary' }).click();
    await expect(company.getByText('The notary was removed.')).toBeVisible();
    await picker.focus();
    await company.keyboard.type('VA');
    await expect(company.getByRole('option').filter({ hasText: notaryName })).toBeVisible();
    await company.getByRole('option').filter({ hasText: notaryName }).click();
    await expect(company.getByText(`${notaryName} is now the notary.`)).toBeVisible();

    await actions.getByRole('button', { name: 'Mark ready' }).click();
    await expect(company.getByText('The job is now ready.')).toBeVisible();
    await expect(actions.locator('.button.primary')).toHaveText('Open signing workspace');
    await expect(actions.getByRole('button', { name: 'Start session' })).toHaveCount(0);
    await expect(actions.getByRole('button', { name: 'Back to draft' })).toBeVisible();
  });

  test('the notary’s home lists the job ready for review', async () => {
    await notary.goto('/dashboard?tab=jobs');
    const toReview = notary.getByRole('region', { name: 'Ready for you to review' });
    await expect(toReview.getByText(jobTitle)).toBeVisible();
    await expect(toReview.getByRole('link', { name: `Review the job: ${jobTitle}` })).toBeVisible();
    await expect(notary.getByRole('region', { name: 'Today’s sessions' }).getByText('You have no sessions scheduled today.')).toBeVisible();
  });

  test('the signer’s home lists the job waiting for them, with what happens next', async ({ browser }) => {
    const invitation = await waitForMail(signerEmail, new RegExp(`You are invited to sign "${jobTitle}"`));
    const link = invitation.text.match(/https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/)?.[0] ?? '';
    const signer = await (await browser.newContext()).newPage();
    await signer.goto(link);
    await signer.getByLabel('Full name').fill('Sam Quill');
    await signer.getByLabel('Password', { exact: true }).fill('signer password');
    await signer.getByLabel('Confirm password').fill('signer password');
    await signer.getByRole('button', { name: 'Create account' }).click();
    await expect(signer).toHaveURL(/\/jobs\/detail\?jobId=/);
    // The job is ready: the signer's next step is the identity step.
    await expect(signer.getByRole('group', { name: 'Actions on this job' }).locator('.button.primary')).toHaveText('Prove your identity');

    await signer.goto('/dashboard?tab=jobs');
    const waiting = signer.getByRole('region', { name: 'Waiting for you' });
    await expect(waiting.getByText(jobTitle)).toBeVisible();
    await expect(
      waiting.getByText('The documents are ready. Prove your identity and check your camera now; you enter when the notary opens the session.'),
    ).toBeVisible();
    await expect(waiting.getByRole('link', { name: `Get ready for the session: ${jobTitle}` })).toBeVisible();
    await expectAccessible(signer);
    await signer.context().close();
  });
});
