import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { mfaConstants, mfaMessages, mfaStatusSchema, normalizeDigitsInput, totpSetupStartSchema } from '#shared/mfa.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { getPendingMfa, getStoredUser, storageKeys } from '#web/lib/browser-storage.ts';

/** /mfa/setup: choose an authenticator app (recommended) or email codes (SPEC sections 2, 4, 5, 8). */
export default function MfaSetupPage() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const [pending] = useState(getPendingMfa);
  const [user] = useState(getStoredUser);
  const isReplacing = searchParams.get('new') === '1';
  const hasAccess = Boolean(pending || user);
  const status = useQuery({ queryKey: ['mfa-status'], queryFn: () => api.get('/api/auth/mfa/status', mfaStatusSchema), enabled: hasAccess, retry: false });
  const [method, setMethod] = useState<'choose' | 'authenticator'>('choose');
  const start = useMutation({ mutationFn: () => api.post('/api/auth/mfa/totp/setup/start', undefined, totpSetupStartSchema) });
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [linked, setLinked] = useState(false);
  const redirectTimer = useRef<number | null>(null);

  useEffect(() => {
    if (status.data?.enrolled && !isReplacing && pending) navigate('/mfa/verify', { replace: true });
  }, [status.data, isReplacing, pending, navigate]);
  useEffect(() => () => {
    if (redirectTimer.current) window.clearTimeout(redirectTimer.current);
  }, []);

  if (!hasAccess) return <Navigate to="/login" replace />;

  const chooseAuthenticator = () => {
    setMethod('authenticator');
    setError(null);
    start.mutate();
  };

  const chooseEmail = () => {
    if (pending) navigate('/mfa/verify?useEmail=1');
    else navigate('/dashboard?tab=security');
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!/^\d{6}$/.test(code)) {
      setError(mfaMessages.setupCodeInvalid);
      return;
    }
    setError(null);
    try {
      await api.post('/api/auth/mfa/totp/setup/verify', { token: code });
      setLinked(true);
      redirectTimer.current = window.setTimeout(() => {
        const stillPending = sessionStorage.getItem(storageKeys.pendingMfa) !== null;
        navigate(stillPending ? '/mfa/verify' : '/dashboard?tab=security', { replace: true });
      }, mfaConstants.setupRedirectDelayMs);
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 429 ? caught.message : mfaMessages.verificationFailed);
    }
  };

  return (
    <main className="centered-page">
      <section className="card narrow stack" aria-labelledby="mfa-setup-title">
        <h1 id="mfa-setup-title">Set up two-step sign-in</h1>
        {status.isError ? <FormAlert message={mfaMessages.statusLoadFailed} /> : null}
        {status.isPending ? <p role="status">Loading…</p> : null}
        {status.data && method === 'choose' ? (
          <>
            <p>
              {status.data.required ? 'Your role requires a second step when you sign in. ' : ''}
              Choose how you want to confirm it is you.
            </p>
            <ul className="choice-grid">
              <li>
                <button type="button" className="choice" onClick={chooseAuthenticator}>
                  <strong>Authenticator app (recommended)</strong>
                  <span>Google Authenticator, 1Password, Authy or any TOTP app: works offline.</span>
                </button>
              </li>
              <li>
                <button type="button" className="choice" onClick={chooseEmail}>
                  <strong>Email codes</strong>
                  <span>We email you a 6-digit code each time you sign in.</span>
                </button>
              </li>
            </ul>
          </>
        ) : null}
        {method === 'authenticator' ? (
          <>
            {start.isError ? (
              <FormAlert message={start.error instanceof ApiError && start.error.status === 403 ? start.error.message : mfaMessages.setupStartFailed} />
            ) : null}
            {start.isPending ? <p role="status">Creating your key…</p> : null}
            {start.data ? (
              <form className="stack" onSubmit={submit} noValidate>
                <p>Scan this QR code with your authenticator app, or type the key below into it.</p>
                <img className="qr" src={start.data.qrCodeDataUrl} alt="QR code for your authenticator app" width={220} height={220} />
                <p>
                  Key: <code data-testid="totp-secret">{start.data.secret}</code>
                </p>
                <FormAlert message={error} />
                <FormAlert message={linked ? mfaMessages.authenticatorLinked : null} tone="success" />
                <Field
                  label="6-digit code"
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={6}
                  value={code}
                  onChange={(event) => setCode(normalizeDigitsInput(event.target.value))}
                />
                <button type="submit" className="button primary block" disabled={linked}>
                  Verify and link
                </button>
              </form>
            ) : null}
          </>
        ) : null}
        <Link to="/login" onClick={() => sessionStorage.removeItem(storageKeys.pendingMfa)}>
          Back to login
        </Link>
      </section>
    </main>
  );
}
