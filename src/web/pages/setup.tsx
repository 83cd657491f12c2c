import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { findSetupPath } from '#web/features/gnw/setup-resume.ts';
import { paths } from '#web/paths.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';

/**
 * /setup?jobId&start goes, when signed in, to the job's home: the wizard for the person's own Notarize
 * Now job (where they left off), the job page for any other; else to /login.
 */
export default function SetupPage() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const jobId = searchParams.get('jobId');
  const start = searchParams.get('start');
  useEffect(() => {
    let isCurrent = true;
    if (getStoredUser() && jobId) {
      void findSetupPath(jobId, start).then((path) => {
        if (isCurrent) navigate(path, { replace: true });
      });
    } else if (getStoredUser()) {
      navigate(paths.dashboard, { replace: true });
    } else {
      const here = `/setup?${searchParams.toString()}`;
      navigate(`/login?next=${encodeURIComponent(here)}`, { replace: true });
    }
    return () => {
      isCurrent = false;
    };
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
