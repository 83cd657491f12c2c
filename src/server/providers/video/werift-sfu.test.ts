import { setTimeout as sleep } from 'node:timers/promises';
import {
  MediaStreamTrack,
  PictureLossIndication,
  RTCPeerConnection,
  RtcpPayloadSpecificFeedback,
  RtpHeader,
  RtpPacket,
  useNACK,
  useOPUS,
  usePLI,
  useVP8,
  type RTCRtpTransceiver,
  type RtcpPacket,
} from 'werift';
import { afterEach, describe, expect, it } from 'vitest';
import type { MediaKind, ParticipantOffer, VideoProvider, VideoRoom } from './video-provider.ts';
import { parseIceServers } from './video-provider.ts';
import { createWeriftSfu } from './werift-sfu.ts';

/** A participant as a browser would be: one werift peer that answers the server's offers. */
interface TestClient {
  id: string;
  pc: RTCPeerConnection;
  /** Payloads received, keyed by the participant id the server said they come from. */
  received: Map<string, string[]>;
  keyframeRequests: number;
  answer(offer: ParticipantOffer): Promise<void>;
  sendingTransceivers(): RTCRtpTransceiver[];
  close(): Promise<void>;
}

const kinds: MediaKind[] = ['audio', 'video'];
let provider: VideoProvider | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await provider?.close();
  provider = undefined;
});

function createRoom(roomId: string): VideoRoom {
  provider = createWeriftSfu({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], keyframeIntervalMs: 300 });
  const room = provider.createRoom(roomId);
  room.onRenegotiation((offer) => {
    const client = clients.find((candidate) => candidate.id === offer.participantId && candidate.pc.connectionState !== 'closed');
    if (client) void client.answer(offer);
  });
  return room;
}

/** Joins `participantId` to the room; `label` tags every payload this client sends. */
async function joinClient(room: VideoRoom, participantId: string, label = participantId): Promise<TestClient> {
  const pc = new RTCPeerConnection({
    iceServers: [],
    iceAdditionalHostAddresses: ['127.0.0.1'],
    bundlePolicy: 'max-bundle',
    codecs: { audio: [useOPUS()], video: [useVP8({ rtcpFeedback: [useNACK(), usePLI()] })] },
  });
  const tracks = { audio: new MediaStreamTrack({ kind: 'audio' }), video: new MediaStreamTrack({ kind: 'video' }) };
  const senderOf = new Map<MediaKind, RTCRtpTransceiver>();
  const fromByMid = new Map<string, string>();
  const received = new Map<string, string[]>();
  const client: TestClient = {
    id: participantId,
    pc,
    received,
    keyframeRequests: 0,
    async answer(offer) {
      for (const subscription of offer.subscriptions) fromByMid.set(subscription.mid, subscription.participantId);
      await pc.setRemoteDescription(offer.offer);
      for (const transceiver of pc.getTransceivers()) {
        const kind = kinds.find((k) => offer.publish[k] === transceiver.mid);
        if (!kind || senderOf.has(kind)) continue;
        transceiver.setDirection('sendonly');
        await transceiver.sender.replaceTrack(tracks[kind]);
        if (kind === 'video') {
          const ssrc = transceiver.sender.ssrc;
          const countKeyframeRequest = (packet: RtcpPacket) => {
            if (packet instanceof RtcpPayloadSpecificFeedback && packet.feedback instanceof PictureLossIndication && packet.feedback.mediaSsrc === ssrc) {
              client.keyframeRequests += 1;
            }
          };
          // werift's router hands a PLI to the receiver that shares the server's SSRC: watch both.
          transceiver.sender.onRtcp.subscribe(countKeyframeRequest);
          transceiver.receiver.onRtcp.subscribe(countKeyframeRequest);
        }
        senderOf.set(kind, transceiver);
      }
      await pc.setLocalDescription(await pc.createAnswer());
      if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((state) => state === 'complete');
      await room.acceptAnswer(participantId, { type: 'answer', sdp: pc.localDescription!.sdp });
    },
    sendingTransceivers: () => pc.getTransceivers().filter((t) => t.sender.track && (t.direction === 'sendonly' || t.direction === 'sendrecv')),
    async close() {
      clearInterval(timer);
      await pc.close();
    },
  };
  pc.onRemoteTransceiverAdded.subscribe((transceiver) => {
    transceiver.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        const from = fromByMid.get(transceiver.mid ?? '') ?? 'unknown';
        const list = received.get(from) ?? [];
        list.push(rtp.payload.toString());
        received.set(from, list);
      });
    });
  });

  let sequenceNumber = 1000;
  let count = 0;
  const timer = setInterval(() => {
    if (pc.connectionState !== 'connected') return;
    count += 1;
    sequenceNumber = (sequenceNumber + 1) % 0x10000;
    for (const kind of kinds) {
      const header = new RtpHeader({ sequenceNumber, timestamp: count * 3000, marker: true });
      tracks[kind].writeRtp(new RtpPacket(header, Buffer.from(`${label}:${kind}:${count}`)));
    }
  }, 20);
  clients.push(client);

  await client.answer(await room.join(participantId));
  await pc.connectionStateChange.watch((state) => state === 'connected');
  return client;
}

/** Waits until `check` passes, polling; fails with the last error after `ms`. */
async function eventually(check: () => void, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

function payloadsFrom(client: TestClient, from: string): string[] {
  return client.received.get(from) ?? [];
}

function expectReceives(client: TestClient, from: string, label = from): void {
  const payloads = payloadsFrom(client, from);
  for (const kind of kinds) {
    expect(payloads.some((payload) => payload.startsWith(`${label}:${kind}:`)), `${client.id} gets ${label}'s ${kind}`).toBe(true);
  }
}

describe('werift media hub', () => {
  it('forwards each of two participants to the other, with payloads intact, and reports it in stats', async () => {
    const room = createRoom('room-two');
    const alice = await joinClient(room, 'alice');
    const bob = await joinClient(room, 'bob');

    await eventually(() => {
      expectReceives(alice, 'bob');
      expectReceives(bob, 'alice');
    });
    // Nothing but the other participant's packets, exactly as sent.
    expect([...alice.received.keys()]).toEqual(['bob']);
    expect(payloadsFrom(alice, 'bob').every((payload) => /^bob:(audio|video):\d+$/.test(payload))).toBe(true);

    await eventually(() => {
      const stats = room.getStats();
      expect(stats.participants.map((p) => p.participantId).sort()).toEqual(['alice', 'bob']);
      for (const participant of stats.participants) {
        expect(participant.bytesReceived).toBeGreaterThan(0);
        expect(participant.bytesSent).toBeGreaterThan(0);
        expect(participant.inboundBitrate).toBeGreaterThan(0);
        expect(participant.publishedTracks).toBe(2);
        expect(participant.packetsLost).toBe(0);
      }
      expect(stats.inboundBitrate).toBeGreaterThan(0);
      expect(stats.forwardingDelay.count).toBeGreaterThan(0);
      expect(stats.forwardingDelay.p99Micros).toBeGreaterThan(0);
    }, 4000);
    // Publishers are asked for keyframes.
    await eventually(() => expect(alice.keyframeRequests).toBeGreaterThan(0));
  });

  it('with three participants each receives both others while uploading one stream per kind, and the hook sees every sender', async () => {
    const room = createRoom('room-three');
    const hooked = new Set<string>();
    const unsubscribe = room.onRtp((packet) => {
      hooked.add(`${packet.participantId}:${packet.kind}:${packet.mimeType}`);
      expect(RtpPacket.deSerialize(packet.packet).payload.toString().startsWith(`${packet.participantId}:${packet.kind}:`)).toBe(true);
    });
    const alice = await joinClient(room, 'alice');
    const bob = await joinClient(room, 'bob');
    const carol = await joinClient(room, 'carol');
    const everyone = [alice, bob, carol];

    await eventually(() => {
      for (const client of everyone) {
        for (const other of everyone) if (other !== client) expectReceives(client, other.id);
      }
    }, 8000);
    for (const client of everyone) expect(client.sendingTransceivers()).toHaveLength(2);
    for (const participant of room.getStats().participants) expect(participant.publishedTracks).toBe(2);
    expect([...hooked].sort()).toEqual(
      ['alice', 'bob', 'carol'].flatMap((id) => [`${id}:audio:audio/opus`, `${id}:video:video/vp8`]),
    );
    unsubscribe();
  });

  it('stops forwarding a participant who leaves, and forwards again when they rejoin with the same id', async () => {
    const room = createRoom('room-rejoin');
    const alice = await joinClient(room, 'alice');
    const bob = await joinClient(room, 'bob');
    const carol = await joinClient(room, 'carol');
    await eventually(() => {
      expectReceives(alice, 'carol');
      expectReceives(bob, 'carol');
    }, 8000);

    await room.leave('carol');
    await carol.close();
    expect(room.participantIds().sort()).toEqual(['alice', 'bob']);
    await sleep(200);
    const countAfterLeave = payloadsFrom(alice, 'carol').length;
    await sleep(400);
    expect(payloadsFrom(alice, 'carol')).toHaveLength(countAfterLeave);
    // Alice and Bob still hear each other.
    const bobCount = payloadsFrom(alice, 'bob').length;
    await eventually(() => expect(payloadsFrom(alice, 'bob').length).toBeGreaterThan(bobCount));

    // Bob's connection drops and he comes back under the same id on a new peer.
    await bob.close();
    const bobAgain = await joinClient(room, 'bob', 'bob-again');
    await eventually(() => {
      expectReceives(alice, 'bob', 'bob-again');
      expectReceives(bobAgain, 'alice');
    }, 8000);
    expect(room.getStats().participants.map((p) => p.participantId).sort()).toEqual(['alice', 'bob']);
  });

  it('reads ICE servers from ICE_SERVERS and refuses a malformed value', () => {
    expect(parseIceServers(undefined)).toEqual([]);
    expect(parseIceServers('[{"urls":"turn:127.0.0.1:3478","username":"u","credential":"p"}]')).toEqual([
      { urls: 'turn:127.0.0.1:3478', username: 'u', credential: 'p' },
    ]);
    expect(() => parseIceServers('{"urls":1}')).toThrow(/ICE_SERVERS must be a JSON array/);
    expect(() => parseIceServers('not json')).toThrow(/ICE_SERVERS must be a JSON array/);
  });
});
