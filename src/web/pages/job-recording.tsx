import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useParams } from 'react-router';
import { jobRecordingsSchema } from '#shared/recording-playback.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { RecordingView } from '#web/features/recordings/recording-view.tsx';
import { api } from '#web/lib/api.ts';
import { paths } from '#web/paths.ts';

/** /jobs/:jobId/recording: the job's session recordings, for its notary and administrators (read-only). */
export default function JobRecordingPage() {
  const { jobId = '' } = useParams();
  const user = useCurrentUser();
  const recordings = useQuery({
    queryKey: jobKeys.recordings(jobId),
    queryFn: () => api.get(`/api/jobs/${encodeURIComponent(jobId)}/recordings`, jobRecordingsSchema),
    enabled: Boolean(user && jobId),
  });
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(paths.jobRecording(jobId))}`} replace />;
  const data = recordings.data;
  return (
    <DashboardLayout user={user} task="Session recording">
      <p>
        <Link className="recording-back" to={paths.jobDetail(jobId)}>
          Back to the job
        </Link>
      </p>
      <h1>{data ? `Recording of “${data.jobTitle}”` : 'Session recording'}</h1>
      {recordings.isPending ? <p role="status">Loading the recording…</p> : null}
      <FormAlert message={recordings.error?.message ?? null} />
      {data && data.recordings.length === 0 ? (
        <p className="notice">
          This job’s session has not been recorded. The notary starts the recording in the live session; it appears here as soon as it starts.
        </p>
      ) : null}
      {data?.recordings.map((recording) => (
        <RecordingView key={recording.recordingId} data={data} recording={recording} />
      ))}
    </DashboardLayout>
  );
}
