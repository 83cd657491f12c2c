import './title-companies.css';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { titleCompanyStatusLabels } from '#shared/title-companies.ts';
import { companyQueryOptions, titleCompanyKeys } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { CompanyAgents } from './company-agents.tsx';
import { CompanyDefaultNotary } from './company-default-notary.tsx';
import { CompanyPriceVisibility } from './company-price-visibility.tsx';
import { CompanyFacts } from './company-facts.tsx';
import { CompanyJobTypes } from './company-job-types.tsx';
import { describeCompanyClosing } from './company-words.ts';

/**
 * One title company: its facts, default notary, people and job types. What the viewer may change
 * comes from the server (`permissions`): title staff and administrators edit, agents read, only
 * administrators close the company.
 */
export function CompanyView({ companyId, isAdmin, notice }: { companyId: string; isAdmin: boolean; notice: string | null }) {
  const company = useQuery(companyQueryOptions(companyId));
  const queryClient = useQueryClient();
  // The outcome of closing sits at the top of the page: the section that asked is gone once the company is closed.
  const { dialog, outcome, busyId, decide } = useDecision();
  if (company.isPending) return <p role="status">Loading the company…</p>;
  if (!company.data) return <FormAlert message={company.error?.message ?? 'This company could not be loaded.'} />;
  const data = company.data;
  return (
    <>
      <div className="row wrap between">
        <h1>{data.name}</h1>
        <span className={`badge company-${data.status}`}>{titleCompanyStatusLabels[data.status]}</span>
      </div>
      <FormAlert message={notice} tone="success" />
      {dialog}
      {outcome}
      {data.status === 'closed' ? (
        <p className="alert info" role="status">
          This company is closed: its people have no access and it takes no new jobs. Its jobs and their history stay for administrators and participants.
        </p>
      ) : null}
      {!data.permissions.canEdit && data.status !== 'closed' ? (
        <p className="muted">You can read this page; the company’s title staff keep it up to date.</p>
      ) : null}
      <CompanyFacts company={data} />
      <CompanyDefaultNotary company={data} />
      <CompanyPriceVisibility company={data} />
      <CompanyAgents company={data} isAdmin={isAdmin} />
      <CompanyJobTypes company={data} />
      {data.permissions.canClose && data.status !== 'closed' ? (
        <CloseCompany
          isBusy={busyId !== null}
          onClose={(opener) =>
            void decide(
              data.id,
              opener,
              { ...describeCompanyClosing(data.name, data.memberCount), cancelLabel: 'Keep it open', confirmTone: 'danger' },
              async () => {
                const answer = await api.delete(`/api/title-companies/${encodeURIComponent(data.id)}`);
                await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.all });
                return { message: readServerMessage(answer, `${data.name} is closed.`) };
              },
            )
          }
        />
      ) : null}
    </>
  );
}

/** An administrator closes the company; the page asks first, saying what happens to its people and records. */
function CloseCompany({ isBusy, onClose }: { isBusy: boolean; onClose: (opener: HTMLElement) => void }) {
  return (
    <section className="card stack" aria-labelledby="close-company-title">
      <h2 id="close-company-title">Close this company</h2>
      <p>Closing shuts the company’s title staff and agents out at once. Its jobs and their history stay for administrators and each job’s participants.</p>
      <div>
        <button type="button" className="button danger" disabled={isBusy} onClick={(event) => onClose(event.currentTarget)}>
          Close this company
        </button>
      </div>
    </section>
  );
}
