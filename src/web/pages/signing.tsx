import { canCreateJobs } from '#shared/roles.ts';
import { Link, Navigate, useParams } from 'react-router';
import { getSessionStep, sessionStatuses } from '#shared/session-steps.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { NotarizedDocuments } from '#web/features/documents/notarized-documents.tsx';
import { useJob } from '#web/api/jobs.ts';
import { JobsTable } from '#web/features/jobs/jobs-table.tsx';
import { useCanEnter } from '#web/features/session/api/session-queries.ts';
import { AdoptSignatureDialog } from '#web/features/signatures/adopt-signature-dialog.tsx';
import { SigningWorkspace } from '#web/features/signing/signing-workspace.tsx';

/**
 * The person's next step for the job's live session, above the workspace: someone who
 * opened the workspace of a job whose session is open, or who must prove their identity first, is
 * shown the one way into the room; the workspace itself never holds the call.
 */
function SessionStepStrip({ jobId }: { jobId: string }) {
  const job = useJob(jobId);
  const isOpenJob = Boolean(job.data && sessionStatuses.includes(job.data.status));
  const canEnter = useCanEnter(jobId, { enabled: isOpenJob, refetchMs: isOpenJob ? 10_000 : false });
  const step =
    job.data && canEnter.data
      ? getSessionStep({ jobId, status: job.data.status, role: canEnter.data.role, identity: canEnter.data.identity, place: canEnter.data.session })
      : null;
  if (!step) return null;
  return (
    <section className={`session-step-strip${step.isUrgent ? ' urgent' : ''}`} aria-label="Your live session">
      <p>{step.sentence}</p>
      <Link className="button primary" to={step.href}>
        {step.label}
      </Link>
    </section>
  );
}

/** /signing, /signing/:jobId, /signing/:jobId/:docId: the unified signing session. */
export default function SigningPage() {
  const { jobId, docId } = useParams();
  const user = useCurrentUser();
  if (!user) return <Navigate to="/login" replace />;
  if (!jobId) {
    return (
      <DashboardLayout user={user} task="Signing">
        <p>Choose a job to open its signing workspace.</p>
        <JobsTable canCreate={canCreateJobs(user)} />
      </DashboardLayout>
    );
  }
  return (
    <div className="signing-page">
      <SessionStepStrip jobId={jobId} />
      <SigningWorkspace
        key={jobId}
        jobId={jobId}
        documentId={docId ?? null}
        userId={user.id ?? null}
        outputs={<NotarizedDocuments jobId={jobId} />}
        renderAdoptDialog={(request) => <AdoptSignatureDialog {...request} personName={user.name ?? user.fullName ?? ''} />}
      />
    </div>
  );
}
