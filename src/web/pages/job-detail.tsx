import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useSearchParams } from 'react-router';
import { jobRecordingsSchema } from '#shared/recording-playback.ts';
import { getUserRoles, hasAnyRole } from '#shared/roles.ts';
import { getSessionStep, sessionStatuses } from '#shared/session-steps.ts';
import { FormAlert } from '#web/components/field.tsx';
import { AuditTrail } from '#web/features/audit/audit-trail.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { DocumentsPanel } from '#web/features/documents/documents-panel.tsx';
import { NotarizedDocuments } from '#web/features/documents/notarized-documents.tsx';
import { jobKeys, useJob } from '#web/api/jobs.ts';
import { JournalDraftsPanel } from '#web/features/journal/journal-drafts-panel.tsx';
import { JobPaymentCard } from '#web/features/pricing/job-payment.tsx';
import { JobChargesCard } from '#web/features/pricing/job-charges.tsx';
import { JobSummary } from '#web/features/jobs/job-summary.tsx';
import { ParticipantsPanel } from '#web/features/jobs/participants-panel.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { JobInvitationCard, useJobInvitation } from '#web/features/invites/job-invitation-card.tsx';
import { useCanEnter } from '#web/features/session/api/session-queries.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { paths } from '#web/paths.ts';

export default function JobDetailPage() {
  const [searchParams] = useSearchParams();
  const jobId = searchParams.get('jobId');
  const user = useCurrentUser();
  const job = useJob(jobId);
  // A job that invited the person's confirmed address answers 404 until they accept (decision 010).
  const invitation = useJobInvitation(jobId);
  // While the job may hold a live session, where this person stands in it (identity, lobby, room): the page's primary action leads there.
  const isOpenJob = Boolean(job.data && sessionStatuses.includes(job.data.status));
  const canEnter = useCanEnter(jobId ?? '', { enabled: isOpenJob, refetchMs: isOpenJob ? 10_000 : false });
  const sessionStep =
    job.data && canEnter.data
      ? getSessionStep({
          jobId: job.data.id,
          status: job.data.status,
          role: canEnter.data.role,
          identity: canEnter.data.identity,
          place: canEnter.data.session,
        })
      : null;
  const mayWatch = Boolean(user && job.data && (job.data.notaryId === user.id || getUserRoles(user).includes('admin')));
  // The recording link appears once there is a recording to watch, never before any session.
  const recordings = useQuery({
    queryKey: jobKeys.recordings(jobId ?? ''),
    queryFn: () => api.get(`/api/jobs/${encodeURIComponent(jobId ?? '')}/recordings`, jobRecordingsSchema),
    enabled: mayWatch,
    retry: false,
  });
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(`/jobs/detail?${searchParams.toString()}`)}`} replace />;
  return (
    <DashboardLayout user={user} task="Job details">
      {!jobId ? <FormAlert message="No job was chosen. Open a job from the dashboard." /> : null}
      {job.isPending && jobId ? <p role="status">Loading the job…</p> : null}
      {jobId ? <JobInvitationCard jobId={jobId} /> : null}
      {job.error && !(job.error instanceof ApiError && job.error.status === 404 && (invitation.isPending || invitation.data)) ? (
        <FormAlert message={job.error.message} />
      ) : null}
      {job.data ? (
        <>
          {/* The actions wait for the session step: drawn before it, they would move under a finger or a click as it arrives. */}
          <JobSummary job={job.data} viewer={{ id: user.id ?? null, sessionStep }} areActionsKnown={!isOpenJob || !canEnter.isPending} />
          {/* A sealed job offers its signed outputs first; the documents below are then the unsigned originals. */}
          {job.data.status === 'completed' ? <NotarizedDocuments jobId={job.data.id} /> : null}
          {job.data.status === 'completed' && job.data.notaryId === user.id ? <JournalDraftsPanel jobId={job.data.id} /> : null}
          {job.data.status === 'completed' && hasAnyRole(user, ['admin', 'billing', 'finance', 'title', 'title_agent']) ? (
            <JobChargesCard jobId={job.data.id} />
          ) : null}
          {hasAnyRole(user, ['admin', 'billing', 'finance', 'title', 'title_agent']) || job.data.createdBy === user.id ? (
            <JobPaymentCard jobId={job.data.id} hasCompany={job.data.companyName !== null} user={user} />
          ) : null}
          {mayWatch && (recordings.data?.recordings.length ?? 0) > 0 ? (
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
            jobTypeName={job.data.jobTypeName}
            jobTypeDocumentTags={job.data.jobTypeDocumentTags}
          />
          <AuditTrail jobId={job.data.id} />
        </>
      ) : null}
    </DashboardLayout>
  );
}
