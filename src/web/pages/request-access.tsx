import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { z } from 'zod';
import { requestAccessInputSchema } from '#shared/invites.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

/** For someone whose invitation link expired: a new link goes to the invited address. */
export default function RequestAccessPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = requestAccessInputSchema.safeParse({ email });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Enter a valid email address.');
      return;
    }
    setError(null);
    try {
      const answer = await api.post('/api/invites/request-access', parsed.data, z.object({ ok: z.literal(true), message: z.string() }));
      setNotice(answer.message);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Could not send the request. Please try again.');
    }
  };
  return (
    <main className="centered-page">
      <section className="card narrow stack" aria-labelledby="request-access-title">
        <h1 id="request-access-title">Request a new invitation link</h1>
        <p>Invitation links work once and expire after 7 days. Enter the address the invitation was sent to and we will send a fresh link.</p>
        <form className="stack" onSubmit={submit} noValidate>
          <FormAlert message={error} />
          <FormAlert message={notice} tone="success" />
          <Field label="Email" type="email" autoComplete="email" value={email} onChange={(event) => setEmail(event.target.value)} />
          <button type="submit" className="button primary block">
            Send me a new link
          </button>
        </form>
        <Link to="/login">Back to login</Link>
      </section>
    </main>
  );
}
