import { Navigate, useLocation } from 'react-router';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { CalendarPage } from '#web/features/calendar/calendar-page.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';

export default function CalendarRoutePage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="Calendar">
      <CalendarPage />
    </DashboardLayout>
  );
}
