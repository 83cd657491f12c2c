import { Navigate, useLocation } from 'react-router';
import { getEffectiveRole } from '#shared/roles.ts';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { MailSections } from '#web/features/mail/mail-sections.tsx';
import { Mailbox } from '#web/features/mail/mailbox.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';

export default function AdminMailPage() {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <DashboardLayout user={user} task="Mail">
      {getEffectiveRole(user) === 'admin' ? (
        <>
          <MailSections />
          <Mailbox />
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators can read the local mailbox.
        </p>
      )}
    </DashboardLayout>
  );
}
