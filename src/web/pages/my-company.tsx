import { Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { MyCompanies } from '#web/features/title-companies/my-companies.tsx';
import { paths } from '#web/paths.ts';

export default function MyCompanyPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  // Administrators work for no company: their way in is the list of all of them.
  if (getEffectiveRole(user) === 'admin') return <Navigate to={paths.adminTitleCompanies} replace />;
  return (
    <DashboardLayout user={user} task="Company">
      <MyCompanies />
    </DashboardLayout>
  );
}
