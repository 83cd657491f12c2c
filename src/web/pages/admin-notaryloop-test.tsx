import { Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { NotaryLoop } from '#web/features/gnw/notary-loop.tsx';

/** /admin/notaryloop-test, SPEC's admin test page: the matching loop of Notarize Now, live (decision 051). */
export default function AdminNotaryLoopTestPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="Notary loop test">
      {getEffectiveRole(user) === 'admin' ? (
        <>
          <h1>Notary loop test</h1>
          <p className="muted">
            How Notarize Now finds a notary: one online, eligible notary at a time, the one longest without an offer first. Each offer rings for 30 seconds.
          </p>
          <NotaryLoop />
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators can test the notary loop.
        </p>
      )}
    </DashboardLayout>
  );
}
