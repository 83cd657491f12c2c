import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page, type Request } from '@playwright/test';
import { makeAamvaText, makeLicenceBack, makeLicenceFront } from '../test/id-documents.ts';
import { makePng } from '../test/png-fixtures.ts';
import { drawSignature } from './helpers.ts';
import { samSigner } from './identity-steps.ts';
import { apiCall, openRolePages, type RolePages } from './role-pages.ts';

/**
 * The session room with two Chromium contexts and fake cameras (playwright.config.ts): the notary
 * and an admitted signer see and hear each other through the media hub, a mute shows on the other
 * side, the room passes axe and fits a 390 px phone.
 */

interface Entered {
  participantId: string;
  deviceGroupId: string;
}

/** Enters the session as the API does for the pre-join screen, and hands the room the device group. */
async function enter(page: Page, jobId: string): Promise<Entered> {
  const deviceGroupId = `dg-e2e-${Math.random().toString(36).slice(2, 10)}`;
  const joined = await apiCall<{ participantId: string }>(page.request, 'post', `/api/jobs/${jobId}/session/join`, {
    data: { consentToRecording: true, deviceGroupId },
  });
  await page.evaluate(({ key, choice }) => sessionStorage.setItem(key, JSON.stringify(choice)), {
    key: `session_devices:${jobId}`,
    choice: { deviceGroupId, cameraId: null, microphoneId: null, videoOff: false, audioMuted: false },
  });
  return { participantId: joined.participantId, deviceGroupId };
}

/** The label of the camera or microphone track a tile shows; for the self-view, the camera the person sends. */
function trackLabel(page: Page, participantId: string) {
  return page
    .locator(`figure[data-participant-id="${participantId}"] video`)
    .evaluate((video: HTMLVideoElement) => (video.srcObject as MediaStream | null)?.getVideoTracks()[0]?.label ?? null);
}

/** The loudest sample of a tile's sound over a second and a half (0 is silence): the other side really hears it. */
function loudestSound(page: Page, participantId: string) {
  return page.locator(`figure[data-participant-id="${participantId}"] video`).evaluate(async (video: HTMLVideoElement) => {
    const stream = video.srcObject as MediaStream | null;
    if (!stream || stream.getAudioTracks().length === 0) return 0;
    const context = new AudioContext();
    await context.resume();
    const analyser = context.createAnalyser();
    context.createMediaStreamSource(new MediaStream(stream.getAudioTracks())).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    let loudest = 0;
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      analyser.getFloatTimeDomainData(samples);
      for (const sample of samples) loudest = Math.max(loudest, Math.abs(sample));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await context.close();
    return loudest;
  });
}

/** Frames the tile's video element has shown: the other person's camera really arrived. */
function framesShown(page: Page, participantId: string) {
  return page
    .locator(`figure[data-participant-id="${participantId}"] video`)
    .evaluate((video: HTMLVideoElement) => (video.videoWidth > 0 ? video.getVideoPlaybackQuality().totalVideoFrames : 0));
}

/** The window and every element above the document pane that has scrolled: none may (the panes scroll inside themselves). */
function scrolledAncestors(page: Page) {
  return page.locator('.pages').evaluate((pane) => {
    const moved: string[] = [];
    if (window.scrollY !== 0) moved.push(`window ${window.scrollY}`);
    for (let element = pane.parentElement; element; element = element.parentElement) {
      if (element.scrollTop !== 0) moved.push(`${element.tagName.toLowerCase()}.${element.className} ${element.scrollTop}`);
    }
    return moved;
  });
}

test.describe.serial('the session room', () => {
  let pages: RolePages;
  let notaryEntry: Entered;
  let signerEntry: Entered;
  let roomUrl = '';

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    pages = await openRolePages(browser);
    const { notary, signer, jobId, documentId } = pages;
    const session = await apiCall<{ sessionId: string }>(notary.request, 'post', '/api/video/session', { data: { jobId } });
    notaryEntry = await enter(notary, jobId);
    await apiCall(notary.request, 'post', `/api/video/session/${session.sessionId}/activate/${notaryEntry.deviceGroupId}`);
    signerEntry = await enter(signer, jobId);
    await apiCall(notary.request, 'post', `/api/video/session/${session.sessionId}/participants/${signerEntry.participantId}/admit`);
    roomUrl = `/session/${jobId}/${documentId}`;
  });

  test.afterAll(async () => {
    await pages?.close();
  });

  test('sends someone not admitted back to the pre-join screen', async () => {
    await pages.title.goto(roomUrl);
    await expect(pages.title).toHaveURL(new RegExp(`/session/${pages.jobId}$`), { timeout: 15_000 });
  });

  test('the notary and the signer see each other, and a mute shows on the other side', async () => {
    test.setTimeout(90_000);
    const { notary, signer } = pages;
    await notary.goto(roomUrl);
    await signer.goto(roomUrl);
    const notaryCall = notary.getByRole('region', { name: 'Video call' });
    const signerCall = signer.getByRole('region', { name: 'Video call' });
    await expect(notaryCall.getByRole('figure', { name: /Sam Signer, Signer/ })).toBeVisible({ timeout: 30_000 });
    await expect(signerCall.getByRole('figure', { name: /Nadia Notary, Notary/ })).toBeVisible({ timeout: 30_000 });
    await expect(signerCall.getByRole('figure', { name: /\(you\), Signer/ })).toBeVisible();

    await expect.poll(() => framesShown(notary, signerEntry.participantId), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => framesShown(signer, notaryEntry.participantId), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect(notaryCall.getByText(/^Network: (Good|Fair|Poor)$/)).toBeVisible({ timeout: 15_000 });

    await signerCall.getByRole('button', { name: 'Mute' }).click();
    await expect(signerCall.getByRole('button', { name: 'Unmute' })).toHaveAttribute('aria-pressed', 'true');
    await expect(notaryCall.getByRole('figure', { name: /Sam Signer, Signer/ }).getByText('Muted')).toBeVisible({ timeout: 10_000 });
    await signerCall.getByRole('button', { name: 'Unmute' }).click();
    await expect(notaryCall.getByRole('figure', { name: /Sam Signer, Signer/ }).getByText('Muted')).toHaveCount(0, { timeout: 10_000 });

    await signerCall.getByRole('button', { name: 'Turn camera off' }).click();
    await expect(notaryCall.getByRole('figure', { name: /Sam Signer, Signer/ }).getByText('Camera off')).toBeVisible({ timeout: 10_000 });
    await signerCall.getByRole('button', { name: 'Turn camera on' }).click();
    await expect(notaryCall.getByRole('figure', { name: /Sam Signer, Signer/ }).getByText('Camera off')).toHaveCount(0, { timeout: 10_000 });
  });

  test('the signer switches camera and microphone mid-call, and the notary keeps seeing and hearing them', async () => {
    test.setTimeout(90_000);
    const { notary, signer } = pages;
    const signerCall = signer.getByRole('region', { name: 'Video call' });
    await expect.poll(() => trackLabel(signer, signerEntry.participantId), { timeout: 15_000 }).toBe('fake_device_0');
    await signerCall.getByRole('button', { name: 'Devices' }).click();
    const camera = signerCall.getByRole('combobox', { name: 'Camera', exact: true });
    const microphone = signerCall.getByRole('combobox', { name: 'Microphone', exact: true });
    await expect(camera.locator('option')).toHaveCount(3);

    // Chromium's second fake camera gives frames its encoder never sends (as a depth camera would):
    // the picture would freeze for the notary, so the room keeps the previous camera and says why.
    await camera.selectOption({ label: 'fake_device_1' });
    await expect(
      signerCall.getByRole('status').filter({ hasText: 'That camera gives no picture the call can send. You are still on your previous camera.' }),
    ).toBeVisible({ timeout: 15_000 });
    expect(await trackLabel(signer, signerEntry.participantId)).toBe('fake_device_0');

    await camera.selectOption({ label: 'fake_device_2' });
    // The self-view is the track now sent: the other camera, and the notary keeps receiving frames.
    await expect.poll(() => trackLabel(signer, signerEntry.participantId), { timeout: 15_000 }).toBe('fake_device_2');
    await expect(signerCall.locator('.notice')).toHaveCount(0);
    const cameraOption = await camera.locator('option', { hasText: 'fake_device_2' }).getAttribute('value');
    await expect(camera).toHaveValue(cameraOption ?? 'missing');
    const framesBefore = await framesShown(notary, signerEntry.participantId);
    await expect.poll(() => framesShown(notary, signerEntry.participantId), { timeout: 30_000 }).toBeGreaterThan(framesBefore + 10);

    await microphone.selectOption({ label: 'Fake Audio Input 2' });
    // The menu shows the device of the track that was opened (its settings), not only the choice.
    const microphoneOption = await microphone.locator('option', { hasText: 'Fake Audio Input 2' }).getAttribute('value');
    await expect(microphone).toHaveValue(microphoneOption ?? 'missing', { timeout: 15_000 });
    await expect.poll(() => loudestSound(notary, signerEntry.participantId), { timeout: 30_000 }).toBeGreaterThan(0.01);
    await expect(signerCall.locator('.notice')).toHaveCount(0);
    await signerCall.getByRole('button', { name: 'Devices' }).click();
  });

  test("the notary's layout is everyone's: moving someone shows them there for both", async () => {
    const { notary, signer } = pages;
    const tiles = (page: Page) => page.locator('.video-grid figure');
    const notaryCall = notary.getByRole('region', { name: 'Video call' });
    await expect(tiles(signer).first()).toHaveAttribute('data-participant-id', notaryEntry.participantId);
    await notaryCall.getByLabel('Place of Sam Signer').selectOption('0');
    for (const page of [notary, signer])
      await expect(tiles(page).first()).toHaveAttribute('data-participant-id', signerEntry.participantId, { timeout: 15_000 });
    // A second change is drawn from the version the first one made.
    await notaryCall.getByLabel('Place of Nadia Notary').selectOption('0');
    for (const page of [notary, signer])
      await expect(tiles(page).first()).toHaveAttribute('data-participant-id', notaryEntry.participantId, { timeout: 15_000 });
    await expect(signer.getByRole('region', { name: 'Video call' }).getByLabel(/^Place of/)).toHaveCount(0);
  });

  test('the notary runs the recording from the room, and the signer sees it', async () => {
    const { notary, signer } = pages;
    // openRolePages started the session and its recording (decision 022: fields need one).
    const controls = notary.getByRole('region', { name: 'Session controls' });
    const recordedForSigner = signer.getByRole('status').filter({ hasText: 'This session is being recorded' });
    await expect(controls.getByText('The notarization is under way and recorded.')).toBeVisible({ timeout: 10_000 });
    await expect(recordedForSigner).toBeVisible({ timeout: 15_000 });
    await controls.getByRole('button', { name: 'Stop recording' }).click();
    await notary.getByRole('dialog', { name: 'Stop the recording?' }).getByRole('button', { name: 'Stop recording' }).click();
    await expect(recordedForSigner).toHaveCount(0, { timeout: 15_000 });
    await controls.getByRole('button', { name: 'Resume the recording' }).click();
    await expect(recordedForSigner).toBeVisible({ timeout: 15_000 });
    await expect(signer.getByRole('region', { name: 'Session controls' })).toHaveCount(0);
  });

  test('a thumbnail or a field link scrolls the document pane, never the window: the toolbar stays at the top (desktop and phone)', async () => {
    const { notary, signer } = pages;
    await notary.setViewportSize({ width: 1280, height: 800 });
    await notary.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Page 3', exact: true }).click();
    await expect.poll(() => notary.locator('.pages').evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
    await expect(notary.locator('.pages .pdf-page[data-page="3"]')).toBeInViewport();
    expect(await scrolledAncestors(notary)).toEqual([]);
    await expect(notary.locator('.workspace-bar')).toBeInViewport({ ratio: 1 });
    expect((await notary.locator('.session-room').boundingBox())?.y).toBe(0);

    await signer.setViewportSize({ width: 390, height: 844 });
    try {
      await signer.locator('.pages').evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
      await signer.getByRole('button', { name: /^Tools and your fields/ }).click();
      await signer.getByRole('list', { name: 'Your remaining fields' }).getByRole('button', { name: 'Initials on page 1' }).click();
      await expect(signer.getByRole('button', { name: 'Initial here' })).toBeFocused();
      await expect(signer.getByRole('button', { name: 'Initial here' })).toBeInViewport();
      expect(await scrolledAncestors(signer)).toEqual([]);
      await expect(signer.getByRole('button', { name: 'Hide video' })).toBeInViewport({ ratio: 1 });
      await expect(signer.locator('.workspace-bar')).toBeInViewport({ ratio: 1 });
    } finally {
      await signer.setViewportSize({ width: 1280, height: 720 });
    }
  });

  test('the notary reviews identity beside the call: the review scrolls by itself, and the ID photo, the selfie and the video are in view together', async () => {
    test.setTimeout(90_000);
    const { notary, signer, jobId } = pages;
    // The signer was let in as known to the notary; here they also send an ID and a selfie, so the
    // review has photographs to compare with the person on camera (the browser steps: identity-journey.spec).
    const { checkId } = await apiCall<{ checkId: string }>(signer.request, 'post', `/api/jobs/${jobId}/identity/start`, {
      data: {
        legalName: samSigner.legalName,
        birthDate: samSigner.birthDate,
        address: { street: samSigner.street, city: samSigner.city, state: samSigner.state, postalCode: samSigner.zip },
      },
    });
    const licence = { state: 'VA', issuerNumber: '636000', firstName: 'SAM', lastName: 'SIGNER', birthDate: samSigner.birthDate };
    await apiCall(signer.request, 'post', `/api/identity/${checkId}/credential`, {
      multipart: {
        documentType: 'drivers_license',
        front: { name: 'front.png', mimeType: 'image/png', buffer: await makeLicenceFront(licence) },
        back: { name: 'back.png', mimeType: 'image/png', buffer: await makeLicenceBack({ text: makeAamvaText(licence) }) },
      },
    });
    await apiCall(signer.request, 'post', `/api/identity/${checkId}/selfie`, {
      multipart: { selfie: { name: 'selfie.png', mimeType: 'image/png', buffer: makePng(300, 400, { color: [196, 150, 120] }) } },
    });

    await notary.setViewportSize({ width: 1280, height: 800 });
    // The photographs arrive only when let through, so the review is seen before and after they
    // load: nothing may move when they do (a photograph pushing the selfie out of view is what a
    // notary scrolling to it would otherwise see).
    const heldPhotos: Array<() => Promise<void>> = [];
    await notary.route('**/api/identity/*/images/*', (route) => {
      heldPhotos.push(() => route.continue());
    });
    const review = notary.locator('.identity-review');
    if (!(await review.evaluate((element) => (element as HTMLDetailsElement).open))) await review.locator('summary').click();
    await review.getByRole('button', { name: 'Check again' }).click();
    const idPhoto = review.getByRole('img', { name: 'Sam Signer: front of the card' });
    const selfie = review.getByRole('img', { name: 'Sam Signer: selfie' });
    await selfie.scrollIntoViewIfNeeded({ timeout: 15_000 });
    await expect.poll(() => heldPhotos.length).toBeGreaterThan(0);
    const boxBeforeLoad = await selfie.boundingBox();
    await Promise.all(heldPhotos.splice(0).map((release) => release()));
    await notary.unroute('**/api/identity/*/images/*');
    await Promise.all(heldPhotos.map((release) => release()));
    for (const photo of [idPhoto, selfie]) {
      await expect.poll(() => photo.evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0))).toBeGreaterThan(0);
    }
    expect(await selfie.boundingBox()).toEqual(boxBeforeLoad);
    for (const photo of [idPhoto, selfie]) {
      await expect(photo).toBeInViewport();
      await expect.poll(() => photo.evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0))).toBeGreaterThan(0);
    }
    await expect(notary.locator(`figure[data-participant-id="${signerEntry.participantId}"]`)).toBeInViewport({ ratio: 1 });
    await expect(notary.locator(`figure[data-participant-id="${notaryEntry.participantId}"]`)).toBeInViewport({ ratio: 1 });
    expect(await scrolledAncestors(notary)).toEqual([]);

    // Everything under the call (the session controls and the review) is read by scrolling it alone.
    await review.locator('summary').evaluate((element) => element.closest('.session-room-controls')?.scrollTo({ top: 99_999 }));
    await review.getByRole('button').last().scrollIntoViewIfNeeded();
    await expect(review.getByRole('button').last()).toBeInViewport();
    await expect(notary.locator(`figure[data-participant-id="${signerEntry.participantId}"]`)).toBeInViewport({ ratio: 1 });
    await expect(notary.locator(`figure[data-participant-id="${notaryEntry.participantId}"]`)).toBeInViewport({ ratio: 1 });
    expect(await scrolledAncestors(notary)).toEqual([]);
  });

  test('a signer with no saved signature adopts one in a dialog in the room, drawn or uploaded, and the field is signed without leaving the call', async () => {
    test.setTimeout(90_000);
    const { notary, signer } = pages;
    const signerCall = signer.getByRole('region', { name: 'Video call' });
    // Any navigation of the page, a same-document one (another route) included, is recorded.
    const navigations: string[] = [];
    signer.on('framenavigated', (frame) => {
      if (frame === signer.mainFrame()) navigations.push(frame.url());
    });
    // What the dialog asks the server to adopt, in order.
    const adoptions: Request[] = [];
    signer.on('request', (request) => {
      if (request.method() === 'POST' && /^\/api\/(signature|initials)$/.test(new URL(request.url()).pathname)) adoptions.push(request);
    });
    await signer.evaluate(() => Object.assign(window, { roomMarker: 'still here' }));
    const connection = () => signer.evaluate(() => performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/api/video/token')).length);
    const tokensBefore = await connection();

    // The signature, drawn on the pad.
    await signer.locator('.field-box.type-signature.mine').first().getByRole('button', { name: 'Sign here' }).click();
    const dialog = signer.getByRole('dialog', { name: 'Adopt your signature' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('radio', { name: 'Draw' })).toBeChecked();
    await drawSignature(signer);
    await expect(dialog.getByRole('img', { name: 'Signature drawing area: 2 strokes drawn' })).toBeVisible();
    await expect(dialog.getByRole('img', { name: 'Preview of the signature to save' })).toBeVisible();
    // The first adoption asks for consent to sign electronically; without it nothing is sent.
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Agree to sign electronically');
    expect(adoptions).toHaveLength(0);
    await dialog.getByRole('checkbox', { name: /I agree to sign electronically/ }).check();
    const signatureSaved = signer.waitForResponse(
      (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/signature',
    );
    await dialog.getByRole('button', { name: 'Adopt and sign' }).click();
    expect((await signatureSaved).ok()).toBe(true);
    await expect(dialog).toHaveCount(0);
    // The field clicked is signed with no second click.
    await expect(signer.getByRole('img', { name: 'Signature for Sam Signer, signed' })).toBeVisible({ timeout: 10_000 });
    await expect(notary.getByRole('img', { name: 'Signature for Sam Signer, signed' })).toBeVisible({ timeout: 10_000 });

    // The initials next, from an uploaded image: consent was given once and is not asked again.
    await signer.getByRole('button', { name: 'Initial here' }).click();
    const initials = signer.getByRole('dialog', { name: 'Adopt your initials' });
    await initials.getByRole('radio', { name: 'Upload' }).check();
    await initials
      .getByLabel('Initials image')
      .setInputFiles({ name: 'initials.png', mimeType: 'image/png', buffer: makePng(240, 120, { color: [0, 51, 91] }) });
    await expect(initials.getByRole('img', { name: 'Preview of the initials to save' })).toBeVisible();
    await expect(initials.getByRole('checkbox', { name: /I agree to sign electronically/ })).toHaveCount(0);
    const initialsSaved = signer.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/initials');
    await initials.getByRole('button', { name: 'Adopt and sign' }).click();
    expect((await initialsSaved).ok()).toBe(true);
    await expect(initials).toHaveCount(0);
    await expect(signer.getByRole('img', { name: 'Initials for Sam Signer, signed' })).toBeVisible({ timeout: 10_000 });

    // Two adoptions were asked for: the drawn signature with the consent, the uploaded initials without it.
    const bodies = adoptions.map((request) => [new URL(request.url()).pathname, request.postDataJSON() as Record<string, unknown>] as const);
    expect(bodies.map(([path, body]) => [path, body.method, body.hasAgreedToSignElectronically])).toEqual([
      ['/api/signature', 'draw', true],
      ['/api/initials', 'upload', undefined],
    ]);
    for (const [, body] of bodies) expect(body.imageDataUrl).toMatch(/^data:image\/png;base64,/);

    // Never left the room: no navigation, the same page and the same connection, nobody saw a drop.
    expect(navigations).toEqual([]);
    expect(new URL(signer.url()).pathname).toBe(roomUrl);
    expect(await signer.evaluate(() => (window as unknown as { roomMarker?: string }).roomMarker)).toBe('still here');
    expect(await connection()).toBe(tokensBefore);
    await expect(signerCall.getByRole('figure', { name: /Nadia Notary, Notary/ })).toBeVisible();
    await expect(notary.getByText(/lost their connection/)).toHaveCount(0);
    const framesBefore = await framesShown(notary, signerEntry.participantId);
    await expect.poll(() => framesShown(notary, signerEntry.participantId), { timeout: 15_000 }).toBeGreaterThan(framesBefore);
  });

  test('the room has no serious accessibility violation', async () => {
    const { violations } = await new AxeBuilder({ page: pages.signer }).include('.session-call').analyze();
    expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);
  });

  test('fits a 390 px phone: the video strip sits above the document and can be hidden', async () => {
    const { signer } = pages;
    await signer.setViewportSize({ width: 390, height: 844 });
    const strip = signer.locator('#session-call');
    const documentColumn = signer.locator('.session-document');
    await expect(strip).toBeVisible();
    const stripBox = await strip.boundingBox();
    const documentBox = await documentColumn.boundingBox();
    expect(stripBox && documentBox && stripBox.y + stripBox.height <= documentBox.y + 1).toBe(true);
    expect(await signer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const name of ['Mute', 'Turn camera off', 'Devices']) {
      const box = await signer.getByRole('button', { name, exact: true }).boundingBox();
      expect(box && box.height >= 44 && box.width >= 44).toBe(true);
    }
    await signer.getByRole('button', { name: 'Hide video' }).click();
    await expect(strip).toBeHidden();
    await signer.getByRole('button', { name: 'Show video' }).click();
    await expect(strip).toBeVisible();
  });

  test('ending the session sends everyone to the page that closes it', async () => {
    const { notary, signer } = pages;
    await notary.getByRole('region', { name: 'Session controls' }).getByRole('button', { name: 'End the session' }).click();
    await notary.getByRole('dialog').getByRole('button', { name: 'End the session' }).click();
    for (const page of [notary, signer]) await expect(page).toHaveURL(/\/session\/complete/, { timeout: 20_000 });
  });
});
