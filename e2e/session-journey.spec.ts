import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect as baseExpect, test, type Browser, type Page } from '@playwright/test';
import { makePdf } from '../test/pdf-fixtures.ts';
import { makePng } from '../test/png-fixtures.ts';
import {
  agreeToSignElectronicallyIfAsked,
  approveApplication,
  drawSignature,
  expectAccessibleBothWays,
  findSeriousViolations,
  openAdminPage,
  registerNotary,
  uniqueEmail,
} from './helpers.ts';
import { cuttableNetwork, type NetworkCut } from './network-cut.ts';
import { apiCall, apiGet, claimInvitations, confirmEmail } from './role-pages.ts';

/**
 * The whole live notarization in three Chromium browsers with fake cameras: a
 * notary registers, completes the commission profile on a phone, is approved and goes online; the
 * notary opens the session, admits a signer and a witness, each decodes the others' video, the notary
 * records, the signer fills a field, the signer's network drops and comes back by itself, the notary
 * seals, the session ends for everyone, and the stored recording decodes, lasts as long as the
 * session and is hashed into the audit chain. The journal of an act is notarial-act.spec.ts.
 */

/** Three browsers, a media hub and a recorder share two cores: every step gets 15 s rather than 5. */
const expect = baseExpect.configure({ timeout: 15_000 });

const jobTitle = 'Journey: deed of trust';
const signerName = 'Sid Signer';
const witnessName = 'Wren Witness';
const notaryName = 'Nora Notary';

interface PlaybackSegment {
  segmentId: string;
  startedAt: string;
  endedAt: string;
  sha256: string;
  url: string;
}
interface JobRecordings {
  recordings: Array<{
    recordingId: string;
    status: string;
    startedAt: string;
    stoppedAt: string | null;
    tracks: Array<{ participantId: string; name: string; segments: PlaybackSegment[] }>;
  }>;
}

/** Frames the tile of this person has shown: their camera really arrived through the hub. */
function framesShownOf(page: Page, name: RegExp) {
  return page
    .getByRole('region', { name: 'Video call' })
    .getByRole('figure', { name })
    .locator('video')
    .evaluate((video: HTMLVideoElement) => (video.videoWidth > 0 ? video.getVideoPlaybackQuality().totalVideoFrames : 0));
}

async function probeSeconds(file: string): Promise<{ seconds: number; codecs: string[] }> {
  const { stdout } = await promisify(execFile)('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name:format=duration', '-of', 'json', file]);
  const probe = JSON.parse(stdout) as { streams: Array<{ codec_name: string }>; format: { duration?: string } };
  return { seconds: Number(probe.format.duration ?? 0), codecs: probe.streams.map((stream) => stream.codec_name) };
}

test.describe.serial('a live notarization from the first hello to the sealed document', () => {
  const contexts: Array<{ close(): Promise<void> }> = [];
  let notary: Page;
  let signer: Page;
  let witness: Page;
  let jobId = '';
  let documentId = '';
  let signerNetwork: NetworkCut;

  async function newPage(browser: Browser) {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      throw new Error(`A native ${dialog.type()} appeared: ${dialog.message()}`);
    });
    return page;
  }

  let admin: Page;
  let browserOf: Browser;

  test.beforeAll(async ({ browser }) => {
    browserOf = browser;
    admin = await openAdminPage(browser);
    contexts.push(admin.context());
  });

  test('a notary registers, completes the commission profile on a phone, is approved and goes online', async () => {
    test.setTimeout(180_000);
    notary = await newPage(browserOf);
    const email = uniqueEmail('journey-notary');
    await registerNotary(notary, notaryName, email);
    await confirmEmail(notary, email);

    // The profile on a phone: what is missing before approval, then the form, the documents, the signature.
    await notary.setViewportSize({ width: 390, height: 844 });
    await notary.goto('/dashboard?tab=profile');
    const missing = notary.getByRole('region', { name: 'Before approval' });
    await expect(missing.getByText('The name as commissioned is missing.')).toBeVisible();
    const form = notary.getByRole('form', { name: 'Commission' });
    await form.getByLabel('Name as commissioned').fill(notaryName);
    await form.getByLabel('Commission start').fill('2023-06-01');
    await form.getByLabel('Bond amount (USD)').fill('10000');
    await form.getByLabel('Bond expiry').fill('2031-05-31');
    await form.getByLabel('E&O coverage (USD)').fill('25000');
    await form.getByLabel('E&O expiry').fill('2031-05-31');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await expect(missing.getByText('The name as commissioned is missing.')).toHaveCount(0);

    const documents = notary.getByRole('region', { name: 'Documents and seal' });
    const files = [
      { kind: 'Commission certificate', name: 'commission.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Commission certificate') },
      { kind: 'Surety bond', name: 'bond.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Surety bond') },
      { kind: 'E&O insurance policy', name: 'eo-policy.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'E&O policy') },
      { kind: 'Seal image', name: 'seal.png', mimeType: 'image/png', buffer: makePng(300, 300, { color: [0, 51, 91] }) },
    ];
    for (const { kind, ...file } of files) {
      await documents.getByLabel('Document to upload').selectOption({ label: kind });
      await documents.locator('input[type="file"]').setInputFiles(file);
      await expect(documents.getByRole('link', { name: file.name })).toBeVisible({ timeout: 15_000 });
    }
    for (const [path, kind] of [
      ['/signature', 'Signature'],
      ['/initials', 'Initials'],
    ] as const) {
      await notary.goto(path);
      await drawSignature(notary, kind);
      await agreeToSignElectronicallyIfAsked(notary);
      await notary.getByRole('button', { name: `Save ${kind.toLowerCase()}` }).click();
      await expect(notary.getByText(`${kind} saved.`)).toBeVisible();
    }
    await notary.goto('/dashboard?tab=profile');
    await expect(missing.getByText('The profile is complete.')).toBeVisible();
    baseExpect(await notary.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    baseExpect(await findSeriousViolations(notary)).toEqual([]);

    await approveApplication(admin, notaryName);

    // Approved: the notary goes online from the sidebar's switch, and it stays on after a reload.
    await notary.setViewportSize({ width: 1280, height: 720 });
    await notary.goto('/dashboard?tab=jobs');
    const available = notary.getByRole('switch', { name: 'Available for notarizations' });
    await expect(available).toHaveAttribute('aria-checked', 'false');
    await available.click();
    await expect(available).toHaveAttribute('aria-checked', 'true');
    await notary.reload();
    await expect(notary.getByRole('switch', { name: 'Available for notarizations' })).toHaveAttribute('aria-checked', 'true');
    const status = await apiGet<{ is_available: boolean }>(notary.request, '/api/notary-availability/status');
    baseExpect(status.is_available).toBe(true);
  });

  test('the notary prepares the job and the signer and the witness claim their invitations', async () => {
    test.setTimeout(120_000);
    const { user } = await apiGet<{ user: { id: string } }>(notary.request, '/api/auth/me');
    const notaryId = user.id;
    const people = [
      { name: signerName, email: uniqueEmail('journey-signer'), role: 'signer' },
      { name: witnessName, email: uniqueEmail('journey-witness'), role: 'witness' },
    ];
    const job = await apiCall<{ id: string }>(notary.request, 'post', '/api/jobs', {
      data: { title: jobTitle, notarizationType: 'acknowledgment', notaryId, signers: people },
    });
    jobId = job.id;
    const uploaded = await apiCall<{ items: Array<{ id: string }> }>(notary.request, 'post', `/api/jobs/${jobId}/documents`, {
      multipart: { files: { name: 'journey-deed.pdf', mimeType: 'application/pdf', buffer: await makePdf(1, 'Journey deed') } },
    });
    documentId = uploaded.items[0]?.id ?? '';
    const assets = await apiGet<{ participants: Array<{ id: string; role: string }> }>(notary.request, `/api/jobs/${jobId}/signing-assets`);
    const signerId = assets.participants.find((person) => person.role === 'signer')?.id ?? '';
    const fields = `/api/jobs/${jobId}/documents/${documentId}/fields`;
    await apiCall(notary.request, 'post', fields, { data: { type: 'text', page: 1, x: 0.1, y: 0.3, width: 0.3, height: 0.05, participantId: signerId } });
    await apiCall(notary.request, 'post', fields, { data: { type: 'notary_seal', page: 1, x: 0.6, y: 0.6, width: 0.25, height: 0.15, participantId: null } });
    const current = await apiGet<{ version: number }>(notary.request, `/api/jobs/${jobId}`);
    await apiCall(notary.request, 'patch', `/api/jobs/${jobId}`, { data: { status: 'ready', version: current.version } });
    const claimed = await claimInvitations(people, () => newPage(browserOf), 'journey password');
    [signer, witness] = claimed as [Page, Page];
    signerNetwork = await cuttableNetwork(signer);
    // The identity step has its own journey (identity-journey.spec): here the notary lets the signer
    // and the witness past it as people they know personally (a bypass the state allows).
    for (const participant of assets.participants.filter((person) => person.role !== 'observer')) {
      await apiCall(notary.request, 'post', `/api/jobs/${jobId}/signers/${participant.id}/id-bypass`, {
        data: { enabled: true, reason: 'Identity step not under test here', method: 'personal_knowledge' },
      });
    }
  });

  test.afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  test('the notary opens the session; the signer and the witness wait and are admitted', async () => {
    test.setTimeout(120_000);
    await notary.goto(`/session/${jobId}`);
    await notary.getByLabel(/I agree that this session is recorded/).check();
    await notary.getByRole('button', { name: 'Enter the room' }).click();
    await expect(notary).toHaveURL(new RegExp(`/session/${jobId}/${documentId}$`));

    for (const page of [signer, witness]) {
      await page.goto(`/session/${jobId}`);
      await page.getByLabel(/I agree that this session is recorded/).check();
      await page.getByRole('button', { name: 'Enter the room' }).click();
      await expect(page.getByText('The notary will let you in')).toBeVisible();
    }
    const waiting = notary.getByRole('list', { name: 'Waiting to be let in' });
    for (const name of [signerName, witnessName]) await waiting.getByRole('button', { name: `Admit ${name}` }).click({ timeout: 20_000 });
    for (const page of [signer, witness]) await expect(page).toHaveURL(new RegExp(`/session/${jobId}/${documentId}$`), { timeout: 20_000 });
  });

  test('each of the three decodes the other two’s video through the hub', async () => {
    test.setTimeout(90_000);
    const others: Array<[Page, RegExp[]]> = [
      [notary, [new RegExp(`${signerName}, Signer`), new RegExp(`${witnessName}, Witness`)]],
      [signer, [new RegExp(`${notaryName}, Notary`), new RegExp(`${witnessName}, Witness`)]],
      [witness, [new RegExp(`${notaryName}, Notary`), new RegExp(`${signerName}, Signer`)]],
    ];
    for (const [page, names] of others) {
      for (const name of names) await expect.poll(() => framesShownOf(page, name), { timeout: 40_000 }).toBeGreaterThan(0);
    }
  });

  test('the notary starts and records the session; everyone sees that it is recording', async () => {
    await notary.getByRole('button', { name: 'Start the notarization' }).click();
    await expect(notary.getByRole('region', { name: 'Session controls' }).getByText('The notarization has started and is being recorded.')).toBeVisible();
    for (const page of [notary, signer, witness]) {
      await expect(page.getByRole('status').filter({ hasText: 'This session is being recorded' })).toBeVisible({ timeout: 15_000 });
    }
  });

  test('the witness’s room has no serious accessibility violation, on a desktop and on a 390 px phone', async () => {
    await expectAccessibleBothWays(witness, 'the room, witness');
  });

  test('the signer fills their field, live for the notary', async () => {
    const field = signer.getByRole('group', { name: `Text for ${signerName}` });
    await expect(field).toBeVisible({ timeout: 20_000 });
    await field.click();
    const text = signer.getByRole('textbox', { name: `Text for ${signerName}` });
    await text.fill('Parcel 9, Lot 4');
    await signer.keyboard.press('Enter');
    await expect(signer.getByRole('group', { name: `Text for ${signerName}, filled` })).toContainText('Parcel 9, Lot 4');
    await expect(notary.getByRole('group', { name: `Text for ${signerName}, filled` })).toContainText('Parcel 9, Lot 4', { timeout: 15_000 });
  });

  test('the notary seals the job in the session', async () => {
    test.setTimeout(120_000);
    // Sealed before the signer's network drops: the hub takes a person whose signaling went quiet out
    // of the room, so their track has a gap as long as the cut, and one over the state's limit would
    // rightly block the seal (recording-gaps.test.ts); how long the cut lasts depends on the machine's load.
    await baseExpect(async () => {
      await notary.getByRole('group', { name: 'Notary seal for the notary' }).getByRole('button', { name: 'Fill notary seal' }).click({ timeout: 5_000 });
      await expect(notary.getByRole('img', { name: new RegExp(`Notary seal of ${notaryName}`) }).first()).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 40_000 });
    await notary.getByRole('button', { name: 'Complete this document' }).click();
    await notary
      .getByRole('dialog', { name: /^Complete .*\?$/ })
      .getByRole('button', { name: 'Complete the document' })
      .click();
    await expect(notary.getByText('journey-deed.pdf is complete.')).toBeVisible({ timeout: 20_000 });
    // An act is sealed on recorded media: the recording must have stored its first segments, which it
    // does some seconds after it starts (sealing before says so: recording-gaps.test.ts).
    await baseExpect
      .poll(
        async () => {
          const playback = await apiGet<JobRecordings>(notary.request, `/api/jobs/${jobId}/recordings`);
          return playback.recordings[0]?.tracks.filter((track) => track.segments.length > 0).length ?? 0;
        },
        { timeout: 40_000 },
      )
      .toBe(3);
    await notary.getByRole('button', { name: 'Seal and complete the job' }).click();
    await notary.getByRole('dialog', { name: 'Seal and complete the job?' }).getByRole('button', { name: 'Seal and sign' }).click();
    await expect(notary.getByText('The job is sealed and digitally signed.').first()).toBeVisible({ timeout: 60_000 });
  });

  test('the signer’s network drops and comes back without the notary acting; everyone sees a banner meanwhile', async () => {
    test.setTimeout(120_000);
    const signerCall = signer.getByRole('region', { name: 'Video call' });
    await signerNetwork.set(true);
    await expect(signerCall.getByText(/^Your connection dropped\. Reconnecting/)).toBeVisible({ timeout: 30_000 });
    // On a loaded machine another person's connection may wobble at the same time: the banner then names both.
    for (const page of [notary, witness])
      await expect(page.getByText(/lost their connection\. Waiting for them to come back…$/).filter({ hasText: signerName })).toBeVisible({ timeout: 30_000 });
    await signerNetwork.set(false);
    for (const page of [notary, witness]) await expect(page.getByText(/lost their connection/)).toHaveCount(0, { timeout: 40_000 });
    const before = await framesShownOf(notary, new RegExp(`${signerName}, Signer`));
    await expect.poll(() => framesShownOf(notary, new RegExp(`${signerName}, Signer`)), { timeout: 30_000 }).toBeGreaterThan(before);
  });

  test('the notary ends the session for everyone', async () => {
    test.setTimeout(120_000);
    await notary.getByRole('button', { name: 'End the session' }).first().click();
    await notary.getByRole('dialog', { name: 'End the session for everyone?' }).getByRole('button', { name: 'End the session' }).click();
    for (const page of [notary, signer, witness]) {
      await expect(page).toHaveURL(new RegExp(`/session/complete\\?jobId=${jobId}$`), { timeout: 40_000 });
      await expect(page.getByRole('heading', { name: 'The session has ended' })).toBeVisible();
    }
    await expect(signer.getByText('The notary sealed the documents.', { exact: false })).toBeVisible();
  });

  test('the recording decodes, lasts as long as the session, and every segment’s hash is in the audit chain', async () => {
    test.setTimeout(120_000);
    const playback = await apiGet<JobRecordings>(notary.request, `/api/jobs/${jobId}/recordings`);
    expect(playback.recordings).toHaveLength(1);
    const [recording] = playback.recordings;
    if (!recording?.stoppedAt) throw new Error('the recording did not stop with the session');
    expect(recording.status).toBe('stopped');
    const recordedSeconds = (Date.parse(recording.stoppedAt) - Date.parse(recording.startedAt)) / 1000;
    expect(recording.tracks.map((track) => track.name).sort()).toEqual([notaryName, signerName, witnessName].sort());
    const audit = await apiGet<{ events: Array<{ action: string; data: Record<string, unknown> }>; verification: { isValid: boolean } }>(
      notary.request,
      `/api/jobs/${jobId}/audit`,
    );
    expect(audit.verification.isValid).toBe(true);
    const chained = new Set(audit.events.filter((event) => event.action === 'recording.segment_saved').map((event) => event.data.sha256));
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-journey-'));
    try {
      for (const track of recording.tracks) {
        let seconds = 0;
        const intervals: Array<[number, number]> = [];
        for (const segment of track.segments) {
          const response = await notary.request.get(segment.url);
          expect(response.status(), segment.url).toBe(200);
          const body = await response.body();
          expect(createHash('sha256').update(body).digest('hex')).toBe(segment.sha256);
          expect(chained.has(segment.sha256), `${track.name}'s segment is in the audit chain`).toBe(true);
          const file = path.join(directory, `${segment.segmentId}.webm`);
          fs.writeFileSync(file, body);
          const probe = await probeSeconds(file);
          expect(probe.codecs, `${track.name}'s segment has video`).toContain('vp8');
          expect(probe.seconds, `${track.name}'s segment from ${segment.startedAt} to ${segment.endedAt} lasts about as long as it was recorded`).toBeLessThan(
            (Date.parse(segment.endedAt) - Date.parse(segment.startedAt)) / 1000 + 3,
          );
          seconds += probe.seconds;
          intervals.push([Date.parse(segment.startedAt), Date.parse(segment.endedAt)]);
        }
        // The time the track covers: its segments' recorded times, joined where they overlap (a person
        // who rejoins on a new connection starts a segment while the old one is still closing).
        let wallSeconds = 0;
        let reach = Number.NEGATIVE_INFINITY;
        for (const [start, end] of intervals.sort((a, b) => a[0] - b[0])) {
          wallSeconds += Math.max(0, end - Math.max(start, reach)) / 1000;
          reach = Math.max(reach, end);
        }
        // Nobody's track claims more than the session lasted: the time its segments cover (what the
        // certificate states; each file's own length was checked against its times above, and a second
        // of media jitter per file must not add up to a claim). The notary never left: their
        // track covers the whole recording. Another person's media may have stopped for a while (a
        // dropped network, a browser starved of CPU): that is a gap in their track, listed on the certificate.
        expect(wallSeconds, `${track.name}'s recorded seconds against ${recordedSeconds} s of session`).toBeLessThan(recordedSeconds + 5);
        expect(seconds, `${track.name} was recorded`).toBeGreaterThan(0);
        if (track.name === notaryName)
          expect(seconds, `the notary's recorded seconds against ${recordedSeconds} s of session`).toBeGreaterThan(recordedSeconds - 5);
      }
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
