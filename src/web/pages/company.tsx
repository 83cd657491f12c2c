import { Link, Navigate, useLocation, useParams } from 'react-router';
import { getEffectiveRole, hasAnyRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { CompanyView } from '#web/features/title-companies/company-view.tsx';
import { WebhooksPanel } from '#web/features/integrations/WebhooksPanel.tsx';
import { ApiKeysPanel } from '#web/features/integrations/ApiKeysPanel.tsx';
import { paths } from '#web/paths.ts';

export default function CompanyPage() {
  const user = useCurrentUser();
  const location = useLocation();
  const { companyId = '' } = useParams();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  const isAdmin = getEffectiveRole(user) === 'admin';
  const notice = (location.state as { notice?: string } | null)?.notice ?? null;
  return (
    <DashboardLayout user={user} task="Title company">
      {isAdmin ? (
        <p>
          <Link to={paths.adminTitleCompanies}>All title companies</Link>
        </p>
      ) : null}
      <CompanyView key={companyId} companyId={companyId} isAdmin={isAdmin} notice={notice} />
      {/* The company's title staff manage its webhooks; the panel shows nothing to anyone else (decision 055). */}
      {hasAnyRole(user, ['title']) ? <WebhooksPanel key={`webhooks-${companyId}`} companyId={companyId} /> : null}
      <ApiKeysPanel key={`api-keys-${companyId}`} companyId={companyId} />
    </DashboardLayout>
  );
}
