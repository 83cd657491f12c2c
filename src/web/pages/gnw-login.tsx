import '#web/features/gnw/gnw-entry.css';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import type { LoginResponse } from '#shared/auth.ts';
import { decideAuthenticatedPath, decidePostLogin } from '#shared/auth-routing.ts';
import { emailCodeStartInputSchema, emailCodeVerifyInputSchema, emailSignInConstants } from '#shared/gnw.ts';
import { gnwApi } from '#web/api/gnw.ts';
import { PageChatOpener } from '#web/components/chat-opener.tsx';
import { Field, FormAlert } from '#web/components/field.tsx';
import { getResendWait, gnwStartPath, normalizeCodeInput, passwordSignInPath, readEntryRefusal } from '#web/features/gnw/entry.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { clearInstantNotaryJob, getStoredUser, readInstantNotaryState, storePendingMfa, storeSignedIn } from '#web/lib/browser-storage.ts';

const sendFailed = 'We could not send the code. Please try again.';
const verifyFailed = 'We could not check the code. Please try again.';

type Step = 'email' | 'code';

/**
 * Notarize Now's pre-login (SPEC: guest pre-login): an email, a name when the address is new, a
 * mailed 6-digit code, then /gnw/start signed in as the login page signs in. An account that needs
 * its password is sent to the login page, coming back to the wizard.
 */
export default function GnwLoginPage() {
  const user = getStoredUser();
  if (user) {
    const decision = decideAuthenticatedPath(user, gnwStartPath, null, readInstantNotaryState());
    return <Navigate to={decision.path} replace />;
  }
  return <GnwLoginForm />;
}

function GnwLoginForm() {
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const [step, setStep] = useState<Step>('email');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [isNameAsked, setIsNameAsked] = useState(false);
  const [code, setCode] = useState('');
  const [fieldErrors, setFieldErrors] = useState<{ email?: string; name?: string; code?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const [needsPassword, setNeedsPassword] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [sentAt, setSentAt] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [isBusy, setIsBusy] = useState(false);
  const resendWait = getResendWait(sentAt, now);

  // The countdown to "Send a new code", once a second while it runs.
  useEffect(() => {
    if (resendWait <= 0) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [resendWait]);

  // The field the person needs next gets the focus: the name when asked for, the code once sent.
  useEffect(() => {
    const field = step === 'code' ? 'code' : isNameAsked ? 'name' : null;
    if (field) formRef.current?.querySelector<HTMLInputElement>(`input[name="${field}"]`)?.focus();
  }, [step, isNameAsked]);

  const showRefusal = (caught: unknown, fallback: string) => {
    if (!(caught instanceof ApiError)) {
      setError(fallback);
      return;
    }
    const refusal = readEntryRefusal(caught, fallback);
    if (refusal.kind === 'password') setNeedsPassword(true);
    if (refusal.kind === 'wait') {
      // A code went to this address moments ago and still works: take it, and count down to the next.
      setSentAt(Date.now() - (emailSignInConstants.resendCooldownSeconds - refusal.seconds) * 1000);
      setNow(Date.now());
      setStep('code');
    }
    setError(refusal.message);
  };

  const sendCode = async () => {
    setError(null);
    setNotice(null);
    setNeedsPassword(false);
    const parsed = emailCodeStartInputSchema.safeParse({ email, ...(isNameAsked ? { name } : {}) });
    if (!parsed.success) {
      const errors: { email?: string; name?: string } = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] === 'name' ? 'name' : 'email';
        errors[key] ??= issue.message;
      }
      setFieldErrors(errors);
      return;
    }
    setFieldErrors({});
    setIsBusy(true);
    try {
      const answer = await gnwApi.startEmailCode(parsed.data);
      setNotice(answer.message);
      if (!answer.isCodeSent) {
        setIsNameAsked(true);
        return;
      }
      setSentAt(Date.now());
      setNow(Date.now());
      setCode('');
      setStep('code');
    } catch (caught) {
      showRefusal(caught, sendFailed);
    } finally {
      setIsBusy(false);
    }
  };

  const finish = (response: LoginResponse) => {
    const decision = decidePostLogin({ response, next: gnwStartPath, instantNotary: readInstantNotaryState() });
    if (decision.kind === 'mfa') {
      storePendingMfa({ jobId: null, signerId: null, safeNext: gnwStartPath, rememberDevice: true, email: email.trim(), response });
      navigate(decision.path);
      return;
    }
    if (decision.kind === 'two-factor') {
      // The code sign-in never answers with the login page's inline step; the login page has it.
      navigate(passwordSignInPath);
      return;
    }
    if (response.user) storeSignedIn(response.user, response.sessionToken);
    if (decision.clearInstantNotaryJob) clearInstantNotaryJob();
    navigate(decision.path, { replace: true });
  };

  const checkCode = async () => {
    setError(null);
    setNotice(null);
    setNeedsPassword(false);
    const parsed = emailCodeVerifyInputSchema.safeParse({ email, code });
    if (!parsed.success) {
      setFieldErrors({ code: parsed.error.issues.find((issue) => issue.path[0] === 'code')?.message ?? 'Please enter a valid 6-digit code.' });
      return;
    }
    setFieldErrors({});
    setIsBusy(true);
    try {
      finish(await gnwApi.verifyEmailCode(parsed.data));
    } catch (caught) {
      showRefusal(caught, verifyFailed);
      setIsBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void (step === 'email' ? sendCode() : checkCode());
  };

  const changeEmail = () => {
    setStep('email');
    setCode('');
    setError(null);
    setNotice(null);
    setNeedsPassword(false);
    setFieldErrors({});
  };

  return (
    <div className="auth-page">
      <div className="auth-side">
        <main className="auth-panel">
          <form ref={formRef} className="stack" onSubmit={submit} noValidate aria-labelledby="gnw-login-title">
            <h1 id="gnw-login-title">Continue to Notarize Now</h1>
            <p className="muted">
              {step === 'email'
                ? 'Enter your email address and we will email you a 6-digit code: no password needed. New here? We create your account on the way.'
                : `Enter the 6-digit code we emailed to ${email.trim().toLowerCase()}.`}
            </p>
            <FormAlert message={error} />
            {needsPassword ? (
              <p>
                <Link className="button primary block" to={passwordSignInPath}>
                  Sign in with your password
                </Link>
              </p>
            ) : null}
            <FormAlert message={notice} tone="info" />
            {step === 'email' ? (
              <>
                <Field
                  label="Email"
                  type="email"
                  name="email"
                  autoComplete="email"
                  value={email}
                  error={fieldErrors.email}
                  onChange={(event) => {
                    setEmail(event.target.value);
                    setIsNameAsked(false);
                  }}
                />
                {isNameAsked ? (
                  <Field
                    label="Full name"
                    name="name"
                    autoComplete="name"
                    value={name}
                    error={fieldErrors.name}
                    hint="As it appears on your photo ID."
                    onChange={(event) => setName(event.target.value)}
                  />
                ) : null}
                <button type="submit" className="button primary block" disabled={isBusy}>
                  {isBusy ? 'Sending…' : 'Email me a code'}
                </button>
              </>
            ) : (
              <>
                <Field
                  label="6-digit code"
                  name="code"
                  className="gnw-code-input"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={6}
                  value={code}
                  error={fieldErrors.code}
                  hint="It works for 10 minutes. Check your spam folder if it has not arrived."
                  onChange={(event) => setCode(normalizeCodeInput(event.target.value))}
                />
                <button type="submit" className="button primary block" disabled={isBusy}>
                  {isBusy ? 'Checking…' : 'Continue'}
                </button>
                <div className="row between wrap">
                  <button type="button" className="button link" disabled={isBusy || resendWait > 0} onClick={() => void sendCode()}>
                    {resendWait > 0 ? `Send a new code in ${resendWait} s` : 'Send a new code'}
                  </button>
                  <button type="button" className="button link" onClick={changeEmail}>
                    Use a different email
                  </button>
                </div>
              </>
            )}
            <p className="muted center">
              Have a password? <Link to={passwordSignInPath}>Sign in with your password</Link>
            </p>
            <p className="muted center">
              <Link to="/notarize-now">What is Notarize Now?</Link>
            </p>
          </form>
        </main>
        <footer className="page-footer">
          <PageChatOpener />
        </footer>
      </div>
      <section className="auth-hero" aria-label="About Notarize Now">
        <p className="brand">Open RON</p>
        <h2>A notary on video in minutes</h2>
        <ul>
          <li>
            <strong>Your document as a PDF.</strong> Keep it unsigned: you sign with the notary watching.
          </li>
          <li>
            <strong>A government photo ID.</strong> The notary checks who you are.
          </li>
          <li>
            <strong>A camera and microphone.</strong> On your computer or phone.
          </li>
        </ul>
      </section>
    </div>
  );
}
