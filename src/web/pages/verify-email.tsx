import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { okMessageSchema } from '#shared/auth.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';
import { paths } from '#web/paths.ts';

/** The link from the confirmation email: confirms the address at once, signed in or not. */
export default function VerifyEmailPage() {
  const { token = '' } = useParams();
  const queryClient = useQueryClient();
  const isSignedIn = getStoredUser() !== null;
  const confirm = useMutation({
    mutationFn: () => api.post('/api/auth/verify-email', { token }, okMessageSchema),
    // The dashboard's banner and jobs list read the account afresh.
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const hasStarted = useRef(false);
  useEffect(() => {
    if (hasStarted.current) return;
    hasStarted.current = true;
    confirm.mutate();
  }, [confirm]);
  return (
    <main className="centered-page">
      <section className="card narrow stack" aria-labelledby="verify-email-title">
        <h1 id="verify-email-title">Confirm your email address</h1>
        {confirm.isPending || confirm.isIdle ? <p role="status">Confirming your email address…</p> : null}
        <FormAlert message={confirm.data?.message ?? null} tone="success" />
        <FormAlert message={confirm.error?.message ?? null} />
        {confirm.isSuccess ? <p>Signing jobs you are invited to at this address now appear on your dashboard.</p> : null}
        {confirm.isError && isSignedIn ? <p>You can send yourself a new link from your dashboard.</p> : null}
        {!confirm.isPending ? (
          <Link className="button primary block" to={isSignedIn ? paths.dashboardTab('jobs') : paths.login}>
            {isSignedIn ? 'Go to your dashboard' : 'Sign in'}
          </Link>
        ) : null}
      </section>
    </main>
  );
}
