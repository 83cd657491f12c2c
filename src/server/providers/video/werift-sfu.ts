import { performance } from 'node:perf_hooks';
import { MediaStream, MediaStreamTrack, RTCPeerConnection, RtpHeader, RtpPacket, useNACK, useOPUS, usePLI, useVP8, type RTCRtpTransceiver } from 'werift';
import { DelayRecorder, RateMeter, SequenceLossCounter } from './media-stats.ts';
import { ContinuousSource } from './continuous-source.ts';
import type {
  ConnectionStateEvent,
  ConnectionStateListener,
  IceCandidate,
  IceServer,
  MediaKind,
  ParticipantOffer,
  ParticipantStats,
  RenegotiationListener,
  RoomStats,
  RtpListener,
  SessionDescription,
  Subscription,
  VideoProvider,
  VideoRoom,
} from './video-provider.ts';

export interface WeriftSfuOptions {
  iceServers: IceServer[];
  /** Extra host candidates, e.g. ['127.0.0.1'] when peers reach the server over loopback. */
  iceAdditionalHostAddresses?: string[];
  /** How often each publisher is asked for a keyframe. */
  keyframeIntervalMs?: number;
  /**
   * How long after a participant's answer ICE may take to connect before the hub reports the
   * participant `failed` (default 15 s; a relayed connection takes a few seconds).
   */
  iceConnectTimeoutMs?: number;
  /** Failures of work nobody awaits (renegotiating the others when someone joins). */
  onError?: (error: unknown) => void;
}

const kinds: MediaKind[] = ['audio', 'video'];

interface SubscriptionSlot extends Subscription {
  track: MediaStreamTrack;
  transceiver: RTCRtpTransceiver;
}

interface Participant {
  id: string;
  pc: RTCPeerConnection;
  publish: Record<MediaKind, RTCRtpTransceiver>;
  /** Keyed `${publisherId}:${kind}`. */
  subscriptions: Map<string, SubscriptionSlot>;
  isConnected: boolean;
  isOfferPending: boolean;
  needsOffer: boolean;
  videoSsrc: number | null;
  inbound: RateMeter;
  outbound: RateMeter;
  loss: Map<number, SequenceLossCounter>;
  keyframeTimer: NodeJS.Timeout;
  /** Armed by an answer until ICE connects. */
  connectTimer: NodeJS.Timeout | null;
  /** ICE did not connect in time (reported as failed until it connects). */
  hasTimedOut: boolean;
  mimeTypes: Record<MediaKind, { mimeType: string; clockRate: number }>;
}

function slotKey(publisherId: string, kind: MediaKind): string {
  return `${publisherId}:${kind}`;
}

function createPeer(options: WeriftSfuOptions): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: options.iceServers,
    iceAdditionalHostAddresses: options.iceAdditionalHostAddresses,
    bundlePolicy: 'max-bundle',
    codecs: {
      audio: [useOPUS()],
      video: [useVP8({ rtcpFeedback: [useNACK(), usePLI()] })],
    },
    headerExtensions: { audio: [], video: [] },
  });
}

class WeriftRoom implements VideoRoom {
  private readonly participants = new Map<string, Participant>();
  private readonly sources = new Map<string, ContinuousSource>();
  private readonly rtpListeners = new Set<RtpListener>();
  private readonly renegotiationListeners = new Set<RenegotiationListener>();
  private readonly connectionStateListeners = new Set<ConnectionStateListener>();
  private readonly delays = new DelayRecorder();
  private isClosed = false;

  constructor(
    readonly roomId: string,
    private readonly options: WeriftSfuOptions,
    private readonly onClosed: () => void,
  ) {}

  async join(participantId: string): Promise<ParticipantOffer> {
    this.assertOpen();
    const previous = this.participants.get(participantId);
    if (previous) await this.disconnect(previous);

    const pc = createPeer(this.options);
    const publish = {
      audio: pc.addTransceiver('audio', { direction: 'recvonly' }),
      video: pc.addTransceiver('video', { direction: 'recvonly' }),
    };
    const participant: Participant = {
      id: participantId,
      pc,
      publish,
      subscriptions: new Map(),
      isConnected: false,
      isOfferPending: false,
      needsOffer: false,
      videoSsrc: null,
      inbound: new RateMeter(),
      outbound: new RateMeter(),
      loss: new Map(),
      keyframeTimer: setInterval(() => this.sendKeyframeRequest(participant), this.options.keyframeIntervalMs ?? 1000),
      connectTimer: null,
      hasTimedOut: false,
      mimeTypes: { audio: { mimeType: 'audio/opus', clockRate: 48_000 }, video: { mimeType: 'video/vp8', clockRate: 90_000 } },
    };
    participant.keyframeTimer.unref();
    this.participants.set(participantId, participant);

    for (const kind of kinds) {
      publish[kind].onTrack.subscribe((track) => {
        if (track.codec) participant.mimeTypes[kind] = { mimeType: track.codec.mimeType.toLowerCase(), clockRate: track.codec.clockRate };
        track.onReceiveRtp.subscribe((rtp) => this.forward(participant, kind, rtp));
      });
    }
    pc.connectionStateChange.subscribe((state) => {
      const wasConnected = participant.isConnected;
      participant.isConnected = state === 'connected';
      if (participant.isConnected) this.disarmConnectTimer(participant);
      // A new subscriber needs a keyframe of everyone it receives before it can show them.
      if (participant.isConnected && !wasConnected) this.requestAllKeyframes(participant.id);
      if (this.participants.get(participant.id) === participant) this.emitConnectionState({ participantId: participant.id, state });
    });

    for (const other of this.participants.values()) {
      if (other === participant) continue;
      for (const kind of kinds) this.addSubscription(participant, other.id, kind);
      // Someone rejoining already has m-lines at the others; a newcomer needs new ones.
      if (!previous) {
        for (const kind of kinds) this.addSubscription(other, participant.id, kind);
        this.renegotiate(other).catch((error: unknown) => this.options.onError?.(error));
      }
    }
    return this.createOffer(participant);
  }

  async acceptAnswer(participantId: string, answer: SessionDescription): Promise<void> {
    const participant = this.getParticipant(participantId);
    if (answer.type !== 'answer') throw new Error('Expected an answer.');
    await participant.pc.setRemoteDescription(answer);
    participant.isOfferPending = false;
    if (!participant.isConnected) this.armConnectTimer(participant);
    if (participant.needsOffer) await this.renegotiate(participant);
    else this.requestAllKeyframes(participant.id);
  }

  async addIceCandidate(participantId: string, candidate: IceCandidate | null): Promise<void> {
    const participant = this.getParticipant(participantId);
    if (!candidate || candidate.candidate === '') {
      await participant.pc.addIceCandidate(null);
      return;
    }
    await participant.pc.addIceCandidate({
      candidate: candidate.candidate,
      sdpMid: candidate.sdpMid ?? undefined,
      sdpMLineIndex: candidate.sdpMLineIndex ?? undefined,
      usernameFragment: candidate.usernameFragment ?? undefined,
    });
  }

  async restartIce(participantId: string): Promise<ParticipantOffer> {
    const participant = this.getParticipant(participantId);
    return this.createOffer(participant, true);
  }

  async leave(participantId: string): Promise<void> {
    const participant = this.participants.get(participantId);
    if (!participant) return;
    this.participants.delete(participantId);
    await this.disconnect(participant);
  }

  hasParticipant(participantId: string): boolean {
    return this.participants.has(participantId);
  }

  participantIds(): string[] {
    return [...this.participants.keys()];
  }

  onRtp(listener: RtpListener): () => void {
    this.rtpListeners.add(listener);
    return () => this.rtpListeners.delete(listener);
  }

  onRenegotiation(listener: RenegotiationListener): () => void {
    this.renegotiationListeners.add(listener);
    return () => this.renegotiationListeners.delete(listener);
  }

  onConnectionState(listener: ConnectionStateListener): () => void {
    this.connectionStateListeners.add(listener);
    return () => this.connectionStateListeners.delete(listener);
  }

  requestKeyframe(participantId: string): void {
    const participant = this.participants.get(participantId);
    if (participant) this.sendKeyframeRequest(participant);
  }

  getStats(): RoomStats {
    const participants: ParticipantStats[] = [...this.participants.values()].map((participant) => {
      let packetsLost = 0;
      let packetsExpected = 0;
      for (const counter of participant.loss.values()) {
        packetsLost += counter.lost;
        packetsExpected += counter.expected;
      }
      return {
        participantId: participant.id,
        connectionState: participant.hasTimedOut ? 'failed' : participant.pc.connectionState,
        bytesReceived: participant.inbound.total,
        packetsReceived: participant.inbound.packets,
        packetsLost,
        lossFraction: packetsExpected === 0 ? 0 : packetsLost / packetsExpected,
        bytesSent: participant.outbound.total,
        packetsSent: participant.outbound.packets,
        inboundBitrate: participant.inbound.bitsPerSecond(),
        outboundBitrate: participant.outbound.bitsPerSecond(),
        publishedTracks: participant.loss.size,
      };
    });
    return {
      roomId: this.roomId,
      participants,
      inboundBitrate: participants.reduce((sum, p) => sum + p.inboundBitrate, 0),
      outboundBitrate: participants.reduce((sum, p) => sum + p.outboundBitrate, 0),
      packetsLost: participants.reduce((sum, p) => sum + p.packetsLost, 0),
      forwardingDelay: this.delays.snapshot(),
    };
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    const all = [...this.participants.values()];
    this.participants.clear();
    await Promise.all(all.map((participant) => this.disconnect(participant)));
    this.rtpListeners.clear();
    this.renegotiationListeners.clear();
    this.connectionStateListeners.clear();
    this.onClosed();
  }

  private forward(publisher: Participant, kind: MediaKind, rtp: RtpPacket): void {
    const arrivedAt = performance.now();
    const size = rtp.serializeSize;
    publisher.inbound.add(size);
    let counter = publisher.loss.get(rtp.header.ssrc);
    if (!counter) {
      counter = new SequenceLossCounter();
      publisher.loss.set(rtp.header.ssrc, counter);
    }
    counter.add(rtp.header.sequenceNumber);
    if (kind === 'video') publisher.videoSsrc = rtp.header.ssrc;

    const key = slotKey(publisher.id, kind);
    let source = this.sources.get(key);
    if (!source) {
      source = new ContinuousSource(kind === 'video' ? 90_000 : 48_000);
      this.sources.set(key, source);
    }
    const { sequenceNumber, timestamp } = source.rewrite(rtp.header);
    let copies = 0;
    for (const subscriber of this.participants.values()) {
      if (subscriber === publisher || !subscriber.isConnected) continue;
      const slot = subscriber.subscriptions.get(key);
      if (!slot) continue;
      const header = new RtpHeader({
        ...rtp.header,
        sequenceNumber,
        timestamp,
        extension: false,
        extensions: [],
        csrc: [...rtp.header.csrc],
      });
      slot.track.writeRtp(new RtpPacket(header, rtp.payload));
      subscriber.outbound.add(size);
      copies += 1;
    }
    if (copies > 0) this.delays.record((performance.now() - arrivedAt) * 1000);

    // The recorder's work comes after the copies are on their way, outside the measured delay.
    if (this.rtpListeners.size > 0) {
      const codec = publisher.mimeTypes[kind];
      const event = { participantId: publisher.id, kind, ...codec, packet: rtp.serialize(), receivedAt: Date.now() };
      for (const listener of this.rtpListeners) listener(event);
    }
  }

  private addSubscription(subscriber: Participant, publisherId: string, kind: MediaKind): void {
    const key = slotKey(publisherId, kind);
    if (subscriber.subscriptions.has(key)) return;
    const track = new MediaStreamTrack({ kind });
    const stream = new MediaStream({ id: publisherId });
    stream.addTrack(track);
    const transceiver = subscriber.pc.addTransceiver(track, { direction: 'sendonly', streams: [stream] });
    subscriber.subscriptions.set(key, { mid: '', kind, participantId: publisherId, track, transceiver });
  }

  private async renegotiate(participant: Participant): Promise<void> {
    if (this.isClosed || this.participants.get(participant.id) !== participant) return;
    if (participant.isOfferPending) {
      participant.needsOffer = true;
      return;
    }
    participant.needsOffer = false;
    const offer = await this.createOffer(participant);
    for (const listener of this.renegotiationListeners) listener(offer);
  }

  private async createOffer(participant: Participant, iceRestart = false): Promise<ParticipantOffer> {
    const { pc } = participant;
    participant.isOfferPending = true;
    await pc.setLocalDescription(await pc.createOffer({ iceRestart }));
    if (pc.iceGatheringState !== 'complete') {
      await pc.iceGatheringStateChange.watch((state) => state === 'complete');
    }
    const description = pc.localDescription;
    if (!description) throw new Error('The server could not create an offer.');
    const subscriptions: Subscription[] = [];
    for (const slot of participant.subscriptions.values()) {
      slot.mid = slot.transceiver.mid ?? '';
      subscriptions.push({ mid: slot.mid, kind: slot.kind, participantId: slot.participantId });
    }
    return {
      participantId: participant.id,
      offer: { type: 'offer', sdp: description.sdp },
      publish: { audio: participant.publish.audio.mid ?? '', video: participant.publish.video.mid ?? '' },
      subscriptions,
    };
  }

  private sendKeyframeRequest(publisher: Participant): void {
    if (!publisher.isConnected || publisher.videoSsrc === null) return;
    void publisher.publish.video.receiver.sendRtcpPLI(publisher.videoSsrc).catch(() => undefined);
  }

  private requestAllKeyframes(exceptId: string): void {
    for (const publisher of this.participants.values()) {
      if (publisher.id !== exceptId) this.sendKeyframeRequest(publisher);
    }
  }

  private armConnectTimer(participant: Participant): void {
    this.disarmConnectTimer(participant);
    const timeoutMs = this.options.iceConnectTimeoutMs ?? 15_000;
    participant.connectTimer = setTimeout(() => {
      participant.connectTimer = null;
      if (participant.isConnected || this.participants.get(participant.id) !== participant) return;
      participant.hasTimedOut = true;
      const reason = `ICE did not connect within ${timeoutMs / 1000} s of the answer: no network path between the participant and the server (are the TURN server and its credentials right?).`;
      this.emitConnectionState({ participantId: participant.id, state: 'failed', reason });
    }, timeoutMs);
    participant.connectTimer.unref();
  }

  private disarmConnectTimer(participant: Participant): void {
    if (participant.connectTimer) clearTimeout(participant.connectTimer);
    participant.connectTimer = null;
    participant.hasTimedOut = false;
  }

  private emitConnectionState(event: ConnectionStateEvent): void {
    for (const listener of this.connectionStateListeners) listener(event);
  }

  private async disconnect(participant: Participant): Promise<void> {
    clearInterval(participant.keyframeTimer);
    this.disarmConnectTimer(participant);
    participant.isConnected = false;
    for (const slot of participant.subscriptions.values()) slot.track.stop();
    await participant.pc.close();
  }

  private getParticipant(participantId: string): Participant {
    const participant = this.participants.get(participantId);
    if (!participant) throw new Error(`No participant ${participantId} in room ${this.roomId}.`);
    return participant;
  }

  private assertOpen(): void {
    if (this.isClosed) throw new Error(`Room ${this.roomId} is closed.`);
  }
}

/** The in-process media hub: werift peers, one per participant, forwarding RTP between them. */
export function createWeriftSfu(options: WeriftSfuOptions): VideoProvider {
  const rooms = new Map<string, WeriftRoom>();
  return {
    kind: 'werift',
    createRoom(roomId) {
      let room = rooms.get(roomId);
      if (!room) {
        room = new WeriftRoom(roomId, options, () => rooms.delete(roomId));
        rooms.set(roomId, room);
      }
      return room;
    },
    findRoom(roomId) {
      return rooms.get(roomId);
    },
    listRooms() {
      return [...rooms.values()];
    },
    async close() {
      await Promise.all([...rooms.values()].map((room) => room.close()));
    },
  };
}
