import { Navigate, useLocation, useSearchParams } from 'react-router';
import { isSafeNextPath } from '#shared/auth-routing.ts';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { SignatureCapture } from '#web/features/signatures/signature-capture.tsx';

/** "Riley Q. Signer" -> "RQS" (at most three letters). */
function toInitials(name: string): string {
  return name
    .split(/\s+/)
    .map((word) => word.replace(/[^\p{L}]/gu, '').charAt(0).toUpperCase())
    .join('')
    .slice(0, 3);
}

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
