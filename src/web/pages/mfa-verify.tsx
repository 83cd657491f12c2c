import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { loginResponseSchema } from '#shared/auth.ts';
import { emailCodeRequestSchema, mfaConstants, mfaMessages, normalizeBackupCodeInput, readEmailCooldownSeconds } from '#shared/mfa.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { finishSecondFactor } from '#web/features/auth/finish-sign-in.ts';
import { DigitsCodeField, RememberDeviceField } from '#web/features/auth/second-factor-fields.tsx';
import { mfaStatusQueryOptions } from '#web/features/auth/api/auth-queries.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { getPendingMfa, storageKeys } from '#web/lib/browser-storage.ts';

/** /mfa/verify: authenticator or backup code, or ?useEmail=1 for an emailed code. */
export default function MfaVerifyPage() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const [pending] = useState(getPendingMfa);
  const status = useQuery({ ...mfaStatusQueryOptions(), enabled: Boolean(pending), retry: false });
  const useEmail = searchParams.get('useEmail') === '1' || (status.data !== undefined && !status.data.totpEnabled);
  const [token, setToken] = useState('');
  const [backupCode, setBackupCode] = useState('');
  const [emailCode, setEmailCode] = useState('');
  const [rememberDevice, setRememberDevice] = useState(pending?.rememberDevice ?? true);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [cooldownUntil, setCooldownUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [isBusy, setIsBusy] = useState(false);

  useEffect(() => {
    if (!notice) return;
    const timer = window.setTimeout(() => setNotice(null), mfaConstants.codeSentNoticeMs);
    return () => window.clearTimeout(timer);
  }, [notice]);
  useEffect(() => {
    if (!cooldownUntil) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [cooldownUntil]);

  if (!pending) return <Navigate to="/login" replace />;
  const secondsLeft = cooldownUntil ? Math.max(0, Math.ceil((cooldownUntil - now) / 1000)) : 0;

  const complete = async (path: string, body: Record<string, unknown>, failure: string) => {
    setIsBusy(true);
    try {
      const response = await api.post(path, { ...body, rememberDevice }, loginResponseSchema);
      navigate(finishSecondFactor(response, pending), { replace: true });
    } catch (caught) {
      const code = caught instanceof ApiError ? caught.code : null;
      setError(code === 'mfa_locked' || code === 'code_locked' ? (caught as ApiError).message : failure);
    } finally {
      setIsBusy(false);
    }
  };

  const submitAuthenticator = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    if (token.length === 6)
      return void complete('/api/auth/mfa/verify', { token, jobId: pending.jobId, signerId: pending.signerId }, mfaMessages.verificationFailed);
    if (backupCode)
      return void complete('/api/auth/mfa/verify', { backupCode, jobId: pending.jobId, signerId: pending.signerId }, mfaMessages.verificationFailed);
    setError(mfaMessages.verifyCodeMissing);
  };

  const sendCode = async () => {
    setError(null);
    try {
      const answer = await api.post('/api/auth/mfa/email/request', undefined, emailCodeRequestSchema);
      setNotice(mfaMessages.codeSent(answer.maskedEmail));
      setCooldownUntil(Date.now() + answer.cooldownSeconds * 1000);
    } catch (caught) {
      const seconds = caught instanceof ApiError ? readEmailCooldownSeconds(caught.status, caught.data, caught.message) : null;
      if (seconds !== null) {
        setCooldownUntil(Date.now() + seconds * 1000);
        setNow(Date.now());
        setError(mfaMessages.codeAlreadySent(seconds));
      } else {
        setError(mfaMessages.emailSendFailed);
      }
    }
  };

  const submitEmail = (event: FormEvent) => {
    event.preventDefault();
    if (!/^\d{6}$/.test(emailCode)) {
      setError(mfaMessages.emailCodeInvalid);
      return;
    }
    void complete('/api/auth/mfa/email/verify', { code: emailCode }, mfaMessages.emailVerifyFailed);
  };

  const backToLogin = () => sessionStorage.removeItem(storageKeys.pendingMfa);
  const remember = <RememberDeviceField checked={rememberDevice} onChange={setRememberDevice} />;

  return (
    <main className="centered-page">
      <section className="card narrow stack" aria-labelledby="mfa-verify-title">
        <h1 id="mfa-verify-title">Confirm it is you</h1>
        {status.isError ? <FormAlert message={mfaMessages.statusLoadFailed} /> : null}
        <FormAlert message={error} />
        <FormAlert message={notice} tone="success" />
        {useEmail ? (
          <form className="stack" onSubmit={submitEmail} noValidate>
            <p>We will email a 6-digit code to {status.data?.maskedEmail ?? 'your address'}. It expires in 10 minutes.</p>
            <button type="button" className="button" onClick={() => void sendCode()} disabled={secondsLeft > 0}>
              {secondsLeft > 0 ? `Send another code in ${secondsLeft} s` : 'Send code'}
            </button>
            <DigitsCodeField label="Email code" name="emailCode" value={emailCode} onChange={setEmailCode} />
            {remember}
            <button type="submit" className="button primary block" disabled={isBusy}>
              Verify
            </button>
            {status.data?.totpEnabled ? <Link to="/mfa/verify">Use authenticator instead</Link> : null}
          </form>
        ) : (
          <form className="stack" onSubmit={submitAuthenticator} noValidate>
            <DigitsCodeField label="Authenticator code" name="token" value={token} onChange={setToken} />
            <Field
              label="Or a backup code"
              name="backupCode"
              autoComplete="off"
              maxLength={12}
              value={backupCode}
              onChange={(event) => setBackupCode(normalizeBackupCodeInput(event.target.value))}
            />
            {remember}
            <button type="submit" className="button primary block" disabled={isBusy}>
              Verify
            </button>
            <Link to="/mfa/verify?useEmail=1">Use email code instead</Link>
          </form>
        )}
        {/* Only while no second factor is linked: a half-signed-in session may not add one beside another. */}
        {status.data && !status.data.enrolled ? <Link to="/mfa/setup">Set up a new authenticator</Link> : null}
        <Link to="/login" onClick={backToLogin}>
          Back to login
        </Link>
      </section>
    </main>
  );
}
