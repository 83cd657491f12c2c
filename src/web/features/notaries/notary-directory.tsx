import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { okMessageSchema } from '#shared/auth.ts';
import { formatCalendarDay } from '#shared/dates.ts';
import { notaryProfileSchema, notarySearchResultSchema, notaryTitleCompanyListSchema, type NotarySearchItem } from '#shared/notary-profile.ts';
import { getUsStateName } from '#shared/us-states.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { notaryKeys } from '#web/api/notaries.ts';
import { api } from '#web/lib/api.ts';
import { NotaryProfileEditor } from './notary-profile-editor.tsx';

const pageSize = 20;
const approvalLabels = { pending: 'Pending', approved: 'Approved', rejected: 'Rejected' } as const;

/** Administrators find any notary (words, approval, active), page through them and open one's profile. */
export function NotaryDirectory() {
  const [q, setQ] = useState('');
  const [approval, setApproval] = useState('');
  const [active, setActive] = useState('');
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const params = new URLSearchParams({ q, page: String(page), pageSize: String(pageSize) });
  if (approval) params.set('approval', approval);
  if (active) params.set('active', active);
  const query = useQuery({
    queryKey: notaryKeys.search(params.toString()),
    queryFn: () => api.get(`/api/notary/search?${params.toString()}`, notarySearchResultSchema),
  });
  const pages = query.data ? Math.max(1, Math.ceil(query.data.total / pageSize)) : 1;

  return (
    <section aria-labelledby="notary-directory-title" className="card stack">
      <h2 id="notary-directory-title">All notaries</h2>
      <div className="notary-filters" role="search" aria-label="Find notaries">
        <Field
          label="Search"
          type="search"
          value={q}
          hint="Name, email, county, state or commission number."
          onChange={(event) => {
            setQ(event.target.value);
            setPage(1);
          }}
        />
        <div className="field">
          <label htmlFor="notary-approval-filter">Approval</label>
          <select
            id="notary-approval-filter"
            value={approval}
            onChange={(event) => {
              setApproval(event.target.value);
              setPage(1);
            }}
          >
            <option value="">Any</option>
            <option value="pending">Pending</option>
            <option value="approved">Approved</option>
            <option value="rejected">Rejected</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="notary-active-filter">Activity</label>
          <select
            id="notary-active-filter"
            value={active}
            onChange={(event) => {
              setActive(event.target.value);
              setPage(1);
            }}
          >
            <option value="">Any</option>
            <option value="true">Active</option>
            <option value="false">Deactivated</option>
          </select>
        </div>
      </div>
      <FormAlert message={query.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading…</p> : null}
      {query.data && query.data.items.length === 0 ? <p className="empty">No notary matches.</p> : null}
      {query.data && query.data.items.length > 0 ? (
        <ul className="review-list" aria-label="Notaries">
          {query.data.items.map((notary) => (
            <NotaryRow
              key={notary.userId}
              notary={notary}
              isOpen={openId === notary.userId}
              onToggle={() => setOpenId(openId === notary.userId ? null : notary.userId)}
            />
          ))}
        </ul>
      ) : null}
      {query.data && pages > 1 ? (
        <nav className="actions" aria-label="Pages of notaries">
          <button type="button" className="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span role="status">
            Page {page} of {pages} ({query.data.total} notaries)
          </span>
          <button type="button" className="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function NotaryRow({ notary, isOpen, onToggle }: { notary: NotarySearchItem; isOpen: boolean; onToggle: () => void }) {
  const panelId = `notary-${notary.userId}`;
  return (
    <li className="review-item">
      <h3>{notary.name}</h3>
      <dl className="review-facts">
        <dt>Email</dt>
        <dd>{notary.email}</dd>
        <dt>Commission</dt>
        <dd>
          {getUsStateName(notary.commissionState)} {notary.commissionNumber}, {notary.county}; expires {formatCalendarDay(notary.commissionExpiresOn)}
        </dd>
        <dt>Status</dt>
        <dd>
          {approvalLabels[notary.approvalStatus]}
          {notary.isActive ? '' : ', deactivated'}
        </dd>
      </dl>
      <div className="actions">
        <button type="button" className="button" aria-expanded={isOpen} aria-controls={panelId} onClick={onToggle}>
          {isOpen ? 'Hide profile' : 'Open profile'}
          <span className="visually-hidden"> of {notary.name}</span>
        </button>
      </div>
      {isOpen ? (
        <div id={panelId}>
          <AdminNotaryProfile notaryId={notary.userId} />
        </div>
      ) : null}
    </li>
  );
}

/** One notary's profile for an administrator, with activation, signature removal and their title companies. */
export function AdminNotaryProfile({ notaryId }: { notaryId: string }) {
  const queryClient = useQueryClient();
  const queryKey = notaryKeys.profile(notaryId);
  const profile = useQuery({ queryKey, queryFn: () => api.get(`/api/notary/profile/${notaryId}`, notaryProfileSchema) });
  const companies = useQuery({
    queryKey: notaryKeys.titleCompanies(notaryId),
    queryFn: () => api.get(`/api/notary/${notaryId}/title-companies`, notaryTitleCompanyListSchema),
  });
  const { dialog, outcome, busyId, decide } = useDecision();
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: notaryKeys.all });
    await queryClient.invalidateQueries({ queryKey });
  };
  if (!profile.data) return profile.error ? <FormAlert message={profile.error.message} /> : <p role="status">Loading…</p>;
  const data = profile.data;
  const act = (key: string, opener: HTMLElement, title: string, description: string, confirmLabel: string, path: string, method: 'post' | 'delete') =>
    decide(key, opener, { title, description, confirmLabel, cancelLabel: 'Not now', confirmTone: method === 'delete' ? 'danger' : undefined }, async () => {
      const result = method === 'post' ? await api.post(path, undefined, okMessageSchema) : await api.delete(path, okMessageSchema);
      await refresh();
      return result;
    });

  return (
    <div className="stack">
      {dialog}
      {outcome}
      <div className="actions">
        {data.isActive ? (
          <button
            type="button"
            className="button"
            disabled={busyId !== null}
            onClick={(event) =>
              void act(
                'active',
                event.currentTarget,
                `Deactivate ${data.name}?`,
                `${data.name} can still sign in but is not assigned jobs and cannot seal documents until activated again.`,
                'Deactivate',
                `/api/notary/deactivate/${notaryId}`,
                'post',
              )
            }
          >
            Deactivate<span className="visually-hidden"> {data.name}</span>
          </button>
        ) : (
          <button
            type="button"
            className="button primary"
            disabled={busyId !== null}
            onClick={(event) =>
              void act(
                'active',
                event.currentTarget,
                `Activate ${data.name}?`,
                `${data.name} can be assigned jobs again.`,
                'Activate',
                `/api/notary/activate/${notaryId}`,
                'post',
              )
            }
          >
            Activate<span className="visually-hidden"> {data.name}</span>
          </button>
        )}
        {data.signature ? (
          <button
            type="button"
            className="button"
            disabled={busyId !== null}
            onClick={(event) =>
              void act(
                'signature',
                event.currentTarget,
                `Remove ${data.name}’s signature?`,
                'They will have to save a new one before approval or signing. Documents already signed keep it.',
                'Remove signature',
                `/api/notary/signature/${notaryId}`,
                'delete',
              )
            }
          >
            Remove signature
          </button>
        ) : null}
        {data.initials ? (
          <button
            type="button"
            className="button"
            disabled={busyId !== null}
            onClick={(event) =>
              void act(
                'initials',
                event.currentTarget,
                `Remove ${data.name}’s initials?`,
                'They will have to save new ones. Documents already signed keep them.',
                'Remove initials',
                `/api/notary/initials/${notaryId}`,
                'delete',
              )
            }
          >
            Remove initials
          </button>
        ) : null}
      </div>
      <NotaryProfileEditor
        key={data.userId}
        profile={data}
        profilePath={`/api/notary/profile/${notaryId}`}
        uploadPath={`/api/notary/profile/${notaryId}/upload`}
        isOwn={false}
        queryKey={queryKey}
      />
      <section aria-label={`Title companies of ${data.name}`} className="card stack">
        <h3>Title companies</h3>
        {companies.data && companies.data.items.length === 0 ? <p className="empty">No title company has worked with this notary yet.</p> : null}
        {companies.data && companies.data.items.length > 0 ? (
          <ul>
            {companies.data.items.map((company) => (
              <li key={company.id}>
                {company.name}: {company.jobCount} {company.jobCount === 1 ? 'job' : 'jobs'}
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  );
}
