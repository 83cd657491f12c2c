import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { signalPath, type SignalClientMessage, type SignalPeer, type SignalServerMessage } from '#shared/video-signaling.ts';
import { sessionCookieName } from '#server/lib/http.ts';
import { eventually, playTrackScript, type MediaBrowser } from './chromium-participant.ts';

/**
 * A browser's side of the signaling contract (src/shared/video-signaling.ts) as plain script, the
 * way the web app speaks it: hello, answer every offer with the fake camera and microphone on the
 * `publish` mids, trickle candidates, keep the latest peers and recording.
 */
const signalScript = `
${playTrackScript}
const state = { closeCode: null, closeReason: null, types: [], peers: [], recording: undefined, welcome: null, errors: [] };
let ws, pc, stream;
const send = (message) => ws.send(JSON.stringify(message));
async function answer(message) {
  if (!pc) {
    pc = new RTCPeerConnection({ iceServers: state.welcome.iceServers, iceTransportPolicy: state.welcome.iceTransportPolicy });
    pc.addEventListener('icecandidate', (event) => send({ type: 'candidate', candidate: event.candidate ? event.candidate.toJSON() : null }));
    pc.addEventListener('track', (event) => playTrack(event.track));
    stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
  }
  await pc.setRemoteDescription({ type: 'offer', sdp: message.sdp });
  for (const transceiver of pc.getTransceivers()) {
    for (const kind of ['audio', 'video']) {
      if (transceiver.mid !== message.publish[kind] || transceiver.sender.track) continue;
      transceiver.direction = 'sendonly';
      await transceiver.sender.replaceTrack(stream.getTracks().find((track) => track.kind === kind));
    }
  }
  await pc.setLocalDescription(await pc.createAnswer());
  send({ type: 'answer', sdp: pc.localDescription.sdp });
}
let answering = Promise.resolve();
window.connectSignal = ({ sessionId, token, sendsHello }) => new Promise((resolve) => {
  ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '${signalPath}');
  ws.addEventListener('open', () => {
    if (sendsHello) send({ type: 'hello', sessionId, token });
    resolve();
  });
  ws.addEventListener('close', (event) => { state.closeCode = event.code; state.closeReason = event.reason; resolve(); });
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    state.types.push(message.type);
    if (message.type === 'welcome') state.welcome = message;
    if (message.type === 'peers') state.peers = message.peers;
    if (message.type === 'recording') state.recording = message.recording;
    if (message.type === 'error') state.errors.push(message.message);
    if (message.type === 'offer') answering = answering.then(() => answer(message)).catch((error) => state.errors.push(String(error)));
  });
});
window.sendSignal = (message) => send(message);
window.signalState = async () => {
  const stats = pc ? [...(await pc.getStats()).values()] : [];
  const framesDecoded = stats.filter((entry) => entry.type === 'inbound-rtp' && entry.kind === 'video').reduce((total, entry) => total + (entry.framesDecoded ?? 0), 0);
  const transport = stats.find((entry) => entry.type === 'transport' && entry.selectedCandidatePairId);
  const pair = transport && stats.find((entry) => entry.id === transport.selectedCandidatePairId);
  const local = pair && stats.find((entry) => entry.id === pair.localCandidateId);
  return { ...state, connectionState: pc ? pc.connectionState : 'none', framesDecoded, selectedCandidateType: local ? local.candidateType : null };
};
`;

export interface SignalPageState {
  closeCode: number | null;
  closeReason: string | null;
  types: string[];
  peers: SignalPeer[];
  recording: { recordingId: string; startedAt: string } | null | undefined;
  welcome: Extract<SignalServerMessage, { type: 'welcome' }> | null;
  errors: string[];
  connectionState: string;
  framesDecoded: number;
  /** The type of this browser's candidate in the pair in use ('host', 'srflx', 'relay'), once connected. */
  selectedCandidateType: string | null;
}

interface SignalWindow {
  connectSignal(input: { sessionId: string; token: string; sendsHello: boolean }): Promise<void>;
  sendSignal(message: SignalClientMessage): void;
  signalState(): Promise<SignalPageState>;
}

export interface SignalPage {
  page: Page;
  connect(sessionId: string, token: string, options?: { sendsHello?: boolean }): Promise<void>;
  send(message: SignalClientMessage): Promise<void>;
  state(): Promise<SignalPageState>;
  close(): Promise<void>;
}

/** The bearer token of headers from TestApp.signInAs, to be the session cookie of a browser. */
export function sessionTokenOf(headers: Record<string, string>): string {
  return (headers.authorization ?? '').replace(/^Bearer /, '');
}

/**
 * Writes the signaling page as a web build (index.html and its script) into `dir`: a test app with
 * WEB_DIST_DIR=dir serves it from its own origin, under its own security headers, as the web app is.
 */
export function writeSignalPage(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html lang="en"><title>signaling test</title><body><script src="/signal-client.js"></script></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'signal-client.js'), signalScript);
}

/** A Chromium context signed in (the app's session cookie) on the page writeSignalPage wrote, served by the app. */
export async function openSignalPage(media: MediaBrowser, baseUrl: string, sessionToken: string): Promise<SignalPage> {
  const context: BrowserContext = await media.browser.newContext();
  await context.addCookies([{ name: sessionCookieName, value: sessionToken, url: baseUrl, httpOnly: true }]);
  const page = await context.newPage();
  await page.goto(`${baseUrl}/`);
  return {
    page,
    connect: (sessionId, token, options = {}) =>
      page.evaluate((input) => (window as unknown as SignalWindow).connectSignal(input), { sessionId, token, sendsHello: options.sendsHello ?? true }),
    send: (message) => page.evaluate((input) => (window as unknown as SignalWindow).sendSignal(input), message),
    state: () => page.evaluate(() => (window as unknown as SignalWindow).signalState()),
    close: () => context.close(),
  };
}

/** A signaling socket from Node (no media): for refusals and closes, where no browser is needed. */
export interface NodeSignal {
  messages: SignalServerMessage[];
  closed: Promise<{ code: number; reason: string }>;
  opened: Promise<void>;
  send(message: unknown): void;
  close(): void;
}

export function connectNodeSignal(baseUrl: string, sessionToken: string, headers: Record<string, string> = {}): NodeSignal {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${signalPath}`, {
    headers: { cookie: `${sessionCookieName}=${sessionToken}`, origin: baseUrl, ...headers },
  });
  const messages: SignalServerMessage[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as SignalServerMessage));
  return {
    messages,
    opened: new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    }),
    closed: new Promise((resolve) => socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') }))),
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    close: () => socket.close(),
  };
}

/** A Node socket of a signed-in person that said hello with their media token and got its welcome and first offer. */
export async function connectWithHello(baseUrl: string, sessionToken: string, hello: { sessionId: string; token: string }): Promise<NodeSignal> {
  const signal = connectNodeSignal(baseUrl, sessionToken);
  await signal.opened;
  signal.send({ type: 'hello', ...hello });
  await eventually(() => expect(signal.messages.map((message) => message.type)).toContain('offer'), 10_000);
  return signal;
}
