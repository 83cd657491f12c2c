import { Link, Navigate, useSearchParams } from 'react-router';
import { getUserRoles } from '#shared/roles.ts';
import { FormAlert } from '#web/components/field.tsx';
import { AuditTrail } from '#web/features/audit/audit-trail.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { DocumentsPanel } from '#web/features/documents/documents-panel.tsx';
import { NotarizedDocuments } from '#web/features/documents/notarized-documents.tsx';
import { useJob } from '#web/features/jobs/job-hooks.ts';
import { JournalDraftsPanel } from '#web/features/journal/journal-drafts-panel.tsx';
import { JobSummary } from '#web/features/jobs/job-summary.tsx';
import { ParticipantsPanel } from '#web/features/jobs/participants-panel.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { JobInvitationCard, useJobInvitation } from '#web/features/invites/job-invitation-card.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { paths } from '#web/paths.ts';

export default function JobDetailPage() {
  const [searchParams] = useSearchParams();
  const jobId = searchParams.get('jobId');
  const user = useCurrentUser();
  const job = useJob(jobId);
  // A job that invited the person's confirmed address answers 404 until they accept (decision 010).
  const invitation = useJobInvitation(jobId);
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(`/jobs/detail?${searchParams.toString()}`)}`} replace />;
  return (
    <DashboardLayout user={user} task="Job details">
      {!jobId ? <FormAlert message="No job was chosen. Open a job from the dashboard." /> : null}
      {job.isPending && jobId ? <p role="status">Loading the job…</p> : null}
      {jobId ? <JobInvitationCard jobId={jobId} /> : null}
      {job.error && !(job.error instanceof ApiError && job.error.status === 404 && (invitation.isPending || invitation.data)) ? <FormAlert message={job.error.message} /> : null}
      {job.data ? (
        <>
          <JobSummary job={job.data} />
          {/* A sealed job offers its signed outputs first; the documents below are then the unsigned originals. */}
          {job.data.status === 'completed' ? <NotarizedDocuments jobId={job.data.id} /> : null}
          {job.data.status === 'completed' && job.data.notaryId === user.id ? <JournalDraftsPanel jobId={job.data.id} /> : null}
          {job.data.notaryId === user.id || getUserRoles(user).includes('admin') ? (
            <p>
              <Link className="button" style={{ minHeight: 44 }} to={paths.jobRecording(job.data.id)}>
                Watch the session recording
              </Link>
            </p>
          ) : null}
          <ParticipantsPanel job={job.data} />
          <DocumentsPanel
            jobId={job.data.id}
            canEdit={job.data.permissions.canEdit && ['draft', 'ready', 'scheduled'].includes(job.data.status)}
            isSealed={job.data.status === 'completed'}
          />
          <AuditTrail jobId={job.data.id} />
        </>
      ) : null}
    </DashboardLayout>
  );
}
