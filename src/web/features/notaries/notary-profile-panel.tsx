import { useQuery } from '@tanstack/react-query';
import { notaryProfileSchema } from '#shared/notary-profile.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { NotaryProfileEditor } from './notary-profile-editor.tsx';

const queryKey = ['notary-profile', 'me'] as const;

/** The dashboard's Profile tab for a notary: their commission, documents, what is missing, expiry banners. */
export function NotaryProfilePanel() {
  const query = useQuery({ queryKey, queryFn: () => api.get('/api/notary/profile', notaryProfileSchema) });
  return (
    <section aria-labelledby="notary-profile-title" className="stack">
      <h2 id="notary-profile-title">Your notary profile</h2>
      <FormAlert message={query.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading…</p> : null}
      {query.data ? <NotaryProfileEditor key={query.data.userId} profile={query.data} profilePath="/api/notary/profile" uploadPath="/api/notary/profile/upload" isOwn queryKey={queryKey} /> : null}
    </section>
  );
}
