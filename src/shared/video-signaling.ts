import { z } from 'zod';
import { lobbyStateSchema, videoRoleSchema, videoSessionStatusSchema } from './video.ts';

/**
 * Signaling between a browser and the media hub, over the WebSocket `GET /api/video/signal`
 * (signed-in, same origin). The server always offers (decision 016); the browser answers.
 *
 * 1. The browser takes a media token (`POST /api/video/token`) and sends `hello` first, within
 *    `signalHelloTimeoutMs`.
 * 2. The server checks the token and, in the database, that the session is open (active or
 *    started), the person is still admitted and still on the job; then it sends `welcome` (ICE
 *    servers for the RTCPeerConnection), `offer`, `peers` and `recording`.
 * 3. The browser answers (`answer`), trickles `candidate`s (null ends them). Every later `offer`
 *    (someone joined, or an ICE restart the browser asked for with `restart-ice`) is answered the
 *    same way.
 * 4. The socket is closed by the server with one of `signalCloseCodes` when the person may no
 *    longer be there; the browser shows the sentence of the code and does not reconnect for
 *    4401, 4403 and 4410.
 */

/** Paths. */
export const signalPath = '/api/video/signal';
export const signalHelloTimeoutMs = 10_000;

export const signalCloseCodes = {
  /** A message that is not JSON or not one of the client messages. */
  badMessage: 4400,
  /** Signed out, or the sign-in session ended. */
  signedOut: 4401,
  /** The token was refused, the person is not admitted (denied, removed) or lost access to the job. */
  refused: 4403,
  /** The same participant connected from another tab or device; this socket is replaced. */
  replaced: 4409,
  /** The session was finalized. */
  sessionEnded: 4410,
} as const;

/** What the browser shows for each close code. */
export const signalCloseSentences: Record<number, string> = {
  4400: 'The video connection received a message it could not read and was closed.',
  4401: 'You are signed out. Sign in again to return to the session.',
  4403: 'You are not admitted to this session any more.',
  4409: 'You joined this session from another tab or device, so this one was disconnected.',
  4410: 'The notary has ended this session.',
};

const sdpSchema = z.string().min(1).max(200_000);
export const iceCandidateMessageSchema = z.object({
  candidate: z.string().max(2_000),
  sdpMid: z.string().max(64).nullish(),
  sdpMLineIndex: z.number().int().min(0).max(1_000).nullish(),
  usernameFragment: z.string().max(256).nullish(),
});

/** Browser to server. */
export const signalClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('hello'), sessionId: z.uuid(), token: z.string().min(1).max(4_000) }),
  z.object({ type: z.literal('answer'), sdp: sdpSchema }),
  z.object({ type: z.literal('candidate'), candidate: iceCandidateMessageSchema.nullable() }),
  /** The browser's network changed or its connection failed: send a new offer with fresh ICE credentials. */
  z.object({ type: z.literal('restart-ice') }),
  /** The sender muted, unmuted, turned their camera off or on: shown to everyone. */
  z.object({ type: z.literal('media-state'), audioMuted: z.boolean(), videoOff: z.boolean() }),
  /** Round trip of the signaling socket: keeps it alive and feeds the network-quality indicator. */
  z.object({ type: z.literal('ping'), at: z.number() }),
]);
export type SignalClientMessage = z.infer<typeof signalClientMessageSchema>;

const mediaKindSchema = z.enum(['audio', 'video']);
export const iceServerMessageSchema = z.object({
  urls: z.union([z.string(), z.array(z.string())]),
  username: z.string().optional(),
  credential: z.string().optional(),
});

/** One person in the room, as everyone in it sees them. */
export const signalPeerSchema = z.object({
  participantId: z.string(),
  name: z.string(),
  role: videoRoleSchema,
  /** Their connection to the hub: 'connected' once media flows; 'disconnected' or 'failed' while they are away. */
  connectionState: z.enum(['new', 'connecting', 'connected', 'disconnected', 'failed', 'closed']),
  /** Admitted but with no signaling socket open now (dropped network, closed tab): everyone sees a banner. */
  isAway: z.boolean(),
  audioMuted: z.boolean(),
  videoOff: z.boolean(),
});
export type SignalPeer = z.infer<typeof signalPeerSchema>;

export const signalRecordingSchema = z.object({ recordingId: z.string(), startedAt: z.string() }).nullable();

/** Server to browser. */
export const signalServerMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('welcome'),
    participantId: z.string(),
    role: videoRoleSchema,
    iceServers: z.array(iceServerMessageSchema),
    /** 'relay' when the deployment sends all media through its TURN server (ICE_TRANSPORT_POLICY). */
    iceTransportPolicy: z.enum(['all', 'relay']),
  }),
  z.object({
    type: z.literal('offer'),
    sdp: sdpSchema,
    /** The m-lines (mids) on which this browser sends its own audio and video. */
    publish: z.record(mediaKindSchema, z.string()),
    /** Which mid carries whose audio or video. */
    subscriptions: z.array(z.object({ mid: z.string(), kind: mediaKindSchema, participantId: z.string() })),
  }),
  /** The whole room, sent on every change (someone joined, left, dropped, muted). Includes the receiver. */
  z.object({ type: z.literal('peers'), peers: z.array(signalPeerSchema) }),
  /** The running recording, or null when none runs; sent on join and on every change. */
  z.object({ type: z.literal('recording'), recording: signalRecordingSchema }),
  z.object({ type: z.literal('pong'), at: z.number() }),
  /** A sentence about a message the server could not act on; the socket stays open. */
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type SignalServerMessage = z.infer<typeof signalServerMessageSchema>;

/**
 * What `GET /api/jobs/{id}/can-enter` adds about the caller's place in the open session, so the
 * pre-join screen and the lobby need one call. All null when there is no open session or the caller
 * has not entered it.
 */
export const sessionPlaceSchema = z.object({
  sessionId: z.string().nullable(),
  sessionStatus: videoSessionStatusSchema.nullable(),
  participantId: z.string().nullable(),
  lobbyState: lobbyStateSchema.nullable(),
  recording: signalRecordingSchema,
});
export type SessionPlace = z.infer<typeof sessionPlaceSchema>;

/**
 * On the job's live channel (`/api/jobs/{id}/live`): the session, its lobby or its recording
 * changed. Browsers refetch can-enter (and the notary the session view).
 */
export const videoChangedMessage = { type: 'video.changed' } as const;
