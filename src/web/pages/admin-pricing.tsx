import { Navigate, useLocation } from 'react-router';
import { hasAnyRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { CompanyPrices } from '#web/features/pricing/company-prices.tsx';
import { DefaultPrices } from '#web/features/pricing/default-prices.tsx';
import { FeeCapsTable } from '#web/features/pricing/fee-caps-table.tsx';

export default function AdminPricingPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  const canRead = hasAnyRole(user, ['admin', 'billing', 'finance']);
  const canChange = hasAnyRole(user, ['admin', 'finance']);
  return (
    <DashboardLayout user={user} task="Prices">
      <h1>Prices</h1>
      {canRead ? (
        <>
          {canChange ? null : <p className="muted">You can read the prices; administrators and finance staff change them.</p>}
          <DefaultPrices canChange={canChange} />
          <CompanyPrices canChange={canChange} />
          <FeeCapsTable />
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators, billing and finance staff can see the prices.
        </p>
      )}
    </DashboardLayout>
  );
}
