import { expect, test, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { addPdfs, findSeriousViolations, openAdminPage, registerApprovedNotary, uniqueEmail, waitForMail } from './helpers.ts';

async function expectAccessible(page: Page) {
  expect(await findSeriousViolations(page)).toEqual([]);
}

/** The path of the first Open RON link in a mail, to open in this test's server whatever host the mail names. */
function linkPath(text: string, pattern: RegExp): string {
  const found = text.match(pattern);
  if (!found) throw new Error(`no link matching ${pattern} in: ${text}`);
  return new URL(found[0]).pathname;
}

/** Opens an invitation from the mailbox and creates the account it offers. */
async function acceptInvitationAsNewPerson(page: Page, email: string, name: string, companyName: string) {
  const mail = await waitForMail(email, new RegExp(`Join ${companyName}`));
  await page.goto(linkPath(mail.text, /https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/));
  await expect(page.getByText(`You are invited to join ${companyName}`)).toBeVisible();
  await page.getByLabel('Full name').fill(name);
  await page.getByLabel('Password', { exact: true }).fill('company password 1');
  await page.getByLabel('Confirm password').fill('company password 1');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText(`Welcome, ${name}`)).toBeVisible();
}

test('an administrator opens a title company, its staff invite an agent, the agent files a job from a job type with the default notary, and loses it when removed', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const admin = await openAdminPage(browser);
  const notaryName = 'Dena Default';
  await registerApprovedNotary(await (await browser.newContext()).newPage(), admin, notaryName, uniqueEmail('default-notary'));
  const companyName = `Harbor Title ${Date.now().toString(36)}`;
  const staffEmail = uniqueEmail('staff');
  const agentEmail = uniqueEmail('agent');

  // The administrator creates the company from the sidebar, inviting its first title staff member.
  await admin.goto('/dashboard?tab=jobs');
  await admin.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Title companies' }).click();
  await admin.getByRole('link', { name: 'New title company' }).click();
  await admin.getByLabel('Company name').fill(companyName);
  await admin.getByLabel('City').fill('Richmond');
  await admin.getByLabel('State').selectOption('VA');
  await admin.getByLabel('Their full name').fill('Tess Title');
  await admin.getByLabel('Their email').fill(staffEmail);
  await admin.getByRole('button', { name: 'Create the company' }).click();
  await expect(admin.getByRole('heading', { name: companyName, level: 1 })).toBeVisible();
  await expectAccessible(admin);

  // The title staff member accepts from the mailbox, then sets the default notary, a job type and invites an agent.
  const staff = await (await browser.newContext()).newPage();
  await acceptInvitationAsNewPerson(staff, staffEmail, 'Tess Title', companyName);
  await staff.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Company' }).click();
  await expect(staff.getByRole('heading', { name: companyName, level: 1 })).toBeVisible();
  const picker = staff.getByRole('combobox', { name: 'Choose the default notary' });
  await picker.focus();
  await staff.keyboard.type('VA');
  await staff.getByRole('option').filter({ hasText: notaryName }).click();
  await expect(staff.getByText(`New jobs of this company get ${notaryName}`)).toBeVisible();

  await staff.getByRole('button', { name: 'New job type' }).click();
  const typeDialog = staff.getByRole('dialog');
  await typeDialog.getByLabel('Name').fill('Deed of trust');
  await typeDialog.getByLabel('Notarization type').selectOption('acknowledgment');
  await typeDialog.getByLabel('Identification').check();
  await typeDialog.getByLabel('Instructions for the notary (optional)').fill('Every borrower initials each page.');
  await typeDialog.getByRole('button', { name: 'Add job type' }).click();
  await expect(staff.getByRole('list', { name: 'Job types' }).getByRole('heading', { name: 'Deed of trust' })).toBeVisible();

  await staff.getByRole('button', { name: 'Invite someone' }).click();
  const inviteDialog = staff.getByRole('dialog');
  await inviteDialog.getByLabel('Full name').fill('Andy Agent');
  await inviteDialog.getByLabel('Email').fill(agentEmail);
  await inviteDialog.getByRole('button', { name: 'Send invitation' }).click();
  await expect(staff.getByText('Andy Agent').first()).toBeVisible();
  await expectAccessible(staff);

  // The agent accepts and files a job from the job type; the company's default notary comes with it.
  const agent = await (await browser.newContext()).newPage();
  await acceptInvitationAsNewPerson(agent, agentEmail, 'Andy Agent', companyName);
  await agent.getByRole('button', { name: 'New Signing Request' }).click();
  const request = agent.getByRole('dialog');
  await request.getByLabel('Title', { exact: true }).fill('Harbor refinance');
  await request.getByLabel('Job type (optional)').selectOption({ label: 'Deed of trust' });
  await expect(request.getByRole('status').filter({ hasText: `the job gets ${notaryName}` })).toBeVisible();
  await request.getByRole('button', { name: 'Create signing request' }).click();
  await agent.getByRole('link', { name: 'Open the new job' }).click();
  await expect(agent.getByRole('heading', { name: 'Harbor refinance', level: 1 })).toBeVisible();
  await expect(agent.locator('dl.facts dd').filter({ hasText: notaryName })).toBeVisible();
  await expect(agent.getByText('Every borrower initials each page.')).toBeVisible();
  // The upload starts on the job type's first document tag (decision 043), and the document gets it.
  await expect(agent.getByLabel('Tag of the PDFs you add')).toHaveValue('identification');
  await expect(agent.getByText('Jobs of the type “Deed of trust” usually carry: identification.')).toBeVisible();
  await addPdfs(agent, [{ name: 'borrower-id.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Borrower ID') }]);
  const uploaded = agent.getByRole('list', { name: 'Documents in signing order' }).getByRole('listitem');
  await expect(uploaded.filter({ hasText: 'borrower-id.pdf' })).toContainText('Identification');

  // With the jobs list open, the agent is removed by the administrator: the list loses the company's job at once.
  await agent.getByRole('link', { name: 'Dashboard Home' }).click();
  const jobLink = agent.getByRole('link', { name: /Harbor refinance/ }).first();
  await expect(jobLink).toBeVisible();
  await admin.getByRole('complementary', { name: 'Main navigation' }).getByRole('link', { name: 'Title companies' }).click();
  await admin.getByRole('link', { name: companyName }).click();
  await admin.getByRole('button', { name: 'Remove Andy Agent' }).click();
  const confirm = admin.getByRole('dialog', { name: `Remove Andy Agent from ${companyName}?` });
  await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(admin.getByRole('status').filter({ hasText: 'Andy Agent' })).toBeVisible();
  await expect(agent.getByRole('link', { name: /Harbor refinance/ })).toHaveCount(0);
});
