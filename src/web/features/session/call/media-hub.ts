import { signalCloseCodes, signalPath, type SignalClientMessage, type SignalServerMessage } from '#shared/video-signaling.ts';
import { videoTokenSchema, type VideoRole } from '#shared/video.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { openLocalTracks, openTrack, describeMediaError } from './local-media.ts';
import { rateNetwork, readNetworkSample, type NetworkSample, type StatsEntry } from './network-quality.ts';
import { describeClose, reconnectDelayMs, shouldReconnect } from './reconnect.ts';
import { initialSnapshot, type HubSnapshot } from './hub-snapshot.ts';
import {
  answerOffer,
  collectRemoteStreams,
  framesEncodedOf,
  judgeCameraSwitch,
  readServerMessage,
  type EncoderReading,
  type OfferMessage,
} from './hub-peer.ts';
import type { Subscription } from './subscriptions.ts';

type Kind = 'audio' | 'video';

export interface HubOptions {
  sessionId: string;
  role: VideoRole;
  participantId: string;
  deviceGroupId: string;
  cameraId: string | null;
  microphoneId: string | null;
  audioMuted: boolean;
  videoOff: boolean;
  /** The person switched a device: keep it for a reload. */
  onDevicesChanged(devices: { cameraId: string | null; microphoneId: string | null; audioMuted: boolean; videoOff: boolean }): void;
}

const pingEveryMs = 5_000;
/** A socket that answered no ping for this long is dead (a cut network closes nothing): rejoin. */
const silentSocketMs = 15_000;
const heartbeatEveryMs = 30_000;
/** How long a 'disconnected' media connection may last before the browser asks for an ICE restart. */
const disconnectedGraceMs = 4_000;
/** How long a newly chosen camera has to get frames to the encoder before the previous one is put back (1 s of it settling). */
const cameraCheckMs = 4_500;
const cameraNotSentNotice = 'That camera gives no picture the call can send. You are still on your previous camera.';

/**
 * The browser's side of the media hub (src/shared/video-signaling.ts): one signaling socket and one
 * RTCPeerConnection that answers every offer of the server, sends the camera and microphone on the
 * offer's `publish` mids and receives everyone else on the `subscriptions` mids. Reconnects with a
 * new token and socket after a drop, unless the close code says the person may not come back.
 */
export class MediaHub {
  private snapshot: HubSnapshot;
  private readonly listeners = new Set<() => void>();
  private socket: WebSocket | null = null;
  private pc: RTCPeerConnection | null = null;
  private publish: Partial<Record<Kind, string>> = {};
  private subscriptions: Subscription[] = [];
  private tracks: Record<Kind, MediaStreamTrack | null> = { audio: null, video: null };
  private offers: Promise<void> = Promise.resolve();
  private readonly intervals: number[] = [];
  private retryTimer: number | undefined;
  private disconnectedTimer: number | undefined;
  private isStopped = false;
  /** Which start() is current: a start overtaken by stop() and another start() gives up. */
  private run = 0;
  private previousSample: NetworkSample | null = null;
  private signalRttMs: number | null = null;
  /** When the socket last brought a message (a pong at least every ping). */
  private lastHeardAt = 0;

  constructor(private readonly options: HubOptions) {
    this.snapshot = initialSnapshot(options);
  }

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = () => this.snapshot;

  private update(patch: Partial<HubSnapshot>) {
    this.snapshot = { ...this.snapshot, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** Opens the camera and microphone and joins; may follow a stop() (React runs effects twice in development). */
  async start(): Promise<void> {
    this.isStopped = false;
    const run = ++this.run;
    const opened = await openLocalTracks(this.options);
    if (this.isStopped || run !== this.run) {
      for (const track of [opened.audio, opened.video]) track?.stop();
      return;
    }
    this.tracks = { audio: opened.audio, video: opened.video };
    if (opened.audio) opened.audio.enabled = !this.options.audioMuted;
    this.update({ notice: opened.error, videoOff: this.options.videoOff || !opened.video, audioMuted: this.options.audioMuted || !opened.audio });
    this.refreshLocal();
    void this.connect();
    void this.beat();
    this.intervals.push(
      window.setInterval(() => this.ping(), pingEveryMs),
      window.setInterval(() => void this.measure(), pingEveryMs),
      window.setInterval(() => void this.beat(), heartbeatEveryMs),
    );
    window.addEventListener('online', this.handleOnline);
  }

  stop(): void {
    this.isStopped = true;
    this.run += 1;
    for (const interval of this.intervals) window.clearInterval(interval);
    window.clearTimeout(this.retryTimer);
    window.clearTimeout(this.disconnectedTimer);
    window.removeEventListener('online', this.handleOnline);
    this.socket?.close(1000);
    this.socket = null;
    this.pc?.close();
    this.pc = null;
    for (const track of Object.values(this.tracks)) track?.stop();
    this.tracks = { audio: null, video: null };
    this.intervals.length = 0;
  }

  setAudioMuted(isMuted: boolean): void {
    if (this.tracks.audio) this.tracks.audio.enabled = !isMuted;
    this.update({ audioMuted: isMuted || !this.tracks.audio });
    this.afterMediaChange();
  }

  /** Camera off stops the camera (its light goes out); on opens it again on the same sender. */
  async setVideoOff(isOff: boolean): Promise<void> {
    if (isOff) {
      await this.senderOf('video')?.replaceTrack(null);
      this.tracks.video?.stop();
      this.tracks.video = null;
      this.update({ videoOff: true });
    } else {
      try {
        await this.useTrack('video', await openTrack('video', this.snapshot.cameraId));
        this.update({ videoOff: false, notice: null });
      } catch (error) {
        this.update({ notice: describeMediaError(error) });
      }
    }
    this.refreshLocal();
    this.afterMediaChange();
  }

  /** Another camera or microphone, mid-call: the sender's track is replaced, no renegotiation. */
  async switchDevice(kind: Kind, deviceId: string): Promise<void> {
    const field = kind === 'video' ? 'cameraId' : 'microphoneId';
    if (kind === 'video' && this.snapshot.videoOff) {
      this.update({ cameraId: deviceId });
      this.afterMediaChange();
      return;
    }
    try {
      const track = await openTrack(kind, deviceId);
      if (kind === 'audio') track.enabled = !this.snapshot.audioMuted;
      if (kind === 'video' && !(await this.sendsPictureOf(track))) {
        this.update({ notice: cameraNotSentNotice });
      } else {
        await this.useTrack(kind, track);
        this.update({ [field]: track.getSettings().deviceId ?? deviceId, notice: null });
      }
    } catch (error) {
      this.update({ notice: describeMediaError(error) });
    }
    this.refreshLocal();
    this.afterMediaChange();
  }

  /**
   * Puts a camera on the video sender and waits until the encoder sends its frames (judgeCameraSwitch); a camera whose
   * frames cannot be encoded (a depth camera, Chromium's second fake camera) freezes the picture
   * for everyone while its own preview moves, so the previous camera is put back and false returned.
   * Without a connected sender there is nothing to check yet.
   */
  private async sendsPictureOf(track: MediaStreamTrack): Promise<boolean> {
    const sender = this.senderOf('video');
    const previous = this.tracks.video;
    if (!sender || !previous || this.pc?.connectionState !== 'connected') return true;
    await sender.replaceTrack(track);
    const switchedAt = Date.now();
    const readings: EncoderReading[] = [];
    for (;;) {
      await new Promise((resolve) => window.setTimeout(resolve, 250));
      readings.push({ afterMs: Date.now() - switchedAt, framesEncoded: framesEncodedOf(await sender.getStats()) });
      const verdict = judgeCameraSwitch(readings, cameraCheckMs);
      if (verdict === 'sending') return true;
      if (verdict === 'silent') break;
    }
    await sender.replaceTrack(previous);
    track.stop();
    return false;
  }

  private async useTrack(kind: Kind, track: MediaStreamTrack) {
    const previous = this.tracks[kind];
    this.tracks[kind] = track;
    await this.senderOf(kind)?.replaceTrack(track);
    if (previous && previous !== track) previous.stop();
  }

  private afterMediaChange() {
    const { audioMuted, videoOff, cameraId, microphoneId } = this.snapshot;
    this.send({ type: 'media-state', audioMuted, videoOff });
    this.options.onDevicesChanged({ cameraId, microphoneId, audioMuted, videoOff });
  }

  private refreshLocal() {
    const video = this.tracks.video;
    this.update({ local: video ? new MediaStream([video]) : null });
  }

  private senderOf(kind: Kind): RTCRtpSender | undefined {
    const mid = this.publish[kind];
    return mid === undefined ? undefined : this.pc?.getTransceivers().find((transceiver) => transceiver.mid === mid)?.sender;
  }

  private send(message: SignalClientMessage) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private async connect(): Promise<void> {
    window.clearTimeout(this.retryTimer);
    if (this.isStopped) return;
    const { sessionId, role, participantId, deviceGroupId } = this.options;
    let token: string;
    try {
      token = (await api.post('/api/video/token', { sessionId, role, participantId, deviceGroupId }, videoTokenSchema)).token;
    } catch (error) {
      if (error instanceof ApiError && [401, 403, 404].includes(error.status)) this.finish(error.status === 401 ? 4401 : 4403);
      else this.scheduleReconnect();
      return;
    }
    if (this.isStopped) return;
    const protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${protocol}//${window.location.host}${signalPath}`);
    this.socket = socket;
    this.lastHeardAt = Date.now();
    socket.onopen = () => socket.send(JSON.stringify({ type: 'hello', sessionId, token } satisfies SignalClientMessage));
    socket.onmessage = (event) => {
      this.lastHeardAt = Date.now();
      const message = readServerMessage(event.data);
      if (message) this.handle(message);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket || this.isStopped) return;
      this.socket = null;
      if (shouldReconnect(event.code)) this.scheduleReconnect();
      else this.finish(event.code);
    };
  }

  private ping() {
    const socket = this.socket;
    if (socket?.readyState !== WebSocket.OPEN) return;
    if (Date.now() - this.lastHeardAt > silentSocketMs) {
      this.socket = null;
      socket.close(4000);
      this.scheduleReconnect();
      return;
    }
    this.send({ type: 'ping', at: Date.now() });
  }

  private scheduleReconnect() {
    if (this.isStopped) return;
    const attempt = this.snapshot.reconnectAttempt + 1;
    this.update({ phase: 'reconnecting', reconnectAttempt: attempt });
    this.retryTimer = window.setTimeout(() => void this.connect(), reconnectDelayMs(attempt));
  }

  private readonly handleOnline = () => {
    if (this.snapshot.phase === 'reconnecting' && !this.socket) void this.connect();
    else this.send({ type: 'restart-ice' });
  };

  private finish(code: number) {
    this.stop();
    this.update({ phase: 'closed', closedSentence: describeClose(code) ?? 'The video connection closed.', hasEnded: code === signalCloseCodes.sessionEnded });
  }

  private handle(message: SignalServerMessage) {
    switch (message.type) {
      case 'welcome':
        this.openPeerConnection(message.iceServers, message.iceTransportPolicy);
        this.update({ phase: this.snapshot.reconnectAttempt > 0 ? 'reconnecting' : 'connecting' });
        this.send({ type: 'media-state', audioMuted: this.snapshot.audioMuted, videoOff: this.snapshot.videoOff });
        return;
      case 'offer':
        this.offers = this.offers
          .then(() => this.answer(message))
          .catch(() => this.update({ notice: 'The video connection could not be set up. Reload the page to try again.' }));
        return;
      case 'peers':
        this.update({ peers: message.peers });
        return;
      case 'recording':
        this.update({ recording: message.recording });
        return;
      case 'pong':
        this.signalRttMs = Math.max(0, Date.now() - message.at);
        return;
      case 'error':
        this.update({ notice: message.message });
    }
  }

  private openPeerConnection(iceServers: RTCIceServer[], iceTransportPolicy: RTCIceTransportPolicy) {
    this.pc?.close();
    this.previousSample = null;
    this.subscriptions = [];
    this.update({ remote: {} });
    const pc = new RTCPeerConnection({ iceServers, iceTransportPolicy });
    this.pc = pc;
    pc.onicecandidate = (event) => {
      const candidate = event.candidate?.toJSON();
      this.send({
        type: 'candidate',
        candidate: candidate?.candidate
          ? { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex, usernameFragment: candidate.usernameFragment }
          : null,
      });
    };
    pc.ontrack = () => this.refreshRemote();
    pc.onconnectionstatechange = () => {
      if (pc !== this.pc) return;
      window.clearTimeout(this.disconnectedTimer);
      if (pc.connectionState === 'connected') this.update({ phase: 'connected', reconnectAttempt: 0 });
      else if (pc.connectionState === 'failed') this.send({ type: 'restart-ice' });
      else if (pc.connectionState === 'disconnected') {
        this.disconnectedTimer = window.setTimeout(() => pc.connectionState === 'disconnected' && this.send({ type: 'restart-ice' }), disconnectedGraceMs);
      }
    };
  }

  private async answer(offer: OfferMessage) {
    const pc = this.pc;
    if (!pc) return;
    this.publish = offer.publish;
    this.subscriptions = offer.subscriptions;
    const sdp = await answerOffer(pc, offer, this.tracks);
    if (sdp) this.send({ type: 'answer', sdp });
    this.refreshRemote();
  }

  private refreshRemote() {
    if (this.pc) this.update({ remote: collectRemoteStreams(this.pc, this.subscriptions, this.options.participantId, this.snapshot.remote) });
  }

  private async measure() {
    const pc = this.pc;
    if (!pc || this.snapshot.phase !== 'connected') return;
    const report = await pc.getStats();
    const sample = readNetworkSample([...report.values()] as StatsEntry[], this.signalRttMs);
    const quality = rateNetwork(this.previousSample, sample);
    this.previousSample = sample;
    if (quality !== this.snapshot.quality) this.update({ quality });
  }

  private async beat() {
    const { sessionId, role } = this.options;
    await api.post('/api/video/heartbeat', { sessionId, role }).catch(() => undefined);
  }
}
