import '#web/features/session/call/session-room.css';
import { useState } from 'react';
import { Navigate, useParams } from 'react-router';
import type { VideoRole } from '#shared/video.ts';
import { LoadingWorkspace } from '#web/components/loading.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { IdentityReviewPanel } from '#web/features/identity/identity-review-panel.tsx';
import { CallPanel } from '#web/features/session/call/call-panel.tsx';
import { useMediaHub } from '#web/features/session/call/use-media-hub.ts';
import { RecordingIndicator } from '#web/features/session/recording-indicator.tsx';
import { completePath, sessionRefetchMs, useCanEnter } from '#web/features/session/api/session-queries.ts';
import { SessionControls } from '#web/features/session/session-controls.tsx';
import { placeInRoom } from '#web/features/session/room-place.ts';
import { useSessionEnd } from '#web/features/session/use-session-end.ts';
import { loadDeviceChoice, newDeviceGroupId, saveDeviceChoice, type DeviceChoice } from '#web/features/session/device-choice.ts';
import { AdoptSignatureDialog } from '#web/features/signatures/adopt-signature-dialog.tsx';
import { SigningWorkspace } from '#web/features/signing/signing-workspace.tsx';
import { ApiError } from '#web/lib/api-client.ts';

/** The devices the pre-join screen chose, or the browser's defaults (kept, so a reload rejoins alike). */
function useDeviceChoice(jobId: string): DeviceChoice {
  const [choice] = useState(() => {
    const stored = loadDeviceChoice(jobId);
    if (stored) return stored;
    const fallback = { deviceGroupId: newDeviceGroupId(), cameraId: null, microphoneId: null, videoOff: false, audioMuted: false };
    saveDeviceChoice(jobId, fallback);
    return fallback;
  });
  return choice;
}

interface RoomProps {
  jobId: string;
  docId: string | null;
  userId: string | null;
  selfName: string;
  sessionId: string;
  participantId: string;
  role: VideoRole;
}

function SessionRoom({ jobId, docId, userId, selfName, sessionId, participantId, role }: RoomProps) {
  const choice = useDeviceChoice(jobId);
  const hub = useMediaHub({ jobId, sessionId, role, participantId, choice });
  // The end reaches everyone even when their signaling socket is down (4410 is the fast path).
  useSessionEnd(jobId, sessionId);
  const [isVideoShown, setIsVideoShown] = useState(true);
  return (
    <div className={`session-room${isVideoShown ? '' : ' video-hidden'}`}>
      <button
        type="button"
        className="button session-video-toggle"
        aria-expanded={isVideoShown}
        aria-controls="session-call"
        onClick={() => setIsVideoShown((value) => !value)}
      >
        {isVideoShown ? 'Hide video' : 'Show video'}
      </button>
      <div id="session-call" className="session-call">
        <RecordingIndicator jobId={jobId} />
        <CallPanel jobId={jobId} sessionId={sessionId} participantId={participantId} selfName={selfName} role={role} hub={hub} />
        {role === 'notary' ? (
          <div className="session-room-controls">
            <SessionControls jobId={jobId} sessionId={sessionId} />
            <IdentityReviewPanel jobId={jobId} />
          </div>
        ) : null}
      </div>
      <div className="session-document">
        {/* Signatures are adopted in a dialog here: leaving the page would drop the call and the recording. */}
        <SigningWorkspace
          key={jobId}
          jobId={jobId}
          documentId={docId}
          userId={userId}
          routeBase="/session"
          renderAdoptDialog={(request) => <AdoptSignatureDialog {...request} personName={selfName} />}
        />
      </div>
    </div>
  );
}

/**
 * /session/:jobId/:docId: the live call beside the signing workspace; participants follow the
 * notary's page. Only people admitted to the open session are here: anyone else goes to
 * /session/:jobId (the pre-join screen and the lobby).
 */
export function SessionRoomPage() {
  const { jobId = '', docId } = useParams();
  const user = useCurrentUser();
  // Read again every few seconds and on every live-channel change: someone removed leaves the room.
  const canEnter = useCanEnter(jobId, { refetchMs: sessionRefetchMs });
  const [admittedSessionId, setAdmittedSessionId] = useState<string | null>(null);
  // A session page is no post-login target; a signed-out person signs in from /login.
  if (!user) return <Navigate to="/login" replace />;
  const place = placeInRoom({
    data: canEnter.data,
    errorStatus: canEnter.error instanceof ApiError ? canEnter.error.status : null,
    errorMessage: canEnter.error?.message ?? null,
    isFetching: canEnter.isFetching,
    admittedSessionId,
  });
  if (place.kind === 'loading') return <LoadingWorkspace />;
  if (place.kind === 'entry') return <Navigate to={`/session/${jobId}`} replace />;
  if (place.kind === 'ended') return <Navigate to={completePath(jobId)} replace />;
  // No answer yet and the read failed. (A later read that fails keeps the last answer: the room stays, the call reconnects.)
  if (place.kind === 'error') {
    return (
      <p className="alert" role="alert">
        {place.message}
      </p>
    );
  }
  if (admittedSessionId !== place.sessionId) setAdmittedSessionId(place.sessionId);
  return (
    <SessionRoom
      key={`${place.sessionId}:${place.participantId}:${place.role}`}
      jobId={jobId}
      docId={docId ?? null}
      userId={user.id ?? null}
      selfName={user.name ?? 'You'}
      sessionId={place.sessionId}
      participantId={place.participantId}
      role={place.role}
    />
  );
}

export default SessionRoomPage;
