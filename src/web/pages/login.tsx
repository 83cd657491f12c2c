import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { readLoginQuery } from '#shared/auth-routing.ts';
import { PageChatOpener } from '#web/components/chat-opener.tsx';
import { LoginForm } from '#web/features/auth/login-form.tsx';
import { ResetPasswordForm } from '#web/features/auth/reset-password-form.tsx';
import { TwoFactorForm } from '#web/features/auth/two-factor-form.tsx';

export default function LoginPage() {
  const [searchParams] = useSearchParams();
  const query = readLoginQuery(searchParams);
  const [ticket, setTicket] = useState<string | null>(null);
  let panel;
  if (query.resetToken) panel = <ResetPasswordForm token={query.resetToken} />;
  else if (ticket) panel = <TwoFactorForm ticket={ticket} query={query} onBack={() => setTicket(null)} />;
  else panel = <LoginForm query={query} onTwoFactor={(nextTicket) => setTicket(nextTicket)} />;
  return (
    <div className="auth-page">
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
      <div className="auth-side">
        <main className="auth-panel">{panel}</main>
        <footer className="page-footer">
          <PageChatOpener />
        </footer>
      </div>
    </div>
  );
}
