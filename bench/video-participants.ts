/**
 * Chromium participants for the media hub benchmark: one headless Chromium (fake camera and
 * microphone, test/chromium-participant.ts flags), one context per participant, answering the hub
 * like the web app. Each page notes when the first frame of each other participant was shown
 * (requestVideoFrameCallback on a playing <video>) and reports its frame counters from getStats.
 */
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { answerWithCameraScript, chromiumMediaArgs } from '#test/chromium-participant.ts';
import type { ParticipantOffer, VideoRoom } from '#server/providers/video/video-provider.ts';

/** Frame counters of one page, summed over its streams. */
export interface PageFrames {
  /** Video frames decoded, dropped and received, per other participant (stream id = participant id). */
  inbound: Record<string, { framesDecoded: number; framesDropped: number; framesReceived: number; packetsLost: number }>;
  framesEncoded: number;
  frameWidth: number;
  frameHeight: number;
  qualityLimitationReason: string;
}

interface BenchWindow {
  answerHub(input: { offer: ParticipantOffer['offer']; publish: ParticipantOffer['publish'] }): Promise<{ sdp: string }>;
  firstFrames(): Record<string, number>;
  frames(): Promise<PageFrames>;
}

const page = `<!doctype html><title>media hub benchmark</title><body><script>
${answerWithCameraScript}
let pc, stream;
const firstFrameAt = {};
const fromByMid = {};
window.answerHub = async ({ offer, publish }) => {
  if (!pc) {
    pc = new RTCPeerConnection();
    pc.addEventListener('track', (event) => {
      const from = event.streams[0]?.id ?? event.track.id;
      fromByMid[event.transceiver.mid] = from;
      const element = document.createElement(event.track.kind);
      element.muted = true;
      element.autoplay = true;
      element.srcObject = new MediaStream([event.track]);
      if (event.track.kind === 'video') {
        element.width = 160;
        element.requestVideoFrameCallback(() => { firstFrameAt[from] ??= Date.now(); });
      }
      document.body.append(element);
      void element.play().catch(() => {});
    });
    stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
  }
  return answerWithCamera(pc, stream, offer, publish);
};
window.firstFrames = () => ({ ...firstFrameAt });
window.frames = async () => {
  const stats = [...(await pc.getStats()).values()];
  const inbound = {};
  const out = { framesEncoded: 0, frameWidth: 0, frameHeight: 0, qualityLimitationReason: 'none' };
  for (const entry of stats) {
    if (entry.type === 'inbound-rtp' && entry.kind === 'video') {
      const from = fromByMid[entry.mid] ?? entry.mid;
      inbound[from] = { framesDecoded: entry.framesDecoded ?? 0, framesDropped: entry.framesDropped ?? 0, framesReceived: entry.framesReceived ?? 0, packetsLost: entry.packetsLost ?? 0 };
    }
    if (entry.type === 'outbound-rtp' && entry.kind === 'video') {
      Object.assign(out, { framesEncoded: entry.framesEncoded ?? 0, frameWidth: entry.frameWidth ?? 0, frameHeight: entry.frameHeight ?? 0, qualityLimitationReason: entry.qualityLimitationReason ?? 'none' });
    }
  }
  return { inbound, ...out };
};
</script>`;

export interface BenchBrowser {
  browser: Browser;
  pageUrl: string;
  close(): Promise<void>;
}

/**
 * Chromium at the given niceness (0: as is) through a small wrapper script, so the hub in this
 * process gets the CPU first and the browser's own shortfall shows as frames it drops.
 */
function browserExecutable(nice: number): { path: string; cleanup(): void } {
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (nice === 0) return { path: chromiumPath, cleanup: () => undefined };
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'open-ron-bench-chromium-'));
  const wrapper = path.join(directory, 'chromium');
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec nice -n ${nice} '${chromiumPath}' "$@"\n`, { mode: 0o700 });
  return { path: wrapper, cleanup: () => fs.rmSync(directory, { recursive: true, force: true }) };
}

export async function launchBenchBrowser(nice: number): Promise<BenchBrowser> {
  const server = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const executable = browserExecutable(nice);
  const closeServer = async () => {
    executable.cleanup();
    await new Promise((resolve) => server.close(resolve));
  };
  const browser = await chromium.launch({ executablePath: executable.path, args: chromiumMediaArgs }).catch(async (error: unknown) => {
    await closeServer();
    throw error;
  });
  return {
    browser,
    pageUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      await browser.close();
      await closeServer();
    },
  };
}

export interface BenchParticipant {
  id: string;
  /** Date.now() when the join began (before the hub's offer was asked for). */
  joinedAt: number;
  /** Date.now() when the first frame of each other participant was shown, by participant id. */
  firstFrames(): Promise<Record<string, number>>;
  frames(): Promise<PageFrames>;
  leave(): Promise<void>;
}

export type AnsweringParticipant = BenchParticipant & { answer(offer: ParticipantOffer): Promise<void> };

/** Routes the hub's renegotiation offers (someone joined) to the participant's page. */
export function answerRenegotiations(room: VideoRoom, participants: Map<string, AnsweringParticipant>, onError: (error: unknown) => void): void {
  room.onRenegotiation((offer) => {
    const participant = participants.get(offer.participantId);
    if (participant) participant.answer(offer).catch(onError);
  });
}

/** Opens a page in a new context, joins the room and answers the hub's first offer. */
export async function joinBenchParticipant(media: BenchBrowser, room: VideoRoom, id: string): Promise<AnsweringParticipant> {
  const context: BrowserContext = await media.browser.newContext();
  const tab = await context.newPage();
  await tab.goto(media.pageUrl);
  const answer = async (offer: ParticipantOffer) => {
    const description = await tab.evaluate((input) => (window as unknown as BenchWindow).answerHub(input), { offer: offer.offer, publish: offer.publish });
    await room.acceptAnswer(id, { type: 'answer', sdp: description.sdp });
  };
  const joinedAt = Date.now();
  await answer(await room.join(id));
  return {
    id,
    joinedAt,
    answer,
    firstFrames: () => tab.evaluate(() => (window as unknown as BenchWindow).firstFrames()),
    frames: () => tab.evaluate(() => (window as unknown as BenchWindow).frames()),
    async leave() {
      await room.leave(id);
      await context.close();
    },
  };
}
