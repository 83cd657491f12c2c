import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { JobType, TitleCompany } from '#shared/title-companies.ts';
import { companyJobTypesQueryOptions, titleCompanyKeys } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { api } from '#web/lib/api.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { describeJobType } from './company-words.ts';
import { JobTypeDialog } from './job-type-dialog.tsx';

/**
 * The company's job types: named templates its staff pick in New Signing Request (notarization type,
 * witnesses, document tags, instructions for the notary). Those who manage the company add, edit
 * and delete them; everyone else reads them.
 */
export function CompanyJobTypes({ company }: { company: TitleCompany }) {
  const queryClient = useQueryClient();
  const jobTypes = useQuery(companyJobTypesQueryOptions(company.id));
  const { dialog, outcome, busyId, decide } = useDecision();
  const { notice, show } = useNotice();
  const [editing, setEditing] = useState<{ jobType: JobType | null } | null>(null);
  const canManage = company.permissions.canManageAgents && company.status !== 'closed';
  const items = jobTypes.data?.items ?? [];

  const remove = (jobType: JobType, opener: HTMLElement) =>
    decide(
      jobType.id,
      opener,
      {
        title: `Delete the job type “${jobType.name}”?`,
        description: 'Staff can no longer pick it for new signing requests. Jobs already made from it keep their settings and instructions.',
        confirmLabel: 'Delete job type',
        cancelLabel: 'Keep it',
        confirmTone: 'danger',
      },
      async () => {
        const answer = await api.delete(`/api/title-companies/job-types/${encodeURIComponent(jobType.id)}`);
        await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.jobTypes(company.id) });
        return { message: readServerMessage(answer, `The job type “${jobType.name}” was deleted.`) };
      },
    );

  return (
    <section className="card stack" aria-labelledby="company-job-types-title">
      <div className="row wrap between">
        <h2 id="company-job-types-title">Job types</h2>
        {canManage ? (
          <button type="button" className="button primary" onClick={() => setEditing({ jobType: null })}>
            New job type
          </button>
        ) : null}
      </div>
      {dialog}
      {outcome}
      {notice}
      <FormAlert message={jobTypes.error?.message ?? null} />
      {jobTypes.isPending ? <p role="status">Loading job types…</p> : null}
      {jobTypes.data && items.length === 0 ? (
        <p className="empty">
          {canManage
            ? 'No job types yet. Add one for each kind of closing you do often; staff then pick it in New Signing Request.'
            : 'This company has no job types yet.'}
        </p>
      ) : null}
      {items.length > 0 ? (
        <ul className="review-list" aria-label="Job types">
          {items.map((jobType) => (
            <li key={jobType.id} className="review-item">
              <h3>{jobType.name}</h3>
              <p className="muted">{describeJobType(jobType)}</p>
              {jobType.instructions ? (
                <p className="job-type-instructions">
                  <span className="strong">Instructions for the notary: </span>
                  {jobType.instructions}
                </p>
              ) : null}
              {canManage ? (
                <div className="actions">
                  <button type="button" className="button" onClick={() => setEditing({ jobType })}>
                    Edit<span className="visually-hidden"> {jobType.name}</span>
                  </button>
                  <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void remove(jobType, event.currentTarget)}>
                    Delete<span className="visually-hidden"> {jobType.name}</span>
                  </button>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {editing ? (
        <JobTypeDialog companyId={company.id} jobType={editing.jobType} onClose={() => setEditing(null)} onSaved={(message) => show(message)} />
      ) : null}
    </section>
  );
}
