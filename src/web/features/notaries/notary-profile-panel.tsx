import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { describeMissingCommissionFields, notaryProfileSchema, type NotaryProfile } from '#shared/notary-profile.ts';
import type { UsStateCode } from '#shared/us-states.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { StateSelect } from '#web/components/state-select.tsx';
import { notaryKeys } from '#web/api/notaries.ts';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { NotaryProfileEditor } from './notary-profile-editor.tsx';

const queryKey = notaryKeys.profile('me');

/** The server's answer to a notary whose role an administrator gave before any commission was on file. */
const isProfileMissing = (error: unknown) => error instanceof ApiError && error.code === 'notary_profile_missing';

/** The dashboard's Profile tab for a notary: their commission, documents, what is missing, expiry banners. */
export function NotaryProfilePanel() {
  const query = useQuery({
    queryKey,
    queryFn: () => api.get('/api/notary/profile', notaryProfileSchema),
    // No profile yet is an answer, not a failure to try again.
    retry: (failures, error) => !isProfileMissing(error) && failures < 1,
  });
  const [justCreated, setJustCreated] = useState(false);
  const isMissing = isProfileMissing(query.error);
  return (
    <section aria-labelledby="notary-profile-title" className="stack">
      <h2 id="notary-profile-title">Your notary profile</h2>
      {isMissing ? null : <FormAlert message={query.error?.message ?? null} />}
      {query.isPending ? <p role="status">Loading…</p> : null}
      {isMissing && !query.data ? <NewCommissionForm onCreated={() => setJustCreated(true)} /> : null}
      {justCreated && query.data ? (
        <FormAlert
          message="Your commission details are on file and wait for an administrator’s approval. Complete the rest of your profile below."
          tone="success"
        />
      ) : null}
      {query.data ? (
        <NotaryProfileEditor
          key={query.data.userId}
          profile={query.data}
          profilePath="/api/notary/profile"
          uploadPath="/api/notary/profile/upload"
          isOwn
          queryKey={queryKey}
        />
      ) : null}
    </section>
  );
}

/** The four commission fields registration asks for: what puts a commission on file for approval. */
function NewCommissionForm({ onCreated }: { onCreated: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ commissionState: '', commissionNumber: '', county: '', commissionExpiresOn: '' });
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const set = (key: keyof typeof form) => (event: { target: { value: string } }) => setForm((current) => ({ ...current, [key]: event.target.value }));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const missing = describeMissingCommissionFields(form);
    if (missing) {
      setError(missing);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const saved: NotaryProfile = await api.put(
        '/api/notary/profile',
        { ...form, commissionNumber: form.commissionNumber.trim(), county: form.county.trim() },
        notaryProfileSchema,
      );
      onCreated();
      queryClient.setQueryData(queryKey, saved);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'Your commission details were not saved.');
    } finally {
      setIsSaving(false);
    }
  };

  return (
    <form className="card stack" onSubmit={(event) => void save(event)} aria-labelledby="new-commission-title" noValidate>
      <h3 id="new-commission-title">Your commission details are not on file yet</h3>
      <p>Enter your commission to ask an administrator for approval. You can add the rest of your profile, your documents and your signature afterwards.</p>
      <StateSelect
        label="Commissioning state"
        value={form.commissionState}
        onChange={(code: UsStateCode | '') => setForm((current) => ({ ...current, commissionState: code }))}
      />
      <Field label="Commission number" value={form.commissionNumber} onChange={set('commissionNumber')} />
      <Field label="County" value={form.county} onChange={set('county')} />
      <Field label="Commission expiry" type="date" value={form.commissionExpiresOn} onChange={set('commissionExpiresOn')} />
      <FormAlert message={error} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={isSaving}>
          {isSaving ? 'Saving…' : 'Put my commission on file'}
        </button>
      </div>
    </form>
  );
}
