import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { titleCompanyListSchema } from '#shared/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

/** Administrators review title companies waiting for approval. */
export function PendingTitleCompanies() {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ['title-companies', 'pending'], queryFn: () => api.get('/api/title-companies/pending', titleCompanyListSchema) });
  const approve = useMutation({
    mutationFn: (companyId: string) => api.post(`/api/title-companies/${companyId}/approve`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['title-companies'] }),
  });
  return (
    <section aria-labelledby="pending-companies-title" className="card">
      <h2 id="pending-companies-title">Title companies awaiting approval</h2>
      <FormAlert message={query.error?.message ?? approve.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading…</p> : null}
      {query.data && query.data.items.length === 0 ? <p className="empty">No title companies are waiting for approval.</p> : null}
      {query.data && query.data.items.length > 0 ? (
        <table className="table" ref={labelCellsByHeaders}>
          <thead>
            <tr>
              <th scope="col">Company</th>
              <th scope="col">Registered by</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {query.data.items.map((company) => (
              <tr key={company.id}>
                <td>{company.name}</td>
                <td>
                  {company.ownerName} {company.ownerEmail ? `(${company.ownerEmail})` : ''}
                </td>
                <td>
                  <button type="button" className="button primary" disabled={approve.isPending} onClick={() => approve.mutate(company.id)}>
                    Approve {company.name}
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
