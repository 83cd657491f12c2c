import { Link, Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { NewTitleCompanyForm } from '#web/features/title-companies/new-title-company-form.tsx';
import { paths } from '#web/paths.ts';

export default function AdminNewTitleCompanyPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="New title company">
      {getEffectiveRole(user) === 'admin' ? (
        <>
          <p>
            <Link to={paths.adminTitleCompanies}>All title companies</Link>
          </p>
          <NewTitleCompanyForm />
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators can create title companies.
        </p>
      )}
    </DashboardLayout>
  );
}
