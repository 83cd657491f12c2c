/** One m-line the hub sends: whose audio or video arrives on it (the offer's `subscriptions`). */
export interface Subscription {
  mid: string;
  kind: 'audio' | 'video';
  participantId: string;
}

export interface ParticipantTracks<Track> {
  audio: Track | null;
  video: Track | null;
}

/**
 * Groups the received tracks by participant: each subscription's mid is looked up with `trackOf`
 * (the receiver's track on that mid); mids with no track yet are skipped, and a participant's own
 * id never gets tracks (the hub does not send a person back to themselves).
 */
export function groupByParticipant<Track>(
  subscriptions: Subscription[],
  trackOf: (mid: string) => Track | null | undefined,
  selfId: string | null,
): Map<string, ParticipantTracks<Track>> {
  const grouped = new Map<string, ParticipantTracks<Track>>();
  for (const subscription of subscriptions) {
    if (subscription.participantId === selfId) continue;
    const track = trackOf(subscription.mid);
    if (!track) continue;
    const entry = grouped.get(subscription.participantId) ?? { audio: null, video: null };
    entry[subscription.kind] = track;
    grouped.set(subscription.participantId, entry);
  }
  return grouped;
}
