import { signalServerMessageSchema, type SignalServerMessage } from '#shared/video-signaling.ts';
import { groupByParticipant, type Subscription } from './subscriptions.ts';

type Kind = 'audio' | 'video';
export type OfferMessage = Extract<SignalServerMessage, { type: 'offer' }>;

/**
 * Answers an offer of the hub (decision 016): the `publish` transceivers become sendonly and carry
 * the person's tracks (replaceTrack, so a later offer never asks for the camera again), the others
 * receive. Returns the answer's SDP.
 */
export async function answerOffer(pc: RTCPeerConnection, offer: OfferMessage, tracks: Record<Kind, MediaStreamTrack | null>): Promise<string | null> {
  await pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
  for (const transceiver of pc.getTransceivers()) {
    const kind = (['audio', 'video'] as const).find((candidate) => offer.publish[candidate] === transceiver.mid);
    if (!kind) continue;
    transceiver.direction = 'sendonly';
    if (transceiver.sender.track !== tracks[kind]) await transceiver.sender.replaceTrack(tracks[kind]);
  }
  await pc.setLocalDescription(await pc.createAnswer());
  return pc.localDescription?.sdp ?? null;
}

/** One stream per other participant from the subscriptions; a stream is kept while its tracks stay the same. */
export function collectRemoteStreams(
  pc: RTCPeerConnection,
  subscriptions: Subscription[],
  selfId: string,
  previous: Record<string, MediaStream>,
): Record<string, MediaStream> {
  const receivers = new Map(pc.getTransceivers().map((transceiver) => [transceiver.mid, transceiver.receiver.track]));
  const grouped = groupByParticipant(subscriptions, (mid) => receivers.get(mid), selfId);
  const remote: Record<string, MediaStream> = {};
  for (const [participantId, tracks] of grouped) {
    const wanted = [tracks.audio, tracks.video].filter((track): track is MediaStreamTrack => track !== null);
    const current = previous[participantId];
    const isSame = current && current.getTracks().length === wanted.length && wanted.every((track) => current.getTrackById(track.id));
    remote[participantId] = isSame ? current : new MediaStream(wanted);
  }
  return remote;
}

/** Frames the video encoder has sent, from a sender's stats report (0 before the first). */
export function framesEncodedOf(report: { forEach(callback: (value: unknown) => void): void }): number {
  let frames = 0;
  report.forEach((value) => {
    const entry = value as { type?: string; kind?: string; framesEncoded?: number };
    if (entry.type === 'outbound-rtp' && entry.kind === 'video') frames += entry.framesEncoded ?? 0;
  });
  return frames;
}

/** A reading of the video sender after a camera switch: milliseconds since the switch, and frames encoded so far. */
export interface EncoderReading {
  afterMs: number;
  framesEncoded: number;
}

/** How long after a camera switch frames encoded may still be the previous camera's. */
export const cameraSettleMs = 1_000;

/**
 * Whether the encoder sends a camera just put on the sender, from the readings taken since the switch:
 * 'sending' once it encodes frames, 'silent' when the check's time is up without any, 'waiting' until
 * then. Frames counted in the first `settleMs` are not the new camera's: a busy encoder is still
 * finishing the previous camera's queued frames, so counting starts from the first reading after it.
 */
export function judgeCameraSwitch(readings: EncoderReading[], checkMs: number, settleMs = cameraSettleMs): 'sending' | 'waiting' | 'silent' {
  const settled = readings.filter((reading) => reading.afterMs >= settleMs);
  const baseline = settled[0]?.framesEncoded;
  if (baseline !== undefined && settled.some((reading) => reading.framesEncoded > baseline + 1)) return 'sending';
  return (readings.at(-1)?.afterMs ?? 0) >= checkMs ? 'silent' : 'waiting';
}

/** Reads one message of the hub; anything else (not JSON, not in the contract) is dropped. */
export function readServerMessage(data: unknown): SignalServerMessage | null {
  try {
    const parsed = signalServerMessageSchema.safeParse(JSON.parse(String(data)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
