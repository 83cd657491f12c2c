import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser } from 'playwright-core';
import type { IceServer, ParticipantOffer, VideoRoom } from '#server/providers/video/video-provider.ts';

/** Chromium flags for WebRTC on loopback with a fake camera and microphone (TOOLCHAIN.md). */
export const chromiumMediaArgs = [
  '--no-sandbox',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-background-networking',
];

export interface ChromiumPeerConfiguration {
  iceServers?: IceServer[];
  iceTransportPolicy?: 'all' | 'relay';
}

/** What the browser page reports of its connection to the hub (from RTCPeerConnection and getStats). */
export interface ChromiumPeerStats {
  connectionState: string;
  iceConnectionState: string;
  iceGatheringState: string;
  /** Candidate types of the answer the page sent ('host', 'srflx', 'relay'). */
  localCandidateTypes: string[];
  /** The nominated pair in use, if any. */
  selectedPair: { localType: string; remoteType: string; localRelayProtocol: string | null } | null;
  /** icecandidateerror events (e.g. 401 from a TURN server refusing the credentials). */
  candidateErrors: { errorCode: number; errorText: string; url: string }[];
  framesDecoded: number;
  audioPacketsReceived: number;
  bytesSent: number;
}

interface BrowserPage {
  answerHub(input: {
    offer: ParticipantOffer['offer'];
    publish: ParticipantOffer['publish'];
    configuration: ChromiumPeerConfiguration;
  }): Promise<{ sdp: string }>;
  remoteUfrag(): string | undefined;
  hubStats(): Promise<ChromiumPeerStats>;
}

/**
 * Browser script: plays a received track in a muted element (inbound stats stay at zero in
 * headless Chromium unless the stream plays in an element).
 */
export const playTrackScript = `
function playTrack(track) {
  const element = document.createElement(track.kind);
  element.muted = true;
  element.autoplay = true;
  element.srcObject = new MediaStream([track]);
  document.body.append(element);
  void element.play().catch(() => {});
}
`;

/**
 * Browser script: answers the hub's offer with the camera and microphone on the publish mids
 * (sendonly), ICE gathered, as the web app does. Shared by the test participants and the benchmark.
 */
export const answerWithCameraScript = `
async function answerWithCamera(pc, stream, offer, publish) {
  await pc.setRemoteDescription(offer);
  for (const transceiver of pc.getTransceivers()) {
    for (const kind of ['audio', 'video']) {
      if (transceiver.mid !== publish[kind] || transceiver.sender.track) continue;
      transceiver.direction = 'sendonly';
      await transceiver.sender.replaceTrack(stream.getTracks().find((track) => track.kind === kind));
    }
  }
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') resolve();
    else pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && resolve());
  });
  return { sdp: pc.localDescription.sdp };
}
`;

/** What the web app will do with the server's offer, as plain browser script. */
const browserPage = `<!doctype html><title>media hub test</title><body><script>
${playTrackScript}
${answerWithCameraScript}
let pc, stream;
const candidateErrors = [];
window.answerHub = async ({ offer, publish, configuration }) => {
  if (!pc) {
    pc = new RTCPeerConnection(configuration);
    pc.addEventListener('icecandidateerror', (event) => candidateErrors.push({ errorCode: event.errorCode, errorText: event.errorText, url: event.url }));
    pc.addEventListener('track', (event) => playTrack(event.track));
    stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
  }
  return answerWithCamera(pc, stream, offer, publish);
};
window.remoteUfrag = () => /a=ice-ufrag:(\\S+)/.exec(pc?.remoteDescription?.sdp ?? '')?.[1];
window.hubStats = async () => {
  const stats = [...(await pc.getStats()).values()];
  const byId = new Map(stats.map((entry) => [entry.id, entry]));
  const transport = stats.find((entry) => entry.type === 'transport' && entry.selectedCandidatePairId);
  const pair = transport ? byId.get(transport.selectedCandidatePairId) : undefined;
  const local = pair ? byId.get(pair.localCandidateId) : undefined;
  const remote = pair ? byId.get(pair.remoteCandidateId) : undefined;
  const sum = (type, kind, field) => stats.filter((entry) => entry.type === type && (!kind || entry.kind === kind)).reduce((total, entry) => total + (entry[field] ?? 0), 0);
  return {
    connectionState: pc.connectionState,
    iceConnectionState: pc.iceConnectionState,
    iceGatheringState: pc.iceGatheringState,
    localCandidateTypes: [...(pc.localDescription?.sdp ?? '').matchAll(/a=candidate:.* typ (\\w+)/g)].map((match) => match[1]),
    selectedPair: local && remote ? { localType: local.candidateType, remoteType: remote.candidateType, localRelayProtocol: local.relayProtocol ?? null } : null,
    candidateErrors,
    framesDecoded: sum('inbound-rtp', 'video', 'framesDecoded'),
    audioPacketsReceived: sum('inbound-rtp', 'audio', 'packetsReceived'),
    bytesSent: sum('outbound-rtp', null, 'bytesSent'),
  };
};
</script>`;

/** One headless Chromium serving the test page; each participant is a context of its own. */
export interface MediaBrowser {
  browser: Browser;
  pageUrl: string;
  close(): Promise<void>;
}

export async function launchMediaBrowser(): Promise<MediaBrowser> {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(browserPage);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const closeServer = () => new Promise((resolve) => server.close(resolve));
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumMediaArgs });
  } catch (error) {
    await closeServer();
    throw error;
  }
  return {
    browser,
    pageUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      await browser.close();
      await closeServer();
    },
  };
}

export interface ChromiumParticipant {
  /** Answers an offer of the server (the first one, a renegotiation or an ICE restart). */
  answer(offer: ParticipantOffer): Promise<void>;
  remoteUfrag(): Promise<string | undefined>;
  stats(): Promise<ChromiumPeerStats>;
}

/**
 * A Chromium participant with a fake camera and microphone in a new context of `media`, answering
 * the server like the web app will. Joins the room and answers the first offer; the caller answers
 * renegotiations with `answer`.
 */
export async function joinChromium(
  media: MediaBrowser,
  room: VideoRoom,
  participantId: string,
  configuration: ChromiumPeerConfiguration = {},
): Promise<ChromiumParticipant> {
  const context = await media.browser.newContext();
  const page = await context.newPage();
  await page.goto(media.pageUrl);
  const answer = async (offer: ParticipantOffer) => {
    const description = await page.evaluate((input) => (window as unknown as BrowserPage).answerHub(input), {
      offer: offer.offer,
      publish: offer.publish,
      configuration,
    });
    await room.acceptAnswer(participantId, { type: 'answer', sdp: description.sdp });
  };
  await answer(await room.join(participantId));
  return {
    answer,
    remoteUfrag: () => page.evaluate(() => (window as unknown as BrowserPage).remoteUfrag()),
    stats: () => page.evaluate(() => (window as unknown as BrowserPage).hubStats()),
  };
}

/** Waits until `check` passes, polling; fails with the last error after `ms`. */
export async function eventually(check: () => void | Promise<void>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
