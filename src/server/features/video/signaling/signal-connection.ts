import {
  signalClientMessageSchema,
  signalCloseCodes,
  signalHelloTimeoutMs,
  type SignalClientMessage,
  type SignalServerMessage,
  videoChangedMessage,
} from '#shared/video-signaling.ts';
import type { Ctx } from '#server/lib/context.ts';
import { watchJobAccess, type ChannelEnd, type JobAccessWatch } from '#server/features/jobs/job-access-watch.ts';
import type { VideoProvider } from '#server/providers/video/video-provider.ts';
import { liveSessionsOf } from './live-sessions.ts';
import { RoomMember, type MemberSink } from './room-member.ts';
import type { RoomLink } from './room-relay.ts';
import { admitHello, checkStillAdmitted } from './signal-admission.ts';

const videoChanged = JSON.stringify(videoChangedMessage);

/** What the connection needs of the WebSocket. */
export interface SignalSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
  isOpen(): boolean;
}

/**
 * One browser's signaling socket (src/shared/video-signaling.ts): hello within the time limit,
 * then the media room's offers and the browser's answers, candidates, ICE restarts and media
 * state, for as long as the person may be there (watchJobAccess + checkStillAdmitted). The room
 * is on this instance or, with Redis, on its home instance, reached through the relay.
 */
export class SignalSocketSession {
  private link: RoomLink | null = null;
  private watch: JobAccessWatch | null = null;
  private isEnded = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly helloTimer: NodeJS.Timeout;

  constructor(
    private readonly ctx: Ctx,
    private readonly video: VideoProvider,
    private readonly sessionToken: string,
    private readonly socket: SignalSocket,
  ) {
    this.helloTimer = setTimeout(() => this.end({ code: signalCloseCodes.badMessage, reason: 'no hello in time' }), signalHelloTimeoutMs);
    this.helloTimer.unref();
  }

  private send(message: SignalServerMessage): void {
    if (this.isEnded || !this.socket.isOpen()) return;
    this.socket.send(JSON.stringify(message));
  }

  /** The room closes this socket (replaced, or the whole room closes): no leave, the room handles it. */
  private close(code: number, reason: string): void {
    if (this.isEnded) return;
    this.isEnded = true;
    clearTimeout(this.helloTimer);
    void this.watch?.stop();
    this.socket.close(code, reason);
  }

  /** Every message, handled one at a time in arrival order. */
  onMessage(raw: string): void {
    this.queue = this.queue.then(() => this.handle(raw)).catch((error: unknown) => this.ctx.log.warn({ err: error }, 'signaling message failed'));
  }

  /** The socket closed (by the browser or the network): the person is away and leaves the media room. */
  onClosed(): void {
    const wasEnded = this.isEnded;
    this.isEnded = true;
    clearTimeout(this.helloTimer);
    void this.watch?.stop();
    if (!wasEnded) void this.leaveRoom();
  }

  private end(reason: ChannelEnd): void {
    if (this.isEnded) return;
    this.close(reason.code, reason.reason);
    void this.leaveRoom();
  }

  private async leaveRoom(): Promise<void> {
    await this.link?.leave();
  }

  private async handle(raw: string): Promise<void> {
    if (this.isEnded) return;
    let message: SignalClientMessage;
    try {
      message = signalClientMessageSchema.parse(JSON.parse(raw));
    } catch {
      return this.end({ code: signalCloseCodes.badMessage, reason: 'unreadable message' });
    }
    const link = this.link;
    if (!link) {
      if (message.type !== 'hello') return this.end({ code: signalCloseCodes.badMessage, reason: 'hello first' });
      return this.hello(message);
    }
    switch (message.type) {
      case 'hello':
        return this.end({ code: signalCloseCodes.badMessage, reason: 'hello twice' });
      case 'ping':
        return this.send({ type: 'pong', at: message.at });
      default:
        return link.apply(message);
    }
  }

  private async hello(hello: { sessionId: string; token: string }): Promise<void> {
    clearTimeout(this.helloTimer);
    const admitted = await admitHello(this.ctx, hello);
    if (!admitted.isAdmitted) return this.end(admitted.end);
    if (this.isEnded) return;
    const { claims, jobId } = admitted;
    this.watch = await watchJobAccess(this.ctx, {
      jobId,
      sessionToken: this.sessionToken,
      // The room hears `video.changed` itself; each socket checks its own admission again.
      onJobMessage: (message) => {
        if (message === videoChanged) void this.watch?.recheck();
      },
      check: (personCtx) => checkStillAdmitted(personCtx, claims),
      end: (reason) => this.end(reason),
    });
    if (this.isEnded) return void this.watch.stop();
    const sessions = liveSessionsOf(this.video);
    const { iceServers, iceTransportPolicy } = this.ctx.config.video;
    const welcome: SignalServerMessage = { type: 'welcome', participantId: claims.participantId, role: claims.role, iceServers, iceTransportPolicy };
    const sink: MemberSink = { send: (message) => this.send(message), close: (code, reason) => this.close(code, reason) };
    let homeId: string | null;
    try {
      homeId = await sessions.locate(claims.sessionId);
    } catch (error) {
      this.ctx.log.warn({ err: error, sessionId: claims.sessionId }, 'finding the media room failed');
      return this.end({ code: 1011, reason: 'media room unavailable' });
    }
    if (this.isEnded) return;
    if (homeId !== null && sessions.relay) {
      const { participantId, role, sessionId } = claims;
      this.link = await sessions.relay.connect(homeId, { sessionId, jobId, participantId, role, welcome }, sink);
      if (this.isEnded) await this.link.leave();
      return;
    }
    const room = sessions.openRoom(claims.sessionId, jobId, { db: this.ctx.db, realtime: this.ctx.realtime, log: this.ctx.log });
    const member = new RoomMember(claims.participantId, claims.role, room, sink, this.ctx.log);
    this.link = {
      apply: (message) => member.apply(message),
      leave: async () => {
        if (await member.leave()) await sessions.closeIfIdle(room.sessionId);
      },
    };
    const ended = await member.enter(welcome);
    if (ended) this.end(ended);
  }
}
