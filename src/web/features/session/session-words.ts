/**
 * The names of the notary's steps into the act: three places once said
 * "start" (the job page, the pre-join screen, the room) for what the notary sees as one act. Now
 * each step has its own verb: the job page *opens* the room (a link), the pre-join screen *enters*
 * it, and only the room *starts the notarization*, which starts its recording in the same click.
 */

/** The pre-join screen's button: entering, never starting. */
export function getEnterLabel(session: { sessionId: string | null; participantId: string | null; lobbyState: string | null }): string {
  return isBackInRoom(session) ? 'Return to the room' : 'Enter the room';
}

/** Someone the notary admitted who left the room (a reload, the job page): their consent to the recording is on record. */
export function isBackInRoom(session: { sessionId: string | null; participantId: string | null; lobbyState: string | null }): boolean {
  return Boolean(session.sessionId && session.participantId && session.lobbyState === 'admitted');
}

/** What the pre-join screen tells the notary about entering. */
export const notaryEntryNote =
  'Entering opens the room: the signers wait in its lobby until you let them in. The notarization begins only when you start it in the room.';

export type StartControl =
  | { kind: 'start'; label: string; hint: string }
  | { kind: 'resume-recording'; label: string; hint: string }
  | { kind: 'recording'; label: string; hint: string }
  | { kind: 'none' };

/** The room's one start: the act and its recording together, or resuming a recording that stopped. */
export function getStartControl(sessionStatus: string | null | undefined, isRecording: boolean): StartControl {
  if (sessionStatus === 'active') {
    return { kind: 'start', label: 'Start the notarization', hint: 'Starts the act and its recording together. Let the signers in first.' };
  }
  if (sessionStatus === 'started' && !isRecording) {
    return { kind: 'resume-recording', label: 'Resume the recording', hint: 'The recording is stopped: nobody can sign until it runs again.' };
  }
  if (sessionStatus === 'started') return { kind: 'recording', label: 'Stop recording', hint: 'The notarization is under way and recorded.' };
  return { kind: 'none' };
}
