import { Navigate, useLocation, useSearchParams } from 'react-router';
import { isSafeNextPath } from '#shared/auth-routing.ts';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { toInitials } from '#web/features/signatures/signature-adopt-form.tsx';
import { SignatureCapture } from '#web/features/signatures/signature-capture.tsx';

/** /initials: capture or replace the person's initials; `?next=` returns there after saving. */
export default function InitialsPage() {
  const user = useCurrentUser();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  const next = searchParams.get('next');
  return (
    <main className="centered-page">
      <SignatureCapture kind="initials" nextPath={isSafeNextPath(next) ? next : null} defaultText={toInitials(user.name ?? user.fullName ?? '')} />
    </main>
  );
}
