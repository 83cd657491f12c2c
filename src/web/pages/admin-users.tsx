import { Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { AdminUsersDirectory } from '#web/features/admin-users/admin-users-directory.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';

export default function AdminUsersPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="Users">
      {getEffectiveRole(user) === 'admin' ? (
        <AdminUsersDirectory />
      ) : (
        <p className="alert error" role="alert">
          Only administrators can manage accounts.
        </p>
      )}
    </DashboardLayout>
  );
}
