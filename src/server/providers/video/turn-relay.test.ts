import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { coturnMissingReason, startCoturn, type Coturn } from '#test/coturn.ts';
import { eventually, joinChromium, launchMediaBrowser, type ChromiumParticipant, type MediaBrowser } from '#test/chromium-participant.ts';
import { parseConfig } from '../../config.ts';
import type { ConnectionStateEvent, VideoProvider, VideoRoom } from './video-provider.ts';
import { createWeriftSfu, type WeriftSfuOptions } from './werift-sfu.ts';

const missing = coturnMissingReason();
if (missing) console.warn(missing);

describe.skipIf(missing !== null)('media through a TURN relay (a real coturn on loopback)', () => {
  let turn: Coturn | undefined;
  let media: MediaBrowser | undefined;
  let provider: VideoProvider | undefined;

  beforeAll(async () => {
    const [turnStarted, mediaStarted] = await Promise.allSettled([startCoturn(), launchMediaBrowser()]);
    if (turnStarted.status === 'fulfilled') turn = turnStarted.value;
    if (mediaStarted.status === 'fulfilled') media = mediaStarted.value;
    for (const result of [turnStarted, mediaStarted]) if (result.status === 'rejected') throw result.reason;
  });
  afterEach(async () => {
    await provider?.close();
    provider = undefined;
  });
  afterAll(async () => {
    await media?.close();
    await turn?.close();
  });

  /** The configuration with ICE_SERVERS naming the TURN server and its user. */
  function configWithTurn() {
    const { url, username, credential } = turn!;
    return parseConfig({ ICE_SERVERS: JSON.stringify([{ urls: url, username, credential }]) });
  }

  /** The media hub with the configuration's ICE servers (its own candidates include relayed ones). */
  function createRoom(roomId: string, participants: Map<string, ChromiumParticipant>, options: Partial<WeriftSfuOptions> = {}): VideoRoom {
    provider = createWeriftSfu({ ...configWithTurn().video, iceAdditionalHostAddresses: ['127.0.0.1'], keyframeIntervalMs: 500, ...options });
    const room = provider.createRoom(roomId);
    room.onRenegotiation((offer) => void participants.get(offer.participantId)?.answer(offer));
    return room;
  }

  it('forwards two relay-only browsers to each other through the TURN server', async () => {
    const participants = new Map<string, ChromiumParticipant>();
    const room = createRoom('room-relay', participants);
    const connected = new Set<string>();
    room.onConnectionState((event) => {
      if (event.state === 'connected') connected.add(event.participantId);
    });
    const relayOnly = { iceServers: configWithTurn().video.iceServers, iceTransportPolicy: 'relay' as const };

    const startedAt = Date.now();
    const alice = await joinChromium(media!, room, 'alice', relayOnly);
    participants.set('alice', alice);
    await eventually(async () => expect((await alice.stats()).connectionState).toBe('connected'), 10_000);
    const connectMs = Date.now() - startedAt;
    console.info(`Relay-only browser connected to the media hub through coturn in ${connectMs} ms (join to connected).`);

    const bob = await joinChromium(media!, room, 'bob', relayOnly);
    participants.set('bob', bob);

    for (const peer of [alice, bob]) {
      const stats = await peer.stats();
      expect(stats.localCandidateTypes.length).toBeGreaterThan(0);
      expect(new Set(stats.localCandidateTypes)).toEqual(new Set(['relay']));
    }
    // Each decodes the other's video: camera -> coturn -> hub -> coturn -> the other browser.
    await eventually(async () => {
      for (const peer of [alice, bob]) {
        const stats = await peer.stats();
        expect(stats.connectionState).toBe('connected');
        expect(stats.selectedPair).toMatchObject({ localType: 'relay', localRelayProtocol: 'udp' });
        expect(stats.framesDecoded).toBeGreaterThan(0);
      }
    }, 12_000);
    const decodedBefore = (await alice.stats()).framesDecoded;
    await eventually(async () => expect((await alice.stats()).framesDecoded).toBeGreaterThan(decodedBefore + 5), 4000);
    expect([...connected].sort()).toEqual(['alice', 'bob']);
    for (const participant of room.getStats().participants) {
      expect(participant.connectionState).toBe('connected');
      expect(participant.packetsReceived).toBeGreaterThan(0);
      expect(participant.packetsSent).toBeGreaterThan(0);
    }
  });

  it('reports failed ICE within the timeout, without hanging, when the TURN server refuses the credentials', async () => {
    const participants = new Map<string, ChromiumParticipant>();
    const iceConnectTimeoutMs = 3000;
    const room = createRoom('room-refused', participants, { iceConnectTimeoutMs });
    const states: ConnectionStateEvent[] = [];
    room.onConnectionState((event) => void states.push(event));
    const wrongCredentials = {
      iceServers: [{ urls: turn!.url, username: turn!.username, credential: 'not-the-password' }],
      iceTransportPolicy: 'relay' as const,
    };

    const carol = await joinChromium(media!, room, 'carol', wrongCredentials);
    const answeredAt = Date.now();
    participants.set('carol', carol);
    // The browser learns why: the TURN server answered 401, so it has no candidate to offer.
    const stats = await carol.stats();
    expect(stats.candidateErrors.length).toBeGreaterThan(0);
    expect(stats.candidateErrors.every((error) => error.errorCode === 401 && error.url === turn!.url)).toBe(true);
    expect(stats.localCandidateTypes).toEqual([]);

    // The hub does not wait forever: it reports the participant failed once the timeout passes.
    await eventually(() => expect(states.some((event) => event.state === 'failed')).toBe(true), iceConnectTimeoutMs + 3000);
    const failedAfterMs = Date.now() - answeredAt;
    expect(failedAfterMs).toBeGreaterThanOrEqual(iceConnectTimeoutMs - 100);
    expect(states.find((event) => event.state === 'failed')).toMatchObject({
      participantId: 'carol',
      reason: expect.stringMatching(/^ICE did not connect within 3 s of the answer/) as unknown,
    });
    expect(states.some((event) => event.state === 'connected')).toBe(false);
    const [serverSide] = room.getStats().participants;
    expect(serverSide).toMatchObject({ participantId: 'carol', connectionState: 'failed', packetsReceived: 0, packetsSent: 0 });
    expect((await carol.stats()).connectionState).not.toBe('connected');
  });
});
