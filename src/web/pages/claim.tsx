import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { authMessages, registerResponseSchema } from '#shared/auth.ts';
import { acceptInviteResponseSchema, claimInviteInputSchema, inviteMessages, inviteSummarySchema } from '#shared/invites.ts';
import { roleLabels } from '#shared/roles.ts';
import { Field, FormAlert, PasswordField } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { startNewAccountSession } from '#web/features/auth/finish-sign-in.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';

/** Claim an invitation: the first administrator's one-time link lands here. */
export default function ClaimPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const invite = useQuery({ queryKey: ['invite', token], queryFn: () => api.get(`/api/invites/${encodeURIComponent(token)}`, inviteSummarySchema), retry: false });
  const [values, setValues] = useState({ name: '', email: '', password: '', confirmPassword: '' });
  const [error, setError] = useState<string | null>(null);
  const [isSubmitting, setIsSubmitting] = useState(false);
  const set = (key: keyof typeof values) => (event: { target: { value: string } }) => setValues((current) => ({ ...current, [key]: event.target.value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = claimInviteInputSchema.safeParse({ name: values.name, email: invite.data?.email ?? values.email, password: values.password });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Please check the form.');
      return;
    }
    if (values.password !== values.confirmPassword) {
      setError(authMessages.passwordsDoNotMatch);
      return;
    }
    setError(null);
    setIsSubmitting(true);
    try {
      const response = await api.post(`/api/invites/${encodeURIComponent(token)}/claim`, parsed.data, registerResponseSchema);
      const jobId = invite.data?.jobId ?? null;
      const destination = jobId ? `/jobs/detail?jobId=${encodeURIComponent(jobId)}` : '/dashboard?tab=jobs';
      // An administrator (a role that must use a second factor) sets one up before anything else.
      const secondFactorPath = startNewAccountSession(response, { email: parsed.data.email, safeNext: jobId ? destination : null, jobId });
      navigate(secondFactorPath ?? destination, { replace: true, state: { notice: response.message } });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Could not claim the invitation. Please try again.');
    } finally {
      setIsSubmitting(false);
    }
  };

  return (
    <main className="centered-page">
      <section className="card narrow" aria-labelledby="claim-title">
        <h1 id="claim-title">Accept your invitation</h1>
        {invite.isPending ? <p role="status">Checking your link…</p> : null}
        {invite.isError ? (
          <>
            <FormAlert message={invite.error instanceof ApiError && invite.error.status === 404 ? inviteMessages.invalid : invite.error.message} />
            <Link to="/request-access">Request a new invitation link</Link>
            <Link to="/login">Go to sign in</Link>
          </>
        ) : null}
        {invite.data && invite.data.purpose === 'job_participant' && invite.data.hasAccount ? (
          <AcceptWithAccount token={token} jobTitle={invite.data.jobTitle} jobId={invite.data.jobId} />
        ) : null}
        {invite.data && !(invite.data.purpose === 'job_participant' && invite.data.hasAccount) ? (
          <form className="stack" onSubmit={submit} noValidate>
            <p>
              {invite.data.purpose === 'bootstrap_admin'
                ? 'Create the first administrator account of this Open RON installation.'
                : `You are invited to "${invite.data.jobTitle ?? 'a signing job'}". Create your account to see it.`}{' '}
              Role: {invite.data.roles.map((role) => roleLabels[role]).join(', ')}.
            </p>
            <FormAlert message={error} />
            <Field label="Full name" autoComplete="name" value={values.name} onChange={set('name')} />
            {invite.data.email ? (
              <Field label="Email" type="email" value={invite.data.email} readOnly />
            ) : (
              <Field label="Email" type="email" autoComplete="email" value={values.email} onChange={set('email')} />
            )}
            <PasswordField label="Password" autoComplete="new-password" hint="At least 8 characters." value={values.password} onChange={set('password')} />
            <PasswordField label="Confirm password" autoComplete="new-password" value={values.confirmPassword} onChange={set('confirmPassword')} />
            <button type="submit" className="button primary block" disabled={isSubmitting}>
              {isSubmitting ? 'Creating account…' : 'Create account'}
            </button>
          </form>
        ) : null}
      </section>
    </main>
  );
}

/** An invited person who already has an account accepts while signed in as that account. */
function AcceptWithAccount({ token, jobTitle, jobId }: { token: string; jobTitle: string | null; jobId: string | null }) {
  const navigate = useNavigate();
  const user = getStoredUser();
  const [error, setError] = useState<string | null>(null);
  const accept = async () => {
    setError(null);
    try {
      const answer = await api.post(`/api/invites/${encodeURIComponent(token)}/accept`, undefined, acceptInviteResponseSchema);
      navigate(answer.jobId ? `/jobs/detail?jobId=${encodeURIComponent(answer.jobId)}` : '/dashboard?tab=jobs', { replace: true });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Could not accept the invitation. Please try again.');
    }
  };
  return (
    <div className="stack">
      <p>You are invited to "{jobTitle ?? 'a signing job'}". You already have an account with this email address.</p>
      <FormAlert message={error} />
      {user ? (
        <button type="button" className="button primary block" onClick={() => void accept()}>
          Accept as {user.email}
        </button>
      ) : (
        <Link className="button primary block" to={`/login?next=${encodeURIComponent(`/claim/${token}`)}${jobId ? `&jobId=${encodeURIComponent(jobId)}` : ''}`}>
          Sign in to accept
        </Link>
      )}
    </div>
  );
}
