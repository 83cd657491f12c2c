import { useMutation } from '@tanstack/react-query';
import { okMessageSchema } from '#shared/auth.ts';
import { api } from '#web/lib/api.ts';
import type { StoredUser } from '#web/lib/browser-storage.ts';

/**
 * Shown on the dashboard until the account confirms its email address. Jobs that invite the address
 * appear only once it is confirmed, so the banner says so and offers a fresh link.
 */
export function EmailVerificationBanner({ user }: { user: StoredUser }) {
  const resend = useMutation({ mutationFn: () => api.post('/api/auth/verify-email/resend', undefined, okMessageSchema) });
  if (user.emailVerified !== false) return null;
  return (
    <div className="alert info stack verify-banner" role="region" aria-label="Confirm your email address">
      <p>
        Confirm your email address: open the link we sent to <strong>{user.email}</strong>. Signing jobs you are invited to at this address appear here once it
        is confirmed.
      </p>
      <div className="row wrap">
        <button type="button" className="button" disabled={resend.isPending} onClick={() => resend.mutate()}>
          {resend.isPending ? 'Sending…' : 'Send the link again'}
        </button>
        <p role="status" className="grow">
          {resend.data?.message ?? ''}
        </p>
      </div>
      {resend.error ? (
        <p role="alert" className="field-error">
          {resend.error.message}
        </p>
      ) : null}
    </div>
  );
}
