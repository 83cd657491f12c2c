import { Navigate } from 'react-router';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { SessionList } from '#web/features/session/session-list.tsx';

/** /session: the live sessions the person can enter now or soon. */
export default function SessionListPage() {
  const user = useCurrentUser();
  if (!user) return <Navigate to="/login" replace />;
  return (
    <DashboardLayout user={user} task="Sessions">
      <div className="stack">
        <h1>Your sessions</h1>
        <p>Live notarization sessions you can enter now or soon. Enter one to check your camera and microphone first.</p>
        <SessionList />
      </div>
    </DashboardLayout>
  );
}
