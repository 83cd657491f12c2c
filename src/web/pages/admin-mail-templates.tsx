import { Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { MailSections } from '#web/features/mail/mail-sections.tsx';
import { TemplatePreviews } from '#web/features/mail/template-previews.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';

export default function AdminMailTemplatesPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="Mail templates">
      {getEffectiveRole(user) === 'admin' ? (
        <>
          <MailSections />
          <TemplatePreviews />
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators can preview the email templates.
        </p>
      )}
    </DashboardLayout>
  );
}
