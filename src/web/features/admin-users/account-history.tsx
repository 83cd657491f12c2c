import { useQuery } from '@tanstack/react-query';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { formatDateTime } from '#shared/dates.ts';
import { FormAlert } from '#web/components/field.tsx';
import { accountAuditQueryOptions } from './api/admin-user-queries.ts';

/** What administrators changed on one account, newest first, each event as a sentence with its date. */
export function AccountHistory({ userId, name }: { userId: string; name: string }) {
  const history = useQuery(accountAuditQueryOptions(userId));
  const headingId = `account-history-${userId}`;
  return (
    <section className="stack" aria-labelledby={headingId}>
      <h4 id={headingId}>History of this account</h4>
      <FormAlert message={history.error?.message ?? null} />
      {history.isPending ? <p role="status">Loading the history…</p> : null}
      {history.data && history.data.items.length === 0 ? <p className="empty">No administrator has changed {name}’s account yet.</p> : null}
      {history.data && history.data.items.length > 0 ? (
        <ol className="timeline">
          {history.data.items.map((event) => (
            <li key={event.id}>
              <time dateTime={event.createdAt}>{formatDateTime(event.createdAt)}</time> · {describeAuditEvent(event)}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
