import { canCreateJobs } from '#shared/roles.ts';
import { Navigate, useParams } from 'react-router';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { NotarizedDocuments } from '#web/features/documents/notarized-documents.tsx';
import { JobsTable } from '#web/features/jobs/jobs-table.tsx';
import { SessionStepStrip } from '#web/features/session/session-step-strip.tsx';
import { AdoptSignatureDialog } from '#web/features/signatures/adopt-signature-dialog.tsx';
import { SigningWorkspace } from '#web/features/signing/signing-workspace.tsx';

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
