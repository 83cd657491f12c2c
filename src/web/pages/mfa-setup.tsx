import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { backupCodesSchema, mfaConstants, mfaMessages, totpSetupStartSchema, totpSetupVerifyResponseSchema } from '#shared/mfa.ts';
import { FormAlert } from '#web/components/field.tsx';
import { BackupCodes } from '#web/features/auth/backup-codes.tsx';
import { finishSecondFactor } from '#web/features/auth/finish-sign-in.ts';
import { DigitsCodeField, RememberDeviceField } from '#web/features/auth/second-factor-fields.tsx';
import { mfaStatusQueryOptions } from '#web/features/auth/api/auth-queries.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { getPendingMfa, getStoredUser, storageKeys } from '#web/lib/browser-storage.ts';

/** What follows 'Authenticator linked!': where the person goes next, and the backup codes to keep first. */
interface Linked {
  nextPath: string;
  backupCodes: string[] | null;
  backupError: string | null;
}

const securityTabPath = '/dashboard?tab=security';

/**
 * /mfa/setup: choose an authenticator app (recommended) or email codes.
 * The code that links the app also completes a pending sign-in, so no second code is asked for;
 * new backup codes stay on screen until the person says they saved them.
 */
export default function MfaSetupPage() {
  const navigate = useNavigate();
  const [pending] = useState(getPendingMfa);
  const [user] = useState(getStoredUser);
  const hasAccess = Boolean(pending || user);
  const status = useQuery({ ...mfaStatusQueryOptions(), enabled: hasAccess, retry: false });
  const [method, setMethod] = useState<'choose' | 'authenticator'>('choose');
  const start = useMutation({ mutationFn: () => api.post('/api/auth/mfa/totp/setup/start', undefined, totpSetupStartSchema) });
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isSubmitting, setIsSubmitting] = useState(false);
  const [rememberDevice, setRememberDevice] = useState(pending?.rememberDevice ?? true);
  const [linked, setLinked] = useState<Linked | null>(null);
  const redirectTimer = useRef<number | null>(null);

  useEffect(() => {
    // A pending sign-in may not add an authenticator beside a linked factor: it verifies with it instead.
    if (status.data?.enrolled && pending && !linked) navigate('/mfa/verify', { replace: true });
  }, [status.data, pending, linked, navigate]);
  useEffect(
    () => () => {
      if (redirectTimer.current) window.clearTimeout(redirectTimer.current);
    },
    [],
  );

  if (!hasAccess) return <Navigate to="/login" replace />;

  const chooseAuthenticator = () => {
    setMethod('authenticator');
    setError(null);
    start.mutate();
  };

  const chooseEmail = () => {
    if (pending) navigate('/mfa/verify?useEmail=1');
    else navigate(securityTabPath);
  };

  /** Backup codes for an account that has none yet; a failure is said, and the person goes on by hand. */
  const createBackupCodes = async (): Promise<Pick<Linked, 'backupCodes' | 'backupError'>> => {
    if (status.data?.backupCodesRemaining !== 0) return { backupCodes: null, backupError: null };
    try {
      return { backupCodes: (await api.post('/api/auth/mfa/backup/generate', undefined, backupCodesSchema)).codes, backupError: null };
    } catch {
      return { backupCodes: null, backupError: 'Your backup codes could not be created now. Create them later on the Security tab of your dashboard.' };
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!/^\d{6}$/.test(code)) {
      setError(mfaMessages.setupCodeInvalid);
      return;
    }
    setError(null);
    setIsSubmitting(true);
    try {
      const answer = await api.post('/api/auth/mfa/totp/setup/verify', { token: code, rememberDevice }, totpSetupVerifyResponseSchema);
      // From a pending sign-in the linking code signed the person in: go where a finished sign-in goes.
      const nextPath = answer.completedSignIn ? finishSecondFactor(answer.completedSignIn, pending) : securityTabPath;
      const backup = await createBackupCodes();
      setLinked({ nextPath, ...backup });
      if (!backup.backupCodes && !backup.backupError) {
        redirectTimer.current = window.setTimeout(() => navigate(nextPath, { replace: true }), mfaConstants.setupRedirectDelayMs);
      }
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 429 ? caught.message : mfaMessages.verificationFailed);
    } finally {
      setIsSubmitting(false);
    }
  };

  return (
    <main className="centered-page">
      <section className="card narrow stack" aria-labelledby="mfa-setup-title">
        <h1 id="mfa-setup-title">Set up two-step sign-in</h1>
        {status.isError ? <FormAlert message={mfaMessages.statusLoadFailed} /> : null}
        {status.isPending ? <p role="status">Loading…</p> : null}
        {linked ? (
          <LinkedStep linked={linked} onContinue={() => navigate(linked.nextPath, { replace: true })} />
        ) : (
          <>
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
                    <DigitsCodeField label="6-digit code" name="code" value={code} onChange={setCode} />
                    {pending ? <RememberDeviceField checked={rememberDevice} onChange={setRememberDevice} /> : null}
                    <button type="submit" className="button primary block" disabled={isSubmitting}>
                      {isSubmitting ? 'Linking…' : 'Verify and link'}
                    </button>
                  </form>
                ) : null}
              </>
            ) : null}
            <Link to="/login" onClick={() => sessionStorage.removeItem(storageKeys.pendingMfa)}>
              Back to login
            </Link>
          </>
        )}
      </section>
    </main>
  );
}

/** 'Authenticator linked!', then the new backup codes until the person confirms they kept them. */
function LinkedStep({ linked, onContinue }: { linked: Linked; onContinue: () => void }) {
  const needsConfirmation = Boolean(linked.backupCodes || linked.backupError);
  return (
    <div className="stack">
      <FormAlert message={mfaMessages.authenticatorLinked} tone="success" />
      {linked.backupCodes ? <BackupCodes codes={linked.backupCodes} /> : null}
      <FormAlert message={linked.backupError} />
      {needsConfirmation ? (
        <button type="button" className="button primary block" onClick={onContinue}>
          {linked.backupCodes ? 'I have saved my backup codes' : 'Continue'}
        </button>
      ) : (
        <p className="muted">Taking you on…</p>
      )}
    </div>
  );
}
