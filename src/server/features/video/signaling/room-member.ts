import { signalCloseCodes, type SignalClientMessage, type SignalServerMessage } from '#shared/video-signaling.ts';
import type { VideoRole } from '#shared/video.ts';
import type { ChannelEnd } from '#server/features/jobs/job-access-watch.ts';
import { offerMessage, type SignalConnection, type SignalRoom } from './signal-room.ts';

/** The messages of a browser that the media room applies (hello and ping stay with the socket). */
export type RoomClientMessage = Extract<SignalClientMessage, { type: 'answer' | 'candidate' | 'restart-ice' | 'media-state' }>;

export function isRoomClientMessage(message: SignalClientMessage): message is RoomClientMessage {
  return message.type === 'answer' || message.type === 'candidate' || message.type === 'restart-ice' || message.type === 'media-state';
}

/** Where a member's messages go: the browser's socket on this instance, or the relay to the instance that has it. */
export interface MemberSink {
  send(message: SignalServerMessage): void;
  /** The room closes the member (replaced, or the room closes): no leave follows. */
  close(code: number, reason: string): void;
}

/**
 * One admitted participant in a session's room on the room's home instance, whatever instance
 * their socket is open on: enters (welcome, first offer, peers, recording), applies their answers,
 * candidates, ICE restarts and media state, and leaves.
 */
export class RoomMember implements SignalConnection {
  private isOffered = false;
  private isClosed = false;

  constructor(
    readonly participantId: string,
    readonly role: VideoRole,
    readonly room: SignalRoom,
    private readonly sink: MemberSink,
    private readonly log: { warn(object: unknown, message: string): void },
  ) {}

  send(message: SignalServerMessage): void {
    if (this.isClosed) return;
    // The contract sends welcome and the first offer before peers and recording: the room's
    // broadcasts skip a member still joining, which gets the whole state right after its offer.
    if (!this.isOffered && (message.type === 'peers' || message.type === 'recording')) return;
    this.sink.send(message);
  }

  close(code: number, reason: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.sink.close(code, reason);
  }

  /** Attaches (replacing the participant's other socket), welcomes and joins the media room: why it must end, or null. */
  async enter(welcome: SignalServerMessage): Promise<ChannelEnd | null> {
    this.room.attach(this, signalCloseCodes.replaced);
    this.send(welcome);
    let offer;
    try {
      offer = await this.room.join(this);
    } catch (error) {
      this.log.warn({ err: error, sessionId: this.room.sessionId }, 'joining the media room failed');
      return { code: 1011, reason: 'media room unavailable' };
    }
    if (!offer || this.isClosed) return null;
    this.send(offerMessage(offer));
    this.isOffered = true;
    this.room.refresh();
    await this.room.sendRecording(this);
    return null;
  }

  async apply(message: RoomClientMessage): Promise<void> {
    if (this.isClosed) return;
    const { participantId, room } = this;
    try {
      switch (message.type) {
        case 'answer':
          return await room.room.acceptAnswer(participantId, { type: 'answer', sdp: message.sdp });
        case 'candidate':
          return await room.room.addIceCandidate(participantId, message.candidate);
        case 'restart-ice':
          return this.send(offerMessage(await room.room.restartIce(participantId)));
        case 'media-state':
          return room.setMediaState(participantId, { audioMuted: message.audioMuted, videoOff: message.videoOff });
      }
    } catch (error) {
      this.log.warn({ err: error, participantId, type: message.type }, 'signaling message not applied');
      this.send({ type: 'error', message: `The server could not apply your ${message.type}; reconnect if the video stops.` });
    }
  }

  /** The socket went away (or may no longer be there): out of the media room. True when this was still the participant's socket. */
  async leave(): Promise<boolean> {
    this.isClosed = true;
    return this.room.detach(this);
  }
}
