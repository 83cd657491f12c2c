import { Link, Navigate, useSearchParams } from 'react-router';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useJob } from '#web/features/jobs/job-hooks.ts';
import { useCanEnter } from '#web/features/session/session-api.ts';
import { paths } from '#web/paths.ts';

/** What happens next once the session ended, by whether the job was sealed in it and by role. */
const nextSteps: Record<'sealed' | 'unsealed', Record<string, string>> = {
  sealed: {
    notary: 'The job is sealed and digitally signed. Its notarized documents, the audit trail and the session’s recording are on the job page.',
    signer: 'The notary sealed the documents. The notarized documents are on the job page, and you receive them by email.',
    witness: 'The notary sealed the documents. The notarized documents are on the job page.',
    observer: 'The notary sealed the documents. Nothing more is needed from you.',
  },
  unsealed: {
    notary:
      'The job was not sealed in this session, so it is back to ready. Fields are filled only while a session is recorded: open another session from the job page to finish it.',
    signer: 'The documents were not sealed in this session. The notary will invite you to another session to finish them.',
    witness: 'The documents were not sealed in this session. The notary will invite you to another session to finish them.',
    observer: 'The documents were not sealed in this session. Nothing more is needed from you.',
  },
};

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
        {jobId ? <NextSteps jobId={jobId} /> : <p>Open the job from your dashboard to see what happens next.</p>}
        <p className="actions">
          {jobId ? (
            <Link className="button primary" to={paths.jobDetail(jobId)}>
              Open the job page
            </Link>
          ) : null}
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

function NextSteps({ jobId }: { jobId: string }) {
  const canEnter = useCanEnter(jobId);
  const job = useJob(jobId);
  if (canEnter.isPending || job.isPending) return <p role="status">Loading what happens next…</p>;
  const role = canEnter.data?.role ?? null;
  const sentence = role && job.data ? nextSteps[job.data.status === 'completed' ? 'sealed' : 'unsealed'][role] : null;
  return <p className="strong">{sentence ?? 'Open the job page to see where it stands.'}</p>;
}
