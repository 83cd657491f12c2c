import { Link, Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { TitleCompanyList } from '#web/features/title-companies/title-company-list.tsx';
import { paths } from '#web/paths.ts';

export default function AdminTitleCompaniesPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="Title companies">
      {getEffectiveRole(user) === 'admin' ? (
        <>
          <div className="row wrap between">
            <h1>Title companies</h1>
            <Link className="button primary" to={paths.newTitleCompany}>
              New title company
            </Link>
          </div>
          <p className="muted">
            Companies that registered themselves wait for approval under <Link to={paths.dashboardTab('approvals')}>Approvals</Link>.
          </p>
          <TitleCompanyList />
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators can see every title company.
        </p>
      )}
    </DashboardLayout>
  );
}
