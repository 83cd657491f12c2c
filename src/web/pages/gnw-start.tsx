import { Navigate } from 'react-router';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { StartProgress } from '#web/features/gnw/start-progress.tsx';
import { paths } from '#web/paths.ts';

/** /gnw/start (SPEC "Guest flow page"): signed in, the person's Notarize Now job is resumed or started; otherwise /gnw-login. */
export default function GnwStartPage() {
  const user = useCurrentUser();
  if (!user) return <Navigate to={paths.gnwLogin} replace />;
  return (
    <main className="centered-page" id="main-content">
      <div className="card stack gnw-wizard">
        <h1>Notarize Now</h1>
        <StartProgress />
      </div>
    </main>
  );
}
