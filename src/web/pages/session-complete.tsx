import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useSearchParams } from 'react-router';
import { gnwJobQueryOptions } from '#web/api/gnw.ts';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useJob } from '#web/api/jobs.ts';
import { useCanEnter } from '#web/features/session/api/session-queries.ts';
import { describeNextStep } from '#web/features/session/session-complete-words.ts';
import { paths } from '#web/paths.ts';

/** /session/complete?jobId=…: the session is over for everyone; what happens next, for each role. */
export default function SessionCompletePage() {
  const [searchParams] = useSearchParams();
  const jobId = searchParams.get('jobId');
  const user = useCurrentUser();
  if (!user) return <Navigate to="/login" replace />;
  return (
    <DashboardLayout user={user} task="Session complete">
      <section className="card stack session-complete" aria-labelledby="complete-title">
        <h1 id="complete-title">The session has ended</h1>
        <p>The video call is closed for everyone, and the recording has stopped.</p>
        {jobId ? <NextSteps jobId={jobId} email={user.email} /> : <p>Open the job from your dashboard to see what happens next.</p>}
        <p className="actions">
          {jobId ? <JobPageLink jobId={jobId} /> : null}
          <Link className="button" to={paths.session}>
            Your sessions
          </Link>
          <Link className="button" to={paths.dashboard}>
            Dashboard
          </Link>
        </p>
      </section>
    </DashboardLayout>
  );
}

/**
 * The way on: for the notary of a sealed job, its journal entry; for the person who asked for it
 * through Notarize Now, their request's last step (the charge settled once, the documents to
 * download); for everyone else, the job page.
 */
function JobPageLink({ jobId }: { jobId: string }) {
  const canEnter = useCanEnter(jobId);
  const job = useJob(jobId);
  const isSigner = canEnter.data?.role === 'signer';
  // Only the person who asked may read the request (404 for anyone else): asked of signers only.
  const request = useQuery({ ...gnwJobQueryOptions(jobId), enabled: isSigner });
  const isJournalNext = canEnter.data?.role === 'notary' && job.data?.status === 'completed';
  if (isSigner && request.data) {
    return (
      <Link className="button primary" to={`${paths.gnwSetup}?jobId=${encodeURIComponent(jobId)}`}>
        {job.data?.status === 'completed' ? 'Get your notarized documents' : 'Back to your request'}
      </Link>
    );
  }
  return (
    <Link className="button primary" to={paths.jobDetail(jobId)}>
      {isJournalNext ? 'Finish the journal entry' : 'Open the job page'}
    </Link>
  );
}

function NextSteps({ jobId, email }: { jobId: string; email: string | undefined }) {
  const canEnter = useCanEnter(jobId);
  const job = useJob(jobId);
  if (canEnter.isPending || job.isPending) return <p role="status">Loading what happens next…</p>;
  const role = job.data ? (canEnter.data?.role ?? null) : null;
  return <p className="strong">{describeNextStep({ isSealed: job.data?.status === 'completed', role, email })}</p>;
}
