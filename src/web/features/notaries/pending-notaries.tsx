import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notaryListSchema } from '#shared/notaries.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

/** Administrators review notaries waiting for approval. */
export function PendingNotaries() {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ['notaries', 'pending'], queryFn: () => api.get('/api/notary/pending', notaryListSchema) });
  const approve = useMutation({
    mutationFn: (userId: string) => api.post(`/api/notary/approve/${userId}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['notaries'] }),
  });
  return (
    <section aria-labelledby="pending-notaries-title" className="card">
      <h2 id="pending-notaries-title">Notaries awaiting approval</h2>
      <FormAlert message={query.error?.message ?? approve.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading…</p> : null}
      {query.data && query.data.items.length === 0 ? <p className="empty">No notaries are waiting for approval.</p> : null}
      {query.data && query.data.items.length > 0 ? (
        <table className="table" ref={labelCellsByHeaders}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Commission</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {query.data.items.map((notary) => (
              <tr key={notary.userId}>
                <td>{notary.name}</td>
                <td>{notary.email}</td>
                <td>
                  {notary.commissionState} {notary.commissionNumber} ({notary.county})
                </td>
                <td>{notary.commissionExpiresOn}</td>
                <td>
                  <button type="button" className="button primary" disabled={approve.isPending} onClick={() => approve.mutate(notary.userId)}>
                    Approve {notary.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
