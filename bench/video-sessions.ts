/**
 * Sessions of the media hub benchmark: a room of the in-process werift hub with Chromium
 * participants joining one after another, and the time from each join to the first frames shown.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { VideoProvider, VideoRoom } from '#server/providers/video/video-provider.ts';
import { answerRenegotiations, joinBenchParticipant, type AnsweringParticipant, type BenchBrowser } from './video-participants.ts';

/** Times of one join (the second participant onward), in ms from the newcomer's join call. */
export interface JoinTiming {
  /** The newcomer shows the first frame of someone already in the room. */
  seesFirstMs: number;
  /** The newcomer shows a frame of everyone already in the room. */
  seesAllMs: number;
  /** Each one already in the room shows the newcomer's first frame (the hub renegotiates with them). */
  seenByMs: number[];
}

export interface BenchSession {
  room: VideoRoom;
  participants: AnsweringParticipant[];
  joins: JoinTiming[];
  close(): Promise<void>;
}

const joinTimeoutMs = 30_000;

/** Waits until the newcomer and everyone before it show each other's video; returns the times. */
async function timeJoin(newcomer: AnsweringParticipant, present: AnsweringParticipant[]): Promise<JoinTiming> {
  const deadline = Date.now() + joinTimeoutMs;
  for (;;) {
    const seen = await newcomer.firstFrames();
    const seenBy = await Promise.all(present.map(async (other) => (await other.firstFrames())[newcomer.id]));
    const seenFrom = present.map((other) => seen[other.id]);
    if (seenFrom.every((at) => at !== undefined) && seenBy.every((at) => at !== undefined)) {
      const times = (values: (number | undefined)[]) => values.map((at) => (at ?? 0) - newcomer.joinedAt);
      return { seesFirstMs: Math.min(...times(seenFrom)), seesAllMs: Math.max(...times(seenFrom)), seenByMs: times(seenBy) };
    }
    if (Date.now() > deadline) {
      const missing = present.filter((_other, index) => seenFrom[index] === undefined || seenBy[index] === undefined).map((other) => other.id);
      throw new Error(`${newcomer.id} and ${missing.join(', ')} did not see each other's video within ${joinTimeoutMs / 1000} s.`);
    }
    await sleep(100);
  }
}

/** Opens a room and joins `size` participants one after another, each once the previous one is seen by all. */
export async function openSession(
  sfu: VideoProvider,
  media: BenchBrowser,
  roomId: string,
  size: number,
  onError: (error: unknown) => void,
): Promise<BenchSession> {
  const room = sfu.createRoom(roomId);
  const byId = new Map<string, AnsweringParticipant>();
  answerRenegotiations(room, byId, onError);
  const participants: AnsweringParticipant[] = [];
  const session: BenchSession = {
    room,
    participants,
    joins: [],
    async close() {
      await Promise.all(participants.map((participant) => participant.leave().catch(onError)));
      await room.close();
    },
  };
  try {
    for (let index = 0; index < size; index += 1) {
      const participant = await joinBenchParticipant(media, room, `${roomId}-p${index + 1}`);
      byId.set(participant.id, participant);
      const present = [...participants];
      participants.push(participant);
      if (present.length > 0) session.joins.push(await timeJoin(participant, present));
    }
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
}
