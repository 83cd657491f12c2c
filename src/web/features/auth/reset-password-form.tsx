import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { passwordConfirmationSchema } from '#shared/auth.ts';
import { FormAlert, PasswordField } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

export const invalidResetLinkMessage = 'This reset link is invalid or expired.';

/** Password-reset mode of the login page, opened by ?resetToken=. */
export function ResetPasswordForm({ token }: { token: string }) {
  const [newPassword, setNewPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [linkState, setLinkState] = useState<'checking' | 'valid' | 'invalid'>('checking');

  useEffect(() => {
    let isCurrent = true;
    api
      .get(`/api/auth/reset-password/validate?token=${encodeURIComponent(token)}`)
      .then(() => isCurrent && setLinkState('valid'))
      .catch(() => isCurrent && setLinkState('invalid'));
    return () => {
      isCurrent = false;
    };
  }, [token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = passwordConfirmationSchema.safeParse({ password: newPassword, confirmPassword });
    if (!checked.success) {
      setError(checked.error.issues[0]?.message ?? 'Reset failed');
      return;
    }
    if (linkState === 'invalid') {
      setError(invalidResetLinkMessage);
      return;
    }
    setError(null);
    try {
      await api.post('/api/auth/reset-password', { token, newPassword });
      setSuccess('Password updated! You can now log in.');
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Reset failed');
    }
  };

  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      <FormAlert message={error ?? (linkState === 'invalid' ? invalidResetLinkMessage : null)} />
      <FormAlert message={success} tone="success" />
      <PasswordField
        label="New Password"
        name="newPassword"
        autoComplete="new-password"
        value={newPassword}
        onChange={(event) => setNewPassword(event.target.value)}
      />
      <PasswordField
        label="Confirm New Password"
        name="confirmPassword"
        autoComplete="new-password"
        value={confirmPassword}
        onChange={(event) => setConfirmPassword(event.target.value)}
      />
      <button type="submit" className="button primary block" disabled={linkState === 'checking' || Boolean(success)}>
        Update password
      </button>
      <Link to="/login">Back to login</Link>
    </form>
  );
}
