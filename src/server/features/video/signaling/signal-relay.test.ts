import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '#server/config.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { createWeriftSfu } from '#server/providers/video/werift-sfu.ts';
import { eventually, launchMediaBrowser, type MediaBrowser } from '#test/chromium-participant.ts';
import { coturnMissingReason, startCoturn, type Coturn } from '#test/coturn.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { createJobKit } from '#test/job-fixtures.ts';
import { openSignalPage, sessionTokenOf, writeSignalPage } from '#test/signal-client.ts';
import { castVideoJob } from '#test/video-cast.ts';

const missing = coturnMissingReason();
if (missing) console.warn(missing);

/**
 * The relay-only journey: a deployment with ICE_SERVERS naming a TURN server and
 * ICE_TRANSPORT_POLICY=relay. The notary and an admitted signer enter through the real signaling
 * socket, are told to relay, and see each other with every byte through a real coturn on loopback.
 */
describe.skipIf(missing !== null)('a relay-only session through the signaling socket and a real coturn', () => {
  let turn: Coturn;
  let media: MediaBrowser;
  let hub: VideoProvider;
  let t: TestApp;
  let baseUrl: string;
  let dataDir: string;

  beforeAll(async () => {
    turn = await startCoturn();
    media = await launchMediaBrowser();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ron-relay-'));
    writeSignalPage(path.join(dataDir, 'web'));
    const env = {
      DATA_DIR: dataDir,
      WEB_DIST_DIR: path.join(dataDir, 'web'),
      ICE_SERVERS: JSON.stringify([{ urls: turn.url, username: turn.username, credential: turn.credential }]),
      ICE_TRANSPORT_POLICY: 'relay',
    };
    hub = createWeriftSfu({ ...parseConfig(env).video, iceAdditionalHostAddresses: ['127.0.0.1'], keyframeIntervalMs: 500 });
    t = await createTestApp(env, { video: hub });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await media?.close();
    await t?.close();
    await hub?.close();
    await turn?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('tells each browser to relay, and the two see each other through the TURN server', async () => {
    const kit = createJobKit(t);
    const cast = await castVideoJob(t, kit);
    const sessionId = (await kit.call(cast.notary, 'POST', '/api/video/session', { jobId: cast.job.id })).json().sessionId as string;
    const people: Array<[TestUser, 'notary' | 'signer', string]> = [
      [cast.notary, 'notary', 'notary'],
      [cast.signer, 'signer', cast.idOf(cast.signer)],
    ];
    for (const [person] of people) {
      const joined = await kit.call(person, 'POST', `/api/jobs/${cast.job.id}/session/join`, {
        consentToRecording: true,
        deviceGroupId: `dg-${person.id.slice(0, 8)}`,
      });
      expect(joined.statusCode, joined.body).toBe(200);
    }
    const base = `/api/video/session/${sessionId}`;
    for (const url of [`${base}/participants/${cast.idOf(cast.signer)}/admit`, `${base}/activate/dg-${cast.notary.id.slice(0, 8)}`]) {
      expect((await kit.call(cast.notary, 'POST', url)).statusCode).toBe(200);
    }
    const pages = [];
    for (const [person, role, participantId] of people) {
      const token = (
        await kit.call(person, 'POST', '/api/video/token', { sessionId, role, participantId, deviceGroupId: `dg-${person.id.slice(0, 8)}` })
      ).json().token as string;
      const page = await openSignalPage(media, baseUrl, sessionTokenOf(await t.signInAs(person)));
      await page.connect(sessionId, token);
      pages.push(page);
    }
    for (const page of pages) {
      await eventually(async () => {
        const state = await page.state();
        expect(state.errors).toEqual([]);
        expect(state.welcome).toMatchObject({ iceTransportPolicy: 'relay', iceServers: [{ urls: turn.url }] });
        expect(state.selectedCandidateType).toBe('relay');
        expect(state.framesDecoded).toBeGreaterThan(10);
      }, 40_000);
    }
  }, 90_000);
});
