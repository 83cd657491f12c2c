import { videoRoleSchema, type VideoRole } from '#shared/video.ts';
import type { CanEnter } from '#shared/jobs.ts';

/** What the room page shows for the can-enter answer it holds. */
export type RoomPlace =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  /** Not admitted to the open session: the pre-join screen and the lobby (/session/:jobId). */
  | { kind: 'entry' }
  /** The session this page was in has ended: /session/complete. */
  | { kind: 'ended' }
  | { kind: 'room'; sessionId: string; participantId: string; role: VideoRole };

export interface RoomPlaceInput {
  data: CanEnter | undefined;
  /** The status of a failed read, when the last read failed. */
  errorStatus: number | null;
  errorMessage: string | null;
  /** A read of can-enter is under way (or starts as this page mounts). */
  isFetching: boolean;
  /** The session this page has shown the room of, if any. */
  admittedSessionId: string | null;
}

/**
 * Where the room page sends its person. An answer that does not admit them is acted on only once no
 * read is under way: the answer held may predate their own entry. The pre-join screen sends the
 * person here as soon as they have entered, and a read cancelled by a live-channel change leaves the
 * answer from before the entry in the cache until the next one arrives; redirecting on that answer
 * sent notaries out of the room they had just opened (seen in CI, and reproduced).
 */
export function placeInRoom({ data, errorStatus, errorMessage, isFetching, admittedSessionId }: RoomPlaceInput): RoomPlace {
  if (!data) {
    if (errorStatus === 403) return { kind: 'entry' };
    if (errorStatus !== null || errorMessage !== null) return { kind: 'error', message: errorMessage ?? 'The session could not be loaded.' };
    return { kind: 'loading' };
  }
  const place = data.session;
  const role = videoRoleSchema.safeParse(data.role);
  if (place.lobbyState === 'admitted' && place.sessionId && place.participantId && role.success) {
    return { kind: 'room', sessionId: place.sessionId, participantId: place.participantId, role: role.data };
  }
  if (isFetching) return { kind: 'loading' };
  // The session this person was in has ended (can-enter names no session or another one).
  if (admittedSessionId && place.sessionId !== admittedSessionId) return { kind: 'ended' };
  return { kind: 'entry' };
}

/**
 * Whether the session a page shows has ended for everyone: can-enter, read with no other read under
 * way, names no open session or another one.
 */
export function hasSessionEnded({ data, isFetching, sessionId }: { data: CanEnter | undefined; isFetching: boolean; sessionId: string | null }): boolean {
  if (!sessionId || data === undefined || isFetching) return false;
  return data.session.sessionId !== sessionId;
}
