import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { FormAlert } from '#web/components/field.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { IdentityStep, identityDoneSentence } from '#web/features/identity/identity-step.tsx';
import { jobKeys, useJob, useJobDocuments } from '#web/api/jobs.ts';
import { Denied, Lobby } from '#web/features/session/lobby.tsx';
import { PreJoin } from '#web/features/session/pre-join.tsx';
import { roomPath, sessionRefetchMs, useCanEnter, useSessionLiveUpdates } from '#web/features/session/api/session-queries.ts';
import { SessionControls } from '#web/features/session/session-controls.tsx';
import { useSessionEnd } from '#web/features/session/use-session-end.ts';
import { paths } from '#web/paths.ts';

/** /session/:jobId: the pre-join screen, then the lobby until the notary lets the person in. */
export default function SessionEntryPage() {
  const { jobId = '' } = useParams();
  const user = useCurrentUser();
  if (!user) return <Navigate to="/login" replace />;
  return (
    <DashboardLayout user={user} task="Entering the session">
      <SessionEntry key={jobId} jobId={jobId} personName={user.fullName ?? user.name} />
    </DashboardLayout>
  );
}

function SessionEntry({ jobId, personName }: { jobId: string; personName?: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const job = useJob(jobId);
  const documents = useJobDocuments(jobId);
  // The session someone entered (or waits in) here: an admission sends them on, its end to /session/complete.
  const [enteredSessionId, setEnteredSessionId] = useState<string | null>(null);
  const canEnter = useCanEnter(jobId, { refetchMs: sessionRefetchMs });
  useSessionLiveUpdates(jobId);
  useSessionEnd(jobId, enteredSessionId);
  const place = canEnter.data?.session;
  const identity = canEnter.data?.identity;
  // The identity step comes before the device check and consent, until can-enter says it is satisfied.
  const needsIdentity = Boolean(identity?.required && !identity.satisfied);
  // Finished here (not on an earlier visit): the pre-join screen says so above the devices.
  const [hasFinishedIdentity, setHasFinishedIdentity] = useState(false);
  const firstDocumentId = documents.data?.items[0]?.id;
  const isWaiting = place?.lobbyState === 'waiting';

  // Seen waiting (a reload in the lobby): from now on an admission sends them on.
  if (isWaiting && place.sessionId && enteredSessionId !== place.sessionId) setEnteredSessionId(place.sessionId);
  const isAdmitted = Boolean(enteredSessionId) && place?.lobbyState === 'admitted';
  useEffect(() => {
    if (isAdmitted && documents.data) navigate(roomPath(jobId, firstDocumentId));
  }, [documents.data, firstDocumentId, isAdmitted, jobId, navigate]);

  const title = job.data?.title;
  return (
    <div className="stack session-entry">
      <h1>{title ? `Session: ${title}` : 'Session'}</h1>
      <p>
        <Link to={paths.session}>All your sessions</Link>
        {' · '}
        <Link to={paths.jobDetail(jobId)}>The job page</Link>
      </p>
      {canEnter.isPending ? <p role="status">Checking whether you can enter…</p> : null}
      {canEnter.error ? <FormAlert message={canEnter.error.message} /> : null}
      {canEnter.data && place ? (
        place.lobbyState === 'denied' ? (
          <Denied />
        ) : isWaiting ? (
          <Lobby jobId={jobId} canEnter={canEnter.data} />
        ) : needsIdentity && identity ? (
          <IdentityStep
            jobId={jobId}
            checkId={identity.checkId}
            mode="desktop"
            personName={personName}
            onComplete={() => {
              setHasFinishedIdentity(true);
              void queryClient.invalidateQueries({ queryKey: jobKeys.canEnter(jobId) });
            }}
          />
        ) : (
          <>
            {hasFinishedIdentity ? (
              <p className="alert success" role="status">
                {identityDoneSentence}
              </p>
            ) : null}
            <PreJoin
              jobId={jobId}
              canEnter={canEnter.data}
              onEntered={(result) => {
                if (result.lobbyState === 'admitted') navigate(roomPath(jobId, firstDocumentId));
                else setEnteredSessionId(result.sessionId);
              }}
            />
            {canEnter.data.role === 'notary' && place.sessionId && place.participantId ? <SessionControls jobId={jobId} sessionId={place.sessionId} /> : null}
          </>
        )
      ) : null}
    </div>
  );
}
