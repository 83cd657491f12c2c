import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { okMessageSchema, rejectionReasonMaxLength, rejectionReasonSchema } from '#shared/auth.ts';
import { formatCalendarDay } from '#shared/dates.ts';
import type { PendingNotary } from '#shared/notaries.ts';
import { getUsStateName } from '#shared/us-states.ts';
import { notaryKeys, pendingNotariesQueryOptions } from '#web/api/notaries.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';
import { AdminNotaryProfile } from './notary-directory.tsx';

/** Administrators review notaries waiting for approval: approve, or reject with a reason; either way the notary is told by email. */
export function PendingNotaries() {
  const queryClient = useQueryClient();
  const query = useQuery(pendingNotariesQueryOptions());
  const { dialog, outcome, busyId, decide } = useDecision();
  // Approval is refused while the profile is incomplete (decision 027): the profile shows what is missing.
  const [openId, setOpenId] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: notaryKeys.all });

  const approve = (notary: PendingNotary, opener: HTMLElement) =>
    decide(
      notary.userId,
      opener,
      {
        title: `Approve ${notary.name}?`,
        description: `${notary.name} can then take notarizations as a ${getUsStateName(notary.commissionState)} notary, and is told by email with a link to sign in.`,
        confirmLabel: 'Approve',
        cancelLabel: 'Not now',
      },
      async () => {
        const result = await api.post(`/api/notary/approve/${notary.userId}`, undefined, okMessageSchema);
        await refresh();
        return result;
      },
    );

  const reject = (notary: PendingNotary, opener: HTMLElement) =>
    decide(
      notary.userId,
      opener,
      {
        title: `Reject ${notary.name}?`,
        description: `${notary.name} will not be able to sign in. This cannot be undone; they are told by email with your reason.`,
        confirmLabel: 'Reject',
        confirmTone: 'danger',
        cancelLabel: 'Not now',
        reasonLabel: 'Reason for the notary',
        reasonHint: `One line, up to ${rejectionReasonMaxLength} characters. It is quoted in the email, so write it for ${notary.name}.`,
        reasonSchema: rejectionReasonSchema,
        reasonRows: 3,
      },
      async (reason) => {
        const result = await api.post(`/api/notary/reject/${notary.userId}`, { reason }, okMessageSchema);
        await refresh();
        return result;
      },
    );

  return (
    <section aria-labelledby="pending-notaries-title" className="card stack">
      <h2 id="pending-notaries-title">Notaries awaiting approval</h2>
      {dialog}
      {outcome}
      <FormAlert message={query.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading…</p> : null}
      {query.data && query.data.items.length === 0 ? <p className="empty">No notaries are waiting for approval.</p> : null}
      {query.data && query.data.items.length > 0 ? (
        <ul className="review-list">
          {query.data.items.map((notary) => (
            <li key={notary.userId} className="review-item">
              <h3>{notary.name}</h3>
              <dl className="review-facts">
                <dt>Email</dt>
                <dd>{notary.email}</dd>
                <dt>Commission</dt>
                <dd>
                  {getUsStateName(notary.commissionState)} {notary.commissionNumber}, {notary.county}
                </dd>
                <dt>Expires</dt>
                <dd>{formatCalendarDay(notary.commissionExpiresOn)}</dd>
              </dl>
              <div className="actions">
                <button type="button" className="button primary" disabled={busyId !== null} onClick={(event) => void approve(notary, event.currentTarget)}>
                  Approve<span className="visually-hidden"> {notary.name}</span>
                </button>
                <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void reject(notary, event.currentTarget)}>
                  Reject<span className="visually-hidden"> {notary.name}</span>
                </button>
                <button
                  type="button"
                  className="button"
                  aria-expanded={openId === notary.userId}
                  aria-controls={`pending-profile-${notary.userId}`}
                  onClick={() => setOpenId(openId === notary.userId ? null : notary.userId)}
                >
                  {openId === notary.userId ? 'Hide profile' : 'Review profile'}
                  <span className="visually-hidden"> of {notary.name}</span>
                </button>
              </div>
              {openId === notary.userId ? (
                <div id={`pending-profile-${notary.userId}`}>
                  <AdminNotaryProfile notaryId={notary.userId} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
