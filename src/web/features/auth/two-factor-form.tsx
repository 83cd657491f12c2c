import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { authMessages, loginResponseSchema } from '#shared/auth.ts';
import { decideAuthenticatedPath, type LoginQuery } from '#shared/auth-routing.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { clearInstantNotaryJob, readInstantNotaryState, storeSignedIn } from '#web/lib/browser-storage.ts';
import { RememberDeviceField } from './second-factor-fields.tsx';

/** The 2FA ticket step inside the login page: code, Remember this device, Back to login. */
export function TwoFactorForm({ ticket, query, onBack }: { ticket: string; query: LoginQuery; onBack: () => void }) {
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [rememberDevice, setRememberDevice] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [isSubmitting, setIsSubmitting] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) {
      setError(authMessages.missingTwoFactorCode);
      return;
    }
    setError(null);
    setIsSubmitting(true);
    try {
      const response = await api.post(
        '/api/auth/2fa/verify',
        { ticket, code: code.trim(), rememberDevice, jobId: query.jobId, signerId: query.signerId },
        loginResponseSchema,
      );
      if (!response.user) throw new ApiError(200, response, 'Invalid 2FA code');
      storeSignedIn(response.user, response.sessionToken);
      const decision = decideAuthenticatedPath(response.user, query.next, response.nextAction, readInstantNotaryState());
      if (decision.clearInstantNotaryJob) clearInstantNotaryJob();
      navigate(decision.path, { replace: true });
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 401 ? 'Invalid 2FA code' : '2FA verification failed');
    } finally {
      setIsSubmitting(false);
    }
  };

  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby="two-factor-title">
      <h1 id="two-factor-title">Two-factor verification</h1>
      <p className="muted">Enter the code from your authenticator app or email.</p>
      <FormAlert message={error} />
      <Field label="2FA code" name="code" inputMode="numeric" autoComplete="one-time-code" value={code} onChange={(event) => setCode(event.target.value)} />
      <RememberDeviceField checked={rememberDevice} onChange={setRememberDevice} />
      <button type="submit" className="button primary block" disabled={isSubmitting}>
        {isSubmitting ? 'Verifying…' : 'Verify'}
      </button>
      <button type="button" className="button link" onClick={onBack}>
        Back to login
      </button>
    </form>
  );
}
