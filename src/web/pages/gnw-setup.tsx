import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useSearchParams } from 'react-router';
import { gnwJobQueryOptions } from '#web/api/gnw.ts';
import { FormAlert } from '#web/components/field.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { DocumentsPanel } from '#web/features/documents/documents-panel.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { SetupWizard } from '#web/features/gnw/setup-wizard.tsx';
import { paths } from '#web/paths.ts';

/** /gnw/setup?jobId: the person's Notarize Now job, resumed where they left off, on any device (decision 051). */
export default function GnwSetupPage() {
  const [searchParams] = useSearchParams();
  const jobId = searchParams.get('jobId');
  const user = useCurrentUser();
  const job = useQuery({ ...gnwJobQueryOptions(jobId ?? ''), enabled: Boolean(user && jobId) });
  if (!user) return <Navigate to={`${paths.gnwLogin}?next=${encodeURIComponent(`${paths.gnwSetup}?${searchParams.toString()}`)}`} replace />;
  if (!jobId) return <Navigate to={paths.gnwStart} replace />;
  return (
    <DashboardLayout user={user} task="Notarize Now">
      <h1>Notarize Now</h1>
      {job.isPending ? <p role="status">Loading your notarization…</p> : null}
      {job.error ? (
        <div className="stack">
          <FormAlert message={job.error.message} />
          <p>
            <Link to={paths.gnwStart}>Go to your current notarization</Link>
          </p>
        </div>
      ) : null}
      {job.data ? (
        <SetupWizard
          job={job.data}
          documentsPanel={<DocumentsPanel jobId={job.data.jobId} canEdit={job.data.status === 'setup' && job.data.step === 'documents'} />}
        />
      ) : null}
    </DashboardLayout>
  );
}
