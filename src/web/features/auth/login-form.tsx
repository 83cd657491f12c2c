import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { authMessages, loginResponseSchema, type LoginResponse } from '#shared/auth.ts';
import { decidePostLogin, getSafeNextPath, type LoginQuery } from '#shared/auth-routing.ts';
import { Field, FormAlert, PasswordField } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { clearInstantNotaryJob, clearStoredUser, readInstantNotaryState, storePendingMfa, storeSignedIn } from '#web/lib/browser-storage.ts';

function buildLoginUrl(query: LoginQuery): string {
  const params = new URLSearchParams();
  if (query.jobId) params.set('jobId', query.jobId);
  if (query.signerId) params.set('signerId', query.signerId);
  const search = params.toString();
  return `/api/auth/login${search ? `?${search}` : ''}`;
}

interface LoginFormProps {
  query: LoginQuery;
  onTwoFactor: (ticket: string, email: string) => void;
}

/** Email and password sign-in on the login page: required fields, the login outcomes and their messages. */
export function LoginForm({ query, onTwoFactor }: LoginFormProps) {
  const navigate = useNavigate();
  // An invitation's sign-in link names the address it went to: typed for the person, nothing more.
  const [email, setEmail] = useState(query.email ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [isSubmitting, setIsSubmitting] = useState(false);

  const finish = (response: LoginResponse) => {
    const decision = decidePostLogin({ response, next: query.next, instantNotary: readInstantNotaryState() });
    if (decision.kind === 'mfa') {
      storePendingMfa({
        jobId: query.jobId,
        signerId: query.signerId,
        safeNext: getSafeNextPath(query.next),
        rememberDevice: true,
        email: email.trim(),
        response,
      });
      navigate(decision.path);
      return;
    }
    if (decision.kind === 'two-factor') {
      onTwoFactor(decision.ticket, email.trim());
      return;
    }
    if (response.user) storeSignedIn(response.user, response.sessionToken);
    if (decision.clearInstantNotaryJob) clearInstantNotaryJob();
    navigate(decision.path, { replace: true });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    if (!email.trim() || !password) {
      setError(authMessages.missingCredentials);
      return;
    }
    setError(null);
    setIsSubmitting(true);
    try {
      const response = await api.post(
        buildLoginUrl(query),
        { email: email.trim(), password, rememberDevice: true, jobId: query.jobId ?? undefined, signerId: query.signerId ?? undefined },
        loginResponseSchema,
      );
      finish(response);
    } catch (caught) {
      clearStoredUser();
      setError(caught instanceof ApiError ? caught.message || authMessages.loginFailed : authMessages.loginFailed);
    } finally {
      setIsSubmitting(false);
    }
  };

  const forgotPassword = async () => {
    setNotice(null);
    if (!email.trim()) {
      setError(authMessages.missingEmailForReset);
      return;
    }
    setError(null);
    try {
      await api.post('/api/auth/forgot-password', { email: email.trim() });
      setNotice('Password reset email sent! Check your inbox.');
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Reset failed');
    }
  };

  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby="login-title">
      <h1 id="login-title">Sign in</h1>
      <FormAlert message={error} />
      <FormAlert message={notice} tone="success" />
      <Field label="Email" type="email" name="email" autoComplete="username" value={email} onChange={(event) => setEmail(event.target.value)} />
      <PasswordField label="Password" name="password" autoComplete="current-password" value={password} onChange={(event) => setPassword(event.target.value)} />
      <div className="row between">
        <button type="button" className="button link" onClick={() => void forgotPassword()}>
          Forgot password?
        </button>
      </div>
      <button type="submit" className="button primary block" disabled={isSubmitting}>
        {isSubmitting ? 'Signing in…' : 'Sign in'}
      </button>
      <p className="muted center">
        New here? <Link to="/register/user">Register Here</Link>
      </p>
      <p className="muted center">
        Need a document notarized right now? <Link to="/notarize">Notarize Now</Link>
      </p>
      <p className="muted center">
        Received a notarized document? <Link to="/verify">Verify it</Link>
      </p>
    </form>
  );
}
