import { lazy, Suspense, useState } from 'react';
import { useSearchParams } from 'react-router';
import { readLoginQuery } from '#shared/auth-routing.ts';
import { PageChatOpener } from '#web/components/chat-opener.tsx';
import { LoginForm } from '#web/features/auth/login-form.tsx';

// The second step and the password reset load when they are needed: most first visits need
// neither, and the login page's first load has a budget (150 KB of gzipped JavaScript).
const ResetPasswordForm = lazy(() => import('#web/features/auth/reset-password-form.tsx').then((module) => ({ default: module.ResetPasswordForm })));
const TwoFactorForm = lazy(() => import('#web/features/auth/two-factor-form.tsx').then((module) => ({ default: module.TwoFactorForm })));

export default function LoginPage() {
  const [searchParams] = useSearchParams();
  const query = readLoginQuery(searchParams);
  const [ticket, setTicket] = useState<string | null>(null);
  let panel;
  if (query.resetToken) panel = <ResetPasswordForm token={query.resetToken} />;
  else if (ticket) panel = <TwoFactorForm ticket={ticket} query={query} onBack={() => setTicket(null)} />;
  else panel = <LoginForm query={query} onTwoFactor={(nextTicket) => setTicket(nextTicket)} />;
  // The form comes first: on a phone it is what the person came for, and the hero follows it
  // (on a wide screen the hero is placed in the left column).
  return (
    <div className="auth-page">
      <div className="auth-side">
        <main className="auth-panel">
          <Suspense fallback={<p role="status">Loading…</p>}>{panel}</Suspense>
        </main>
        <footer className="page-footer">
          <PageChatOpener />
        </footer>
      </div>
      <section className="auth-hero" aria-label="About Open RON">
        <p className="brand">Open RON</p>
        <h2>Professional digital notary services</h2>
        <ul>
          <li>
            <strong>Secure and compliant.</strong> Identity proofing, recorded sessions and tamper-evident documents.
          </li>
          <li>
            <strong>Remote notarization from anywhere.</strong> Meet your notary on live video from any device.
          </li>
          <li>
            <strong>Digital workflow.</strong> Upload, sign, notarize and download without paper.
          </li>
        </ul>
      </section>
    </div>
  );
}
