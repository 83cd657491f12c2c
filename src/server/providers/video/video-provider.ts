import { z } from 'zod';

/**
 * The media hub of a live session. Every participant sends their camera and microphone once, to
 * the server, which forwards each stream to every other participant (and, later, to the recorder).
 * Signaling (carrying offers, answers and ICE candidates to the browser) is the caller's job; this
 * boundary only speaks SDP. The werift implementation lives in werift-sfu.ts; a LiveKit
 * deployment would sit behind the same interface.
 */
export interface VideoProvider {
  readonly kind: 'werift';
  /** Creates the room of a session; returns the existing one if it is already open. */
  createRoom(roomId: string): VideoRoom;
  findRoom(roomId: string): VideoRoom | undefined;
  listRooms(): VideoRoom[];
  /** Closes every room and every peer. */
  close(): Promise<void>;
}

export type MediaKind = 'audio' | 'video';

export interface SessionDescription {
  type: 'offer' | 'answer';
  sdp: string;
}

export interface IceCandidate {
  candidate: string;
  sdpMid?: string | null;
  sdpMLineIndex?: number | null;
  usernameFragment?: string | null;
}

/** An m-line of the server's offer that carries another participant's media to this one. */
export interface Subscription {
  mid: string;
  kind: MediaKind;
  /** Whose media arrives on this m-line (also the msid stream id of the track). */
  participantId: string;
}

/** What the server asks of one participant: an offer to answer, and what each m-line is for. */
export interface ParticipantOffer {
  participantId: string;
  offer: SessionDescription;
  /** The m-lines (recvonly on the server) on which the participant sends their own media. */
  publish: Record<MediaKind, string>;
  /** Every sendonly m-line of the server so far, one per kind per other participant. */
  subscriptions: Subscription[];
}

/** One RTP packet a participant sent, as it arrived (header extensions included). */
export interface ParticipantRtpPacket {
  participantId: string;
  kind: MediaKind;
  /** Lower case: 'video/vp8', 'audio/opus'. */
  mimeType: string;
  clockRate: number;
  /** The serialized packet: copy it if it must outlive the callback. */
  packet: Buffer;
  receivedAt: number;
}

export interface ParticipantStats {
  participantId: string;
  connectionState: ConnectionState;
  /** Bytes of RTP (header and payload) received from this participant since they joined. */
  bytesReceived: number;
  packetsReceived: number;
  /** Packets missing from the sequence numbers this participant sent (both kinds). */
  packetsLost: number;
  /** packetsLost / (packetsReceived + packetsLost), 0 when nothing was expected yet. */
  lossFraction: number;
  /** Bytes forwarded to this participant (media of all the others). */
  bytesSent: number;
  packetsSent: number;
  /** Average over the last few seconds, bits per second. */
  inboundBitrate: number;
  outboundBitrate: number;
  /** Media streams this participant uploads (one audio and one video, whatever the room size). */
  publishedTracks: number;
}

export interface DelayHistogram {
  /** Upper bounds of the buckets in microseconds; the last bucket is everything above. */
  boundsMicros: number[];
  counts: number[];
  count: number;
  /** Upper bound of the bucket holding the 50th and 99th percentile, in microseconds. */
  p50Micros: number;
  p99Micros: number;
  maxMicros: number;
}

export interface RoomStats {
  roomId: string;
  participants: ParticipantStats[];
  inboundBitrate: number;
  outboundBitrate: number;
  packetsLost: number;
  /** Time from a packet reaching the hub to its copies being handed to the network. */
  forwardingDelay: DelayHistogram;
}

export type ConnectionState = 'new' | 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/**
 * A participant's connection to the hub changed. `failed` also comes from the hub itself when ICE
 * has not connected within its timeout after the participant's answer (no path at all, e.g. a
 * TURN server refusing the credentials): the remedy is an ICE restart or a rejoin.
 */
export interface ConnectionStateEvent {
  participantId: string;
  state: ConnectionState;
  /** Why, in a sentence, when the hub decided the state itself. */
  reason?: string;
}

export type RtpListener = (packet: ParticipantRtpPacket) => void;
export type ConnectionStateListener = (event: ConnectionStateEvent) => void;
/** The server has a new offer for a participant already in the room (someone joined). */
export type RenegotiationListener = (offer: ParticipantOffer) => void;

export interface VideoRoom {
  readonly roomId: string;
  /**
   * Adds a participant and returns the server's offer, ICE gathering complete. Joining with the
   * id of someone already in the room replaces their connection (a rejoin after a drop); the
   * others keep receiving them on the same m-lines.
   */
  join(participantId: string): Promise<ParticipantOffer>;
  /** Applies the participant's answer to the latest offer. */
  acceptAnswer(participantId: string, answer: SessionDescription): Promise<void>;
  /** A trickled candidate of the participant; `null` or an empty candidate ends them. */
  addIceCandidate(participantId: string, candidate: IceCandidate | null): Promise<void>;
  /** A new offer with fresh ICE credentials for a participant whose network changed. */
  restartIce(participantId: string): Promise<ParticipantOffer>;
  leave(participantId: string): Promise<void>;
  hasParticipant(participantId: string): boolean;
  participantIds(): string[];
  /** Called with every RTP packet any participant sends; returns the unsubscribe function. */
  onRtp(listener: RtpListener): () => void;
  onRenegotiation(listener: RenegotiationListener): () => void;
  /** Called whenever a participant's connection changes state; returns the unsubscribe function. */
  onConnectionState(listener: ConnectionStateListener): () => void;
  /** Asks a participant's browser for a video keyframe now (a recording segment starts with one). */
  requestKeyframe(participantId: string): void;
  getStats(): RoomStats;
  close(): Promise<void>;
}

export const iceServerSchema = z.object({
  urls: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof iceServerSchema>;

const iceServersShape = 'ICE_SERVERS must be a JSON array of {urls, username?, credential?}';

/**
 * Parses ICE_SERVERS (a JSON array of {urls, username?, credential?}, as RTCPeerConnection takes
 * it); unset means none. Every url is stun:, turn: or turns:, and a TURN server has a username and
 * a credential. Throws a sentence naming what is wrong, for a startup error.
 */
export function parseIceServers(json: string | undefined): IceServer[] {
  if (json === undefined || json.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`${iceServersShape}; it is not valid JSON (${(error as Error).message}).`, { cause: error });
  }
  const parsed = z.array(iceServerSchema).safeParse(value);
  if (!parsed.success) {
    const index = parsed.error.issues[0]?.path[0];
    throw new Error(`${iceServersShape}; ${typeof index === 'number' ? `entry ${index} does not have that shape` : 'it is not an array'}.`);
  }
  parsed.data.forEach((server, index) => {
    for (const url of typeof server.urls === 'string' ? [server.urls] : server.urls) {
      const scheme = /^(stun|stuns|turn|turns):/i.exec(url)?.[1]?.toLowerCase();
      if (!scheme) throw new Error(`ICE_SERVERS entry ${index}: "${url}" is not a stun:, turn: or turns: url.`);
      if (scheme.startsWith('turn') && (!server.username || !server.credential)) {
        throw new Error(`ICE_SERVERS entry ${index}: the TURN server ${url} needs a username and a credential.`);
      }
    }
  });
  return parsed.data;
}
