import { useQueryClient } from '@tanstack/react-query';
import type { TitleCompany } from '#shared/title-companies.ts';
import { titleCompanyKeys } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { NotaryPicker } from '#web/components/notary-picker.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { api } from '#web/lib/api.ts';
import { describeDefaultNotary } from './company-words.ts';

/** The notary new jobs of the company get unless another is chosen; its staff and administrators choose or clear it. */
export function CompanyDefaultNotary({ company }: { company: TitleCompany }) {
  const queryClient = useQueryClient();
  const { error, notice, run } = useActionStatus();
  const canEdit = company.permissions.canEdit && company.status !== 'closed';
  const save = (notaryId: string | null, success: string) =>
    run(async () => {
      await api.put(`/api/title-companies/${encodeURIComponent(company.id)}`, { defaultNotaryId: notaryId });
      await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.company(company.id) });
    }, success);
  return (
    <section className="card stack" aria-labelledby="default-notary-title">
      <h2 id="default-notary-title">Default notary</h2>
      <FormAlert message={error} />
      <FormAlert message={notice} tone="success" />
      <p>{describeDefaultNotary(company.defaultNotary?.name ?? null)}</p>
      {canEdit ? (
        <NotaryPicker
          label="Choose the default notary"
          canSearch
          value={company.defaultNotary}
          onChange={(notary) =>
            void save(
              notary?.userId ?? null,
              notary ? `${notary.name} is now the default notary of ${company.name}.` : `${company.name} has no default notary now.`,
            )
          }
        />
      ) : null}
    </section>
  );
}
