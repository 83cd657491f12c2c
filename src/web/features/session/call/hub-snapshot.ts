import type { SignalPeer } from '#shared/video-signaling.ts';
import type { NetworkQuality } from './network-quality.ts';

export type HubPhase = 'starting' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** What the call panel shows; replaced (never mutated) on every change. */
export interface HubSnapshot {
  phase: HubPhase;
  /** Why the call ended for this person (a close code's sentence); null while it runs. */
  closedSentence: string | null;
  /** The notary finalized the session (close code 4410). */
  hasEnded: boolean;
  /** Something to tell the person that does not end the call (a device that failed, a server message). */
  notice: string | null;
  peers: SignalPeer[];
  /** Each other participant's received audio and video, by participant id. */
  remote: Record<string, MediaStream>;
  /** The person's own camera, for the self-view. */
  local: MediaStream | null;
  audioMuted: boolean;
  videoOff: boolean;
  cameraId: string | null;
  microphoneId: string | null;
  recording: { recordingId: string; startedAt: string } | null;
  quality: NetworkQuality;
  reconnectAttempt: number;
}

/** Before anything happened: the devices and mute state the person chose. */
export function initialSnapshot(choice: { audioMuted: boolean; videoOff: boolean; cameraId: string | null; microphoneId: string | null }): HubSnapshot {
  return {
    phase: 'starting',
    closedSentence: null,
    hasEnded: false,
    notice: null,
    peers: [],
    remote: {},
    local: null,
    audioMuted: choice.audioMuted,
    videoOff: choice.videoOff,
    cameraId: choice.cameraId,
    microphoneId: choice.microphoneId,
    recording: null,
    quality: 'unknown',
    reconnectAttempt: 0,
  };
}
