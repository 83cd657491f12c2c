import { expect, test, type Locator, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import {
  agreeToSignElectronicallyIfAsked,
  addPdfs,
  drawSignature,
  findSeriousViolations,
  openAdminPage,
  placeFieldByClick,
  pointOnPage,
  registerApprovedNotary,
  uniqueEmail,
  waitForMail,
} from './helpers.ts';
import { apiGet, startRecordedSession } from './role-pages.ts';

/**
 * The signing workspace as a notary and a signer use it: placing fields where they are wanted (by
 * dragging, clicking or with the keyboard alone), filling them in place, finding what is left, and
 * a page that follows the reader. No native prompt, confirm or alert may appear at any point.
 */

const signerName = 'Pat Placer';
const notaryName = 'Noel Workspace';

/** The centre of a locator's box on screen. */
async function centreOf(locator: Locator) {
  const box = await locator.boundingBox();
  if (!box) throw new Error('not on screen');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2, box };
}

/** Every two field tags on a document page whose boxes cross, named "A / B" (none when they are all apart). */
async function findOverlappingTags(page: Page, pageNumber: number): Promise<string[]> {
  return page.locator(`.pages .pdf-page[data-page="${pageNumber}"] .field-tag`).evaluateAll((tags) => {
    const boxes = tags.map((tag) => ({ name: tag.textContent ?? '', box: tag.getBoundingClientRect() }));
    const crossing: string[] = [];
    for (const [index, first] of boxes.entries()) {
      for (const second of boxes.slice(index + 1)) {
        const isApart =
          first.box.right <= second.box.left + 0.5 ||
          second.box.right <= first.box.left + 0.5 ||
          first.box.bottom <= second.box.top + 0.5 ||
          second.box.bottom <= first.box.top + 0.5;
        if (!isApart) crossing.push(`${first.name} / ${second.name}`);
      }
    }
    return crossing;
  });
}

/** The fill buttons on the pages whose words do not fit inside them (cut, or ended with an ellipsis). */
async function findCutFillButtons(page: Page): Promise<string[]> {
  return page
    .locator('.pages .fill-button')
    .evaluateAll((buttons) =>
      buttons
        .filter((button) => button.scrollWidth > button.clientWidth || button.scrollHeight > button.clientHeight)
        .map((button) => button.textContent ?? ''),
    );
}

function failOnNativeDialogs(page: Page) {
  page.on('dialog', (dialog) => {
    throw new Error(`A native ${dialog.type()} appeared: ${dialog.message()}`);
  });
}

test.describe.serial('the signing workspace', () => {
  let notary: Page;
  let signer: Page;
  let workspaceUrl = '';
  let jobUrl = '';

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    const admin = await openAdminPage(browser);
    notary = await (await browser.newContext()).newPage();
    failOnNativeDialogs(notary);
    await registerApprovedNotary(notary, admin, notaryName, uniqueEmail('ws-notary'));
    await admin.context().close();
    await notary.goto('/signature');
    await drawSignature(notary);
    await agreeToSignElectronicallyIfAsked(notary);
    await notary.getByRole('button', { name: 'Save signature' }).click();
    await expect(notary.getByText('Signature saved.')).toBeVisible();

    await notary.goto('/dashboard?tab=jobs');
    await notary.getByRole('button', { name: 'New Signing Request' }).click();
    const dialog = notary.getByRole('dialog', { name: 'New Signing Request' });
    await dialog.getByLabel('Title').fill('Deed of trust closing');
    await dialog.getByLabel('Notarization type').selectOption('acknowledgment');
    const signerEmail = uniqueEmail('placer');
    await dialog.getByLabel('Name 1').fill(signerName);
    await dialog.getByLabel('Email 1').fill(signerEmail);
    await dialog.getByRole('button', { name: 'Create signing request' }).click();
    await notary.getByRole('link', { name: 'Deed of trust closing' }).click();
    jobUrl = notary.url();
    await addPdfs(notary, [{ name: 'deed-of-trust.pdf', mimeType: 'application/pdf', buffer: await makePdf(20, 'Deed of trust') }]);

    const invitation = await waitForMail(signerEmail, /You are invited to sign "Deed of trust closing"/);
    const link = invitation.text.match(/https?:\/\/\S+\/claim\/[A-Za-z0-9_-]+/)?.[0] ?? '';
    signer = await (await browser.newContext()).newPage();
    failOnNativeDialogs(signer);
    await signer.goto(link);
    await signer.getByLabel('Full name').fill(signerName);
    await signer.getByLabel('Password', { exact: true }).fill('signer password');
    await signer.getByLabel('Confirm password').fill('signer password');
    await signer.getByRole('button', { name: 'Create account' }).click();
    await expect(signer).toHaveURL(/\/jobs\/detail\?jobId=/);
    await signer.goto('/signature');
    await drawSignature(signer);
    await agreeToSignElectronicallyIfAsked(signer);
    await signer.getByRole('button', { name: 'Save signature' }).click();
    await expect(signer.getByText('Signature saved.')).toBeVisible();
    await signer.goto('/initials');
    await signer.getByRole('radio', { name: 'Type' }).check();
    await agreeToSignElectronicallyIfAsked(signer);
    await signer.getByRole('button', { name: 'Save initials' }).click();
    await expect(signer.getByText('Initials saved.')).toBeVisible();

    await notary.goto(jobUrl);
    await notary.getByRole('link', { name: 'Open signing workspace' }).click();
    await expect(notary.getByRole('img', { name: 'deed-of-trust.pdf, page 1', exact: true })).toBeVisible();
    workspaceUrl = notary.url();
  });

  test.afterAll(async () => {
    await notary?.context().close();
    await signer?.context().close();
  });

  test('the notary drags a field from the palette and drops it where it should be', async () => {
    await notary.getByLabel('For').selectOption({ label: `${signerName} (signer)` });
    const target = await pointOnPage(notary, 1, 0.3, 0.55);
    const source = await centreOf(notary.getByRole('button', { name: 'Signature', exact: true }));
    await notary.mouse.move(source.x, source.y);
    await notary.mouse.down();
    await notary.mouse.move(target.x, target.y, { steps: 12 });
    await notary.mouse.up();
    const field = notary.locator('.pdf-page[data-page="1"]').getByRole('group', { name: `Signature for ${signerName}` });
    await expect(field).toBeVisible();
    const placed = await centreOf(field);
    expect(Math.abs(placed.x - target.x)).toBeLessThan(4);
    expect(Math.abs(placed.y - target.y)).toBeLessThan(4);
  });

  test('the notary chooses a field type and clicks where it goes, on any page, and the field leaves the printed label to its left visible', async () => {
    const dateButton = notary.getByRole('button', { name: 'Date', exact: true });
    await dateButton.click();
    await expect(dateButton).toHaveAttribute('aria-pressed', 'true');
    const target = await pointOnPage(notary, 2, 0.7, 0.3);
    // Before the click, the cursor shows the box where the click will put it.
    await notary.mouse.move(target.x, target.y);
    const preview = (await notary.locator('.placement-cursor').boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 };
    await notary.mouse.click(target.x, target.y);
    const field = notary.locator('.pdf-page[data-page="2"]').getByRole('group', { name: `Date for ${signerName}` });
    await expect(field).toBeVisible();
    // People click on the line just after its printed label ("Date: ____"): the field sits on the
    // line from the click rightwards (its bottom-left corner at the click), never over the label.
    const { box } = await centreOf(field);
    expect(Math.abs(box.x - target.x)).toBeLessThan(4);
    expect(Math.abs(box.y + box.height - target.y)).toBeLessThan(4);
    expect(Math.abs(preview.x - box.x)).toBeLessThan(4);
    expect(Math.abs(preview.y - box.y)).toBeLessThan(4);
    await expect(dateButton).toHaveAttribute('aria-pressed', 'false');
  });

  test('a field chosen right after scrolling goes to the page in view, the page the panel names', async () => {
    // The previous test left page 2 in view. Scroll to page 1 and choose Text in the same task,
    // before any scroll event is handled: placement and panel must still agree on page 1.
    await notary.evaluate(() => {
      document.querySelector('.pages .pdf-page[data-page="1"]')?.scrollIntoView({ block: 'start', behavior: 'instant' });
      const text = [...document.querySelectorAll<HTMLButtonElement>('button')].find((button) => button.textContent?.trim() === 'Text');
      text?.focus();
      text?.click();
    });
    await expect(notary.getByRole('application', { name: 'Place Text on page 1' })).toBeFocused();
    await expect(notary.getByRole('heading', { name: 'Place fields on page 1' })).toBeVisible();
    await notary.keyboard.press('Escape');
    await expect(notary.getByRole('application')).toHaveCount(0);
  });

  test('the notary places fields with the keyboard alone, told what happens by a screen reader', async () => {
    await notary.locator('.pages .pdf-page[data-page="1"]').scrollIntoViewIfNeeded();
    const textButton = notary.getByRole('button', { name: 'Text', exact: true });
    await textButton.focus();
    await notary.keyboard.press('Enter');
    const area = notary.getByRole('application', { name: 'Place Text on page 1' });
    await expect(area).toBeFocused();
    const announcer = notary.locator('[data-testid="placement-announcer"]');
    await expect(announcer).toHaveAttribute('role', 'status');
    await expect(announcer).toContainText(`Placing Text for ${signerName} on page 1.`);
    const cursor = notary.locator('.placement-cursor');
    const start = await centreOf(cursor);
    for (let step = 0; step < 5; step += 1) await notary.keyboard.press('ArrowDown');
    for (let step = 0; step < 3; step += 1) await notary.keyboard.press('ArrowRight');
    const moved = await centreOf(cursor);
    const sheet = (await notary.locator('.pages .pdf-page[data-page="1"]').boundingBox()) ?? { width: 0, height: 0 };
    expect(moved.y - start.y).toBeCloseTo(0.05 * sheet.height, -1);
    expect(moved.x - start.x).toBeCloseTo(0.03 * sheet.width, -1);
    await notary.keyboard.press('Enter');
    await expect(announcer).toContainText(`Text for ${signerName} placed on page 1.`);
    const text = notary.locator('.pdf-page[data-page="1"]').getByRole('group', { name: `Text for ${signerName}` });
    await expect(text).toBeVisible();
    const placed = await centreOf(text);
    expect(Math.abs(placed.x - moved.x)).toBeLessThan(4);
    expect(Math.abs(placed.y - moved.y)).toBeLessThan(4);
    await expect(textButton).toBeFocused();

    // PageDown carries the cursor to the next page.
    await notary.getByRole('button', { name: 'Checkbox', exact: true }).focus();
    await notary.keyboard.press('Enter');
    await expect(notary.getByRole('application', { name: 'Place Checkbox on page 1' })).toBeFocused();
    await notary.keyboard.press('PageDown');
    await notary.keyboard.press('PageDown');
    await expect(notary.getByRole('application', { name: 'Place Checkbox on page 3' })).toBeFocused();
    await notary.keyboard.press('Enter');
    await expect(notary.locator('.pdf-page[data-page="3"]').getByRole('group', { name: `Checkbox for ${signerName}` })).toBeVisible();

    // Escape gives up without placing anything.
    await notary.getByRole('button', { name: 'Name', exact: true }).focus();
    await notary.keyboard.press('Enter');
    await notary.keyboard.press('Escape');
    await expect(notary.getByRole('application')).toHaveCount(0);
    await expect(notary.getByRole('group', { name: `Name for ${signerName}` })).toHaveCount(0);
  });

  test('a field set to repeat shows on every page', async () => {
    await notary.getByRole('checkbox', { name: 'On every page', exact: true }).check();
    await placeFieldByClick(notary, 'Initials', 2, 0.85, 0.92);
    await expect(notary.getByRole('group', { name: `Initials for ${signerName}, on every page` })).toHaveCount(20);
    await notary.getByRole('checkbox', { name: 'On every page', exact: true }).uncheck();
    await placeFieldByClick(notary, 'Notary seal', 1, 0.75, 0.25);
    await placeFieldByClick(notary, 'Notarial certificate', 1, 0.45, 0.8);
    await expect(notary.getByRole('group', { name: 'Notary seal for the notary' })).toHaveCount(1);
  });

  test('the tags of fields placed close together on a form’s lines never cover one another, at 100% and at 60% zoom', async () => {
    // "Signature ____ Date ____ [ ]" on one line, "Name ____ Initials __" on the next, as a deed prints them.
    const onPage = notary.locator('.pages .pdf-page[data-page="4"]');
    const line: Array<[string, number, number]> = [
      ['Signature', 0.08, 0.3],
      ['Date', 0.4, 0.3],
      ['Checkbox', 0.6, 0.3],
      ['Name', 0.08, 0.36],
      ['Initials', 0.35, 0.36],
    ];
    for (const [type, x, y] of line) {
      await placeFieldByClick(notary, type, 4, x, y);
      await expect(onPage.getByRole('group', { name: `${type} for ${signerName}`, exact: true })).toBeVisible();
    }
    // With the initials on every page: six tags.
    await expect(onPage.locator('.field-tag')).toHaveCount(6);
    expect(await findOverlappingTags(notary, 4), 'at 100%').toEqual([]);
    const zoom = notary.getByRole('group', { name: 'Zoom' });
    await zoom.getByRole('button', { name: 'Zoom out' }).click();
    await zoom.getByRole('button', { name: 'Zoom out' }).click();
    await expect(zoom).toContainText('60%');
    await onPage.scrollIntoViewIfNeeded();
    expect(await findOverlappingTags(notary, 4), 'at 60%').toEqual([]);
    for (const tag of await onPage.locator('.field-tag').all()) await expect(tag).toBeInViewport();
    await zoom.getByRole('button', { name: 'Zoom in' }).click();
    await zoom.getByRole('button', { name: 'Zoom in' }).click();
    await expect(zoom).toContainText('100%');
    // They were placed for this check only: each goes again with its × button.
    for (const [type] of line) {
      await onPage
        .getByRole('group', { name: `${type} for ${signerName}`, exact: true })
        .getByRole('button', { name: `Delete ${type} for ${signerName}` })
        .click();
    }
    await expect(onPage.locator('.field-box')).toHaveCount(1);
  });

  test('every field says whose and what it is at 60% zoom, and the zoom is remembered', async () => {
    const zoom = notary.getByRole('group', { name: 'Zoom' });
    await expect(zoom).toContainText('100%');
    await zoom.getByRole('button', { name: 'Zoom out' }).click();
    await zoom.getByRole('button', { name: 'Zoom out' }).click();
    await expect(zoom).toContainText('60%');
    await notary.locator('.pages .pdf-page[data-page="3"]').scrollIntoViewIfNeeded();
    const checkboxTag = notary.locator('.pdf-page[data-page="3"] .field-tag', { hasText: 'Checkbox' });
    await expect(checkboxTag).toHaveText(`Checkbox for ${signerName}`);
    await expect(checkboxTag).toBeVisible();
    const tags = notary.locator('.pdf-page[data-page="1"] .field-tag');
    await expect(tags).toHaveCount(5);
    for (const tag of await tags.all()) {
      expect(await tag.evaluate((element) => element.scrollWidth <= element.clientWidth + 1 && element.scrollHeight <= element.clientHeight + 1)).toBe(true);
    }
    await expect(tags.filter({ hasText: `Signature for ${signerName}` })).toHaveCount(1);

    await notary.reload();
    await expect(notary.getByRole('group', { name: 'Zoom' })).toContainText('60%');
    await notary.getByRole('group', { name: 'Zoom' }).getByRole('button', { name: 'Zoom in' }).click();
    await notary.getByRole('group', { name: 'Zoom' }).getByRole('button', { name: 'Zoom in' }).click();
    await expect(notary.getByRole('group', { name: 'Zoom' })).toContainText('100%');
  });

  test('the page thumbnail follows the page on screen', async () => {
    const thumbnails = notary.getByRole('navigation', { name: 'Pages' });
    await expect(thumbnails.getByRole('button', { name: 'Page 1', exact: true })).toHaveAttribute('aria-current', 'page');
    await notary.locator('.pages .pdf-page[data-page="17"]').evaluate((element) => element.scrollIntoView({ block: 'start' }));
    const seventeen = thumbnails.getByRole('button', { name: 'Page 17', exact: true });
    await expect(seventeen).toHaveAttribute('aria-current', 'page');
    await expect(thumbnails.getByRole('button', { name: 'Page 1', exact: true })).not.toHaveAttribute('aria-current', 'page');
    const list = await thumbnails.boundingBox();
    const thumb = await seventeen.boundingBox();
    expect(list && thumb && thumb.y >= list.y && thumb.y + thumb.height <= list.y + list.height + 1).toBe(true);
    await expect(notary.getByRole('heading', { name: 'Place fields on page 17' })).toBeVisible();
  });

  test('"Follow the notary" is offered only to participants, only while the session is live', async () => {
    await signer.goto(workspaceUrl);
    await expect(signer.getByRole('img', { name: 'deed-of-trust.pdf, page 1', exact: true })).toBeVisible();
    await expect(signer.getByText('Fields are filled once the notary starts the notarization.')).toBeVisible();
    await expect(signer.getByLabel('Follow the notary')).toHaveCount(0);

    await notary.goto(jobUrl);
    await notary.getByRole('button', { name: 'Mark ready' }).click();
    await expect(notary.getByText('The job is now ready.')).toBeVisible();
    // Fields are filled only while the live session runs and is recorded (decision 022): the session
    // pages are not part of this journey, so the notary opens, starts and records it through the API
    // (starting it moves the job to in session).
    const jobId = new URL(jobUrl, 'http://localhost').searchParams.get('jobId') ?? '';
    const job = await apiGet<{ participants: Array<{ id: string; name: string }> }>(notary.request, `/api/jobs/${jobId}`);
    await startRecordedSession(jobId, notary, [{ page: signer, participantId: job.participants.find((person) => person.name === signerName)?.id ?? '' }]);
    await notary.goto(workspaceUrl);
    await expect(notary.getByRole('img', { name: 'deed-of-trust.pdf, page 1', exact: true })).toBeVisible();
    await expect(notary.getByLabel('Follow the notary')).toHaveCount(0);
    await expect(signer.getByLabel('Follow the notary')).toBeVisible();
    await signer.getByLabel('Follow the notary').uncheck();
  });

  test('on a 390 px phone the page fits the screen, the tools are in a bottom sheet and every control is at least 44 px', async () => {
    const desktop = signer.viewportSize() ?? { width: 1280, height: 720 };
    await signer.setViewportSize({ width: 390, height: 844 });
    try {
      await signer.reload();
      await expect(signer.getByRole('img', { name: 'deed-of-trust.pdf, page 1', exact: true })).toBeVisible();
      expect(await signer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const sheet = (await signer.locator('.pages .pdf-page[data-page="1"]').boundingBox()) ?? { x: -1, width: 999 };
      expect(sheet.x).toBeGreaterThanOrEqual(0);
      expect(sheet.x + sheet.width).toBeLessThanOrEqual(390);
      for (const tag of await signer.locator('.pages .pdf-page[data-page="1"] .field-tag').all()) {
        const box = (await tag.boundingBox()) ?? { x: -1, width: 999 };
        const name = (await tag.textContent()) ?? '';
        expect(box.x, name).toBeGreaterThanOrEqual(sheet.x);
        expect(box.x + box.width, name).toBeLessThanOrEqual(sheet.x + sheet.width);
      }
      // The page is drawn at the new size too: the deed's own text shows on its canvas.
      await expect
        .poll(() =>
          signer.locator('.pages .pdf-page[data-page="1"] canvas').evaluate((canvas: HTMLCanvasElement) => {
            const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, Math.floor(canvas.height / 4)).data ?? new Uint8ClampedArray();
            let dark = 0;
            for (let index = 0; index < pixels.length; index += 4) if ((pixels[index] ?? 255) < 100) dark += 1;
            return dark;
          }),
        )
        .toBeGreaterThan(50);
      const tools = signer.getByRole('button', { name: 'Tools and your fields (5 left)' });
      await expect(tools).toHaveAttribute('aria-expanded', 'false');
      await expect(signer.getByRole('list', { name: 'Your remaining fields' })).toBeHidden();
      await tools.click();
      await expect(signer.getByRole('list', { name: 'Your remaining fields' })).toBeVisible();
      for (const control of await signer.locator('.workspace button:visible, .workspace select:visible').all()) {
        const box = await control.boundingBox();
        const name = (await control.getAttribute('aria-label')) ?? (await control.textContent());
        expect(box?.height ?? 0, `${name} height`).toBeGreaterThanOrEqual(44);
        expect(box?.width ?? 0, `${name} width`).toBeGreaterThanOrEqual(44);
      }
      await signer.getByRole('list', { name: 'Your remaining fields' }).getByRole('button', { name: 'Signature on page 1' }).click();
      await expect(signer.getByRole('list', { name: 'Your remaining fields' })).toBeHidden();
      await expect(signer.getByRole('button', { name: 'Sign here' })).toBeFocused();
      await expect(signer.getByRole('button', { name: 'Sign here' })).toBeInViewport();
    } finally {
      await signer.setViewportSize(desktop);
    }
  });

  test('the signer jumps from the list of remaining fields to each one and fills it in place, by keyboard too', async () => {
    const list = signer.getByRole('list', { name: 'Your remaining fields' });
    await expect(list.getByRole('button')).toHaveCount(5);

    await list.getByRole('button', { name: 'Checkbox on page 3' }).click();
    const checkbox = signer.getByRole('checkbox', { name: `Checkbox for ${signerName}` });
    await expect(checkbox).toBeFocused();
    await expect(checkbox).toBeInViewport();
    await signer.keyboard.press('Space');
    await expect(signer.getByRole('group', { name: `Checkbox for ${signerName}, filled` })).toBeVisible();
    await expect(list.getByRole('button')).toHaveCount(4);

    // The keyboard alone: the list, then the field, then Enter.
    await list.getByRole('button', { name: 'Text on page 1' }).focus();
    await signer.keyboard.press('Enter');
    const text = signer.getByRole('textbox', { name: `Text for ${signerName}` });
    await expect(text).toBeFocused();
    await expect(text).toBeInViewport();
    await signer.keyboard.type('Parcel 17, Block B');
    await signer.keyboard.press('Enter');
    await expect(signer.getByRole('group', { name: `Text for ${signerName}, filled` })).toContainText('Parcel 17, Block B');

    await list.getByRole('button', { name: 'Date on page 2' }).click();
    const date = signer.getByRole('group', { name: `Date for ${signerName}` }).locator('input[type="date"]');
    await expect(date).toBeFocused();
    await date.fill('2026-03-14');
    await signer.keyboard.press('Enter');
    // Written the way the notary's commission state (Virginia) writes dates.
    await expect(signer.getByRole('group', { name: `Date for ${signerName}, filled` })).toContainText('03/14/2026');

    await list.getByRole('button', { name: 'Initials on every page' }).click();
    await expect(signer.locator('button:focus')).toHaveText('Initial here');
    await expect(signer.locator('button:focus')).toBeInViewport();
    await signer.keyboard.press('Enter');
    await expect(signer.getByRole('img', { name: `Initials for ${signerName}, on every page, signed` })).toHaveCount(20);

    await list.getByRole('button', { name: 'Signature on page 1' }).click();
    await expect(signer.getByRole('button', { name: 'Sign here' })).toBeFocused();
    await signer.keyboard.press('Enter');
    await expect(signer.getByRole('img', { name: `Signature for ${signerName}, signed` })).toBeVisible();

    await expect(signer.getByText('You have filled all your fields. The notary will complete the document.')).toBeVisible();
    await expect(list).toHaveCount(0);
    await expect(notary.getByText(`${signerName} has filled all their fields.`)).toBeVisible({ timeout: 5_000 });
  });

  test('filled seal and certificate fields show what will be printed; sealing needs recorded media', async () => {
    test.setTimeout(120_000);
    // A fill button's words fit in it whole ("Fill notary seal", never "Fill notary sea…"), at
    // 100% and at 60% zoom, and it stays on the page.
    const zoom = notary.getByRole('group', { name: 'Zoom' });
    await expect(notary.locator('.pages .fill-button')).toHaveCount(2);
    for (const level of ['100%', '60%']) {
      if (level === '60%') {
        await zoom.getByRole('button', { name: 'Zoom out' }).click();
        await zoom.getByRole('button', { name: 'Zoom out' }).click();
      }
      await expect(zoom).toContainText(level);
      expect(await findCutFillButtons(notary), `at ${level}`).toEqual([]);
      for (const button of await notary.locator('.pages .fill-button').all()) {
        const words = ((await button.textContent()) ?? '').trim();
        await expect(button).toHaveAccessibleName(words);
        const isOnPage = await button.evaluate((element) => {
          const box = element.getBoundingClientRect();
          const sheet = element.closest('.pdf-page')?.getBoundingClientRect();
          return Boolean(sheet && box.left >= sheet.left - 1 && box.right <= sheet.right + 1);
        });
        expect(isOnPage, `${words} at ${level}`).toBe(true);
      }
    }
    await zoom.getByRole('button', { name: 'Zoom in' }).click();
    await zoom.getByRole('button', { name: 'Zoom in' }).click();
    await expect(zoom).toContainText('100%');
    await notary.getByRole('group', { name: 'Notary seal for the notary' }).getByRole('button', { name: 'Fill notary seal' }).click();
    const seal = notary.getByRole('img', { name: `Notary seal of ${notaryName}, Notary Public, State of Virginia` });
    await expect(seal).toBeVisible();
    await expect(seal).toContainText('NOTARY PUBLIC');
    await expect(seal).toContainText('Comm. No. VA-2468');
    await expect(seal).toContainText('Expires 05/31/2031');
    await notary.getByRole('group', { name: 'Notarial certificate for the notary' }).getByRole('button', { name: 'Fill notarial certificate' }).click();
    const certificate = notary.getByRole('group', { name: 'Notarial certificate for the notary, filled' });
    await expect(certificate).toContainText(`${notaryName}, Notary Public, State of Virginia. Commission No. VA-2468, expires May 31, 2031.`);
    await expect(notary.locator('.pages')).not.toContainText('applied');
    await expect(signer.getByRole('img', { name: `Notary seal of ${notaryName}, Notary Public, State of Virginia` })).toBeVisible({ timeout: 5_000 });

    await expect(notary.getByText('Every field is filled. Complete the document, then seal the job.')).toBeVisible();
    // Completing freezes every field: it is asked first, and keeping it changes nothing.
    await notary.getByRole('button', { name: 'Complete this document' }).click();
    const confirm = notary.getByRole('dialog', { name: 'Complete deed-of-trust.pdf?' });
    await expect(confirm).toContainText('cannot be undone');
    await notary.keyboard.press('Escape');
    await expect(confirm).toHaveCount(0);
    await expect(notary.getByRole('button', { name: 'Complete this document' })).toBeVisible();
    await notary.getByRole('button', { name: 'Complete this document' }).click();
    await notary.getByRole('dialog', { name: 'Complete deed-of-trust.pdf?' }).getByRole('button', { name: 'Complete the document' }).click();
    await expect(notary.getByText('deed-of-trust.pdf is complete.')).toBeVisible();
    // Frozen fields take no focus: the pages pane itself must, to be read by keyboard (axe's scrollable-region-focusable).
    expect(await findSeriousViolations(notary)).toEqual([]);
    await notary.getByRole('button', { name: 'Seal and complete the job' }).click();
    await notary.getByRole('dialog', { name: 'Seal and complete the job?' }).getByRole('button', { name: 'Seal and sign' }).click();
    // No media reaches the hub in this journey (nobody joined the session's video), so the act has
    // no recorded audio-video to rest on and is not sealed (decision 022).
    await expect(
      notary.getByText('The session’s recording stored no media: there is nothing to seal the act on. The job cannot be sealed.').first(),
    ).toBeVisible({ timeout: 60_000 });

    // The job's history reads as sentences, with times in the viewer's format (en-US here).
    await signer.goto(jobUrl);
    const history = signer.getByRole('list', { name: 'Status history' });
    await expect(history).toContainText(`${notaryName} started the session.`);
    await expect(history).not.toContainText('completed the job');
    await expect(history.locator('time').first()).toHaveText(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M \S+$/);
    await signer.getByText(/^All \d+ events$/).click();
    const events = signer.getByRole('table', { name: 'Audit events' });
    await expect(events).toContainText(`${notaryName} started recording the live session.`);
    await expect(events).toContainText(`${signerName} signed page 1 of deed-of-trust.pdf.`);
    await expect(events).toContainText(`${signerName} filled the date field on page 2 of deed-of-trust.pdf.`);
    await expect(events).toContainText(`${notaryName} applied the notary seal on page`);
    await expect(events).not.toContainText('field.filled');
  });
});
