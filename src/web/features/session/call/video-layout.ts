import { videoMapSlotCount, type VideoMapAssignment } from '#shared/video.ts';

/**
 * The tiles in order: people placed by the shared map first, in slot order (entries for people not
 * in the room are skipped, decision 020), then everyone in the room the map does not name, in the
 * order of `present`, in the free slots.
 */
export function layoutTiles(assignments: VideoMapAssignment[], present: string[]): VideoMapAssignment[] {
  const inRoom = new Set(present);
  const placed = assignments.filter((assignment) => inRoom.has(assignment.participantId)).sort((a, b) => a.slot - b.slot);
  const usedSlots = new Set(placed.map((assignment) => assignment.slot));
  const named = new Set(placed.map((assignment) => assignment.participantId));
  const freeSlots = Array.from({ length: videoMapSlotCount }, (_, slot) => slot).filter((slot) => !usedSlots.has(slot));
  const rest = present.filter((participantId) => !named.has(participantId));
  const extra = rest.slice(0, freeSlots.length).map((participantId, index) => ({ slot: freeSlots[index] as number, participantId }));
  return [...placed, ...extra].sort((a, b) => a.slot - b.slot);
}

/**
 * The map after the notary moves someone to `slot`: whoever held that slot takes the mover's old
 * slot (a swap). Starts from the layout everyone sees, so the stored map names only people present.
 */
export function moveToSlot(layout: VideoMapAssignment[], participantId: string, slot: number): VideoMapAssignment[] {
  const mover = layout.find((assignment) => assignment.participantId === participantId);
  if (!mover || mover.slot === slot) return layout;
  return layout
    .map((assignment) => {
      if (assignment.participantId === participantId) return { slot, participantId };
      if (assignment.slot === slot) return { slot: mover.slot, participantId: assignment.participantId };
      return assignment;
    })
    .sort((a, b) => a.slot - b.slot);
}

/** The banner for the people in the room whose connection dropped. */
export function describeAway(names: string[]): string | null {
  if (names.length === 0) return null;
  if (names.length === 1) return `${names[0]} lost their connection. Waiting for them to come back…`;
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)} lost their connection. Waiting for them to come back…`;
}
