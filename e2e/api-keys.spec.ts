import { expect, request, test, type Page } from '@playwright/test';
import { findSeriousViolations, openAdminPage, uniqueEmail, waitForMail } from './helpers.ts';
import { apiCall, baseUrl } from './role-pages.ts';

async function expectAccessible(page: Page) {
  expect(await findSeriousViolations(page)).toEqual([]);
}

/** The jobs list as an integration calls it: with the key alone, no cookie. */
async function listJobsWithKey(key: string) {
  const integration = await request.newContext({ baseURL: baseUrl() });
  try {
    const response = await integration.get('/api/jobs', { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status(), body: (await response.json()) as { items?: Array<{ id: string; title: string }>; error?: string; message?: string } };
  } finally {
    await integration.dispose();
  }
}

test('title staff make an API key, call the API with it, revoke it, and open the API reference', async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await openAdminPage(browser);
  const companyName = `Keystone Title ${Date.now().toString(36)}`;
  const staffEmail = uniqueEmail('key-staff');
  await apiCall(admin.request, 'post', '/api/title-companies', {
    data: { name: companyName, city: 'Richmond', state: 'VA', owner: { name: 'Kim Keys', email: staffEmail } },
  });

  // The title staff member accepts the invitation from the mailbox and files a job.
  const staff = await (await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] })).newPage();
  const mail = await waitForMail(staffEmail, new RegExp(`Join ${companyName}`));
  const claim = mail.text.match(/https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/)?.[0];
  if (!claim) throw new Error('no invitation link in the mail');
  await staff.goto(new URL(claim).pathname);
  await staff.getByLabel('Full name').fill('Kim Keys');
  await staff.getByLabel('Password', { exact: true }).fill('company password 1');
  await staff.getByLabel('Confirm password').fill('company password 1');
  await staff.getByRole('button', { name: 'Create account' }).click();
  await expect(staff.getByText('Welcome, Kim Keys')).toBeVisible();
  const job = await apiCall<{ id: string }>(staff.request, 'post', '/api/jobs', {
    data: { title: 'Refinance of 4 Key Ln', notarizationType: 'acknowledgment' },
  });

  // From the sidebar to the company page, where the keys panel is.
  await staff.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Company' }).click();
  await expect(staff.getByRole('heading', { name: companyName, level: 1 })).toBeVisible();
  const panel = staff.getByRole('region', { name: 'API keys' });
  await expect(panel.getByText('No API keys in use.')).toBeVisible();
  await panel.getByLabel('Name').fill('Closing software');
  await panel.getByRole('checkbox', { name: /Write jobs/ }).check();
  await panel.getByRole('button', { name: 'Make API key' }).click();

  // Shown once, with a copy button.
  const shown = panel.getByTestId('new-api-key');
  await expect(shown).toHaveText(/^ronk_[A-Za-z0-9_-]{43}$/);
  const key = (await shown.textContent()) ?? '';
  await panel.getByRole('button', { name: 'Copy key' }).click();
  await expect(panel.getByText('Copied to the clipboard.')).toBeVisible();
  expect(await staff.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await expectAccessible(staff);
  await panel.getByRole('button', { name: 'I have saved it' }).click();
  await expect(panel.getByTestId('new-api-key')).toHaveCount(0);
  const keys = panel.getByRole('list', { name: 'API keys in use' });
  await expect(keys.getByRole('heading', { name: 'Closing software' })).toBeVisible();
  await expect(keys.getByText('Never used')).toBeVisible();
  await expect(keys.getByText(key.slice(0, 13))).toBeVisible();
  await expect(staff.getByText(key)).toHaveCount(0);

  // An integration calls the API with the key and sees the company's job.
  const listed = await listJobsWithKey(key);
  expect(listed.status).toBe(200);
  expect(listed.body.items?.map((item) => item.id)).toEqual([job.id]);
  await staff.reload();
  await expect(staff.getByRole('list', { name: 'API keys in use' }).getByText(/^Last used /)).toBeVisible();

  // Revoked after a question, the key is refused at once.
  await staff
    .getByRole('region', { name: 'API keys' })
    .getByRole('button', { name: /Revoke/ })
    .click();
  const question = staff.getByRole('dialog', { name: 'Revoke the API key “Closing software”?' });
  await expect(question).toBeVisible();
  await question.getByRole('button', { name: 'Revoke key' }).click();
  await expect(staff.getByText('The key “Closing software” is revoked; calls with it are refused from now on.')).toBeVisible();
  const refused = await listJobsWithKey(key);
  expect(refused.status).toBe(401);
  expect(refused.body.error).toBe('api_key_invalid');
  await expect(staff.getByText('Revoked keys (1)')).toBeVisible();

  // The API reference, from the panel: searchable, with who may call each operation.
  await staff.getByRole('region', { name: 'API keys' }).getByRole('link', { name: 'API reference' }).click();
  await expect(staff.getByRole('heading', { name: 'API reference', level: 1 })).toBeVisible();
  await staff.getByLabel('Search operations').fill('jobs:read');
  const readJob = staff.locator('details').filter({ hasText: '/api/jobs/{id}' }).filter({ hasText: 'API key: jobs:read' }).first();
  await readJob.locator('summary').click();
  await expect(readJob.getByText(/Who may call: Anyone signed in/)).toBeVisible();
  await expect(readJob.getByRole('table', { name: 'Parameters' })).toBeVisible();
  await expectAccessible(staff);
});
