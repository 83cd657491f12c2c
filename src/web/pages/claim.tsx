import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { authMessages, registerResponseSchema } from '#shared/auth.ts';
import { acceptInviteResponseSchema, claimInviteInputSchema, inviteMessages, type InviteSummary } from '#shared/invites.ts';
import { getSignInToAcceptPath } from '#shared/auth-routing.ts';
import { roleLabels } from '#shared/roles.ts';
import { Field, FormAlert, PasswordField } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { startNewAccountSession } from '#web/features/auth/finish-sign-in.ts';
import { inviteQueryOptions } from '#web/features/invites/api/invite-queries.ts';
import { getStoredUser } from '#web/lib/browser-storage.ts';
import { paths } from '#web/paths.ts';

/** What the invitation asks of its reader, in one sentence. */
function describeInvitation(invite: InviteSummary): string {
  if (invite.purpose === 'bootstrap_admin') return 'Create the first administrator account of this Open RON installation.';
  if (invite.purpose === 'company_member') {
    const role = invite.roles.includes('title') ? 'a member of its title staff' : 'an agent';
    return `You are invited to join ${invite.companyName ?? 'a title company'} as ${role}.`;
  }
  return `You are invited to "${invite.jobTitle ?? 'a signing job'}".`;
}

/** Where an accepted invitation leads: the job it was about, else the dashboard (a company's jobs are listed there). */
function getAcceptedPath(jobId: string | null): string {
  return jobId ? paths.jobDetail(jobId) : paths.dashboardTab('jobs');
}

/** Claim an invitation: the first administrator's one-time link, a job's or a company's invitation lands here. */
export default function ClaimPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const invite = useQuery(inviteQueryOptions(token));
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
      const destination = getAcceptedPath(jobId);
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
        {invite.data && invite.data.purpose !== 'bootstrap_admin' && invite.data.hasAccount ? <AcceptWithAccount token={token} invite={invite.data} /> : null}
        {invite.data && !(invite.data.purpose !== 'bootstrap_admin' && invite.data.hasAccount) ? (
          <form className="stack" onSubmit={submit} noValidate>
            <p>
              {describeInvitation(invite.data)}
              {invite.data.purpose === 'bootstrap_admin' ? null : ' Create your account to accept.'} Role:{' '}
              {invite.data.roles.map((role) => roleLabels[role]).join(', ')}.
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
function AcceptWithAccount({ token, invite }: { token: string; invite: InviteSummary }) {
  const { jobId, email } = invite;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const user = getStoredUser();
  const [error, setError] = useState<string | null>(null);
  const accept = async () => {
    setError(null);
    try {
      const answer = await api.post(`/api/invites/${encodeURIComponent(token)}/accept`, undefined, acceptInviteResponseSchema);
      // A company's role came with it: what the person is and may see is read again.
      await queryClient.invalidateQueries();
      navigate(getAcceptedPath(answer.jobId), { replace: true });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Could not accept the invitation. Please try again.');
    }
  };
  return (
    <div className="stack">
      <p>{describeInvitation(invite)} You already have an account with this email address.</p>
      <FormAlert message={error} />
      {user ? (
        <button type="button" className="button primary block" onClick={() => void accept()}>
          Accept as {user.email}
        </button>
      ) : (
        <Link className="button primary block" to={getSignInToAcceptPath({ token, jobId, email })}>
          Sign in to accept
        </Link>
      )}
    </div>
  );
}
