import { useQuery, useQueryClient } from '@tanstack/react-query';
import { okMessageSchema, rejectionReasonMaxLength, rejectionReasonSchema } from '#shared/auth.ts';
import type { TitleCompanySummary } from '#shared/title-companies.ts';
import { pendingTitleCompaniesQueryOptions, titleCompanyKeys } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';

/** Administrators review title companies waiting for approval: approve, or reject with a reason; either way the team is told by email. */
export function PendingTitleCompanies() {
  const queryClient = useQueryClient();
  const query = useQuery(pendingTitleCompaniesQueryOptions());
  const { dialog, outcome, busyId, decide } = useDecision();
  const refresh = () => queryClient.invalidateQueries({ queryKey: titleCompanyKeys.all });

  const approve = (company: TitleCompanySummary, opener: HTMLElement) =>
    decide(
      company.id,
      opener,
      {
        title: `Approve ${company.name}?`,
        description: `${company.name} can then create signing requests. Its team is told by email with a link to sign in.`,
        confirmLabel: 'Approve',
        cancelLabel: 'Not now',
      },
      async () => {
        const result = await api.post(`/api/title-companies/${company.id}/approve`, undefined, okMessageSchema);
        await refresh();
        return result;
      },
    );

  const reject = (company: TitleCompanySummary, opener: HTMLElement) =>
    decide(
      company.id,
      opener,
      {
        title: `Reject ${company.name}?`,
        description: `Its team will not be able to sign in. This cannot be undone; the team is told by email with your reason.`,
        confirmLabel: 'Reject',
        confirmTone: 'danger',
        cancelLabel: 'Not now',
        reasonLabel: 'Reason for the company',
        reasonHint: `One line, up to ${rejectionReasonMaxLength} characters. It is quoted in the email to the company’s team.`,
        reasonSchema: rejectionReasonSchema,
        reasonRows: 3,
      },
      async (reason) => {
        const result = await api.post(`/api/title-companies/${company.id}/reject`, { reason }, okMessageSchema);
        await refresh();
        return result;
      },
    );

  return (
    <section aria-labelledby="pending-companies-title" className="card stack">
      <h2 id="pending-companies-title">Title companies awaiting approval</h2>
      {dialog}
      {outcome}
      <FormAlert message={query.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading…</p> : null}
      {query.data && query.data.items.length === 0 ? <p className="empty">No title companies are waiting for approval.</p> : null}
      {query.data && query.data.items.length > 0 ? (
        <ul className="review-list">
          {query.data.items.map((company) => (
            <li key={company.id} className="review-item">
              <h3>{company.name}</h3>
              <dl className="review-facts">
                <dt>Registered by</dt>
                <dd>{company.ownerName ?? 'Unknown'}</dd>
                {company.ownerEmail ? (
                  <>
                    <dt>Email</dt>
                    <dd>{company.ownerEmail}</dd>
                  </>
                ) : null}
              </dl>
              <div className="actions">
                <button type="button" className="button primary" disabled={busyId !== null} onClick={(event) => void approve(company, event.currentTarget)}>
                  Approve<span className="visually-hidden"> {company.name}</span>
                </button>
                <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void reject(company, event.currentTarget)}>
                  Reject<span className="visually-hidden"> {company.name}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
