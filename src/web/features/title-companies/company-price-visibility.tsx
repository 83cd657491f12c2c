import { useState } from 'react';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import type { TitleCompany } from '#shared/title-companies.ts';
import { titleCompanyKeys } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { api } from '#web/lib/api.ts';
import { paths } from '#web/paths.ts';

/** Whether the company's agents see what its jobs are charged and its invoices; its title staff and administrators decide. */
export function CompanyPriceVisibility({ company }: { company: TitleCompany }) {
  const queryClient = useQueryClient();
  const { error, notice, run } = useActionStatus();
  const [isBusy, setIsBusy] = useState(false);
  const canEdit = company.permissions.canEdit && company.status !== 'closed';
  const change = (agentsSeePrices: boolean) =>
    run(
      async () => {
        setIsBusy(true);
        try {
          await api.put(`/api/title-companies/${encodeURIComponent(company.id)}`, { agentsSeePrices });
          await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.company(company.id) });
        } finally {
          setIsBusy(false);
        }
      },
      agentsSeePrices ? `${company.name}’s agents now see its jobs’ charges and its invoices.` : `${company.name}’s agents no longer see prices or invoices.`,
    );
  return (
    <section className="card stack" aria-labelledby="price-visibility-title">
      <h2 id="price-visibility-title">Prices and invoices</h2>
      <FormAlert message={error} />
      <FormAlert message={notice} tone="success" />
      <p>
        {company.agentsSeePrices
          ? 'The title staff and the agents see what each completed job is charged and the invoices.'
          : 'Only the title staff see what each completed job is charged and the invoices; the agents do not.'}
      </p>
      {company.agentsSeePrices || canEdit ? (
        <p>
          <Link to={paths.billingCompany(company.id)}>Open {company.name}’s invoices</Link>
        </p>
      ) : null}
      {canEdit ? (
        <label className="checkbox">
          <input type="checkbox" checked={company.agentsSeePrices} disabled={isBusy} onChange={(event) => void change(event.target.checked)} />
          Agents see prices and invoices
        </label>
      ) : null}
    </section>
  );
}
