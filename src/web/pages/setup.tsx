import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { paths } from '#web/paths.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';

/** /setup?jobId&start goes to the job's home when signed in, else to /login. */
export default function SetupPage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const jobId = searchParams.get('jobId');
  const start = searchParams.get('start');
  useEffect(() => {
    if (getStoredUser() && jobId) {
      navigate(paths.jobDetail(jobId, start), { replace: true });
    } else if (getStoredUser()) {
      navigate(paths.dashboard, { replace: true });
    } else {
      const here = `/setup?${searchParams.toString()}`;
      navigate(`/login?next=${encodeURIComponent(here)}`, { replace: true });
    }
  }, [jobId, start, navigate, searchParams]);
  return (
    <main className="centered-page" role="status">
      <p>Redirecting…</p>
      <p className="muted">
        Job: {jobId ?? '—'} · Start: {start ?? '—'}
      </p>
    </main>
  );
}
