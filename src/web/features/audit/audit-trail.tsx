import { useQuery } from '@tanstack/react-query';
import { auditTrailSchema } from '#shared/audit.ts';
import { describeAuditEvent } from '#shared/audit-sentences.ts';
import { formatDateTime } from '#shared/dates.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

/** The job's hash-chained trail as sentences, in the viewer's time zone, with whether the chain verifies, and its status history. */
export function AuditTrail({ jobId }: { jobId: string }) {
  const trail = useQuery({ queryKey: jobKeys.audit(jobId), queryFn: () => api.get(`/api/jobs/${jobId}/audit`, auditTrailSchema) });
  const events = trail.data?.events ?? [];
  const statusHistory = events.filter((event) => event.action === 'job.status_changed' || event.action === 'job.created');
  return (
    <section className="card stack" aria-labelledby="audit-title">
      <h2 id="audit-title">Status history and audit trail</h2>
      <FormAlert message={trail.error?.message ?? null} />
      {trail.data ? (
        trail.data.verification.isValid ? (
          <p className="alert success" role="status">
            Audit trail verified: {trail.data.verification.eventCount} events, each sealed to the one before it.
          </p>
        ) : (
          <p className="alert error" role="alert">
            Audit trail does NOT verify: an event was changed or removed after it was recorded.
          </p>
        )
      ) : null}
      {statusHistory.length > 0 ? (
        <ol className="timeline" aria-label="Status history">
          {statusHistory.map((event) => (
            <li key={event.id}>
              <time dateTime={event.createdAt}>{formatDateTime(event.createdAt)}</time> · {describeAuditEvent(event)}
            </li>
          ))}
        </ol>
      ) : null}
      <details>
        <summary>All {events.length} events</summary>
        <table className="table" aria-label="Audit events" ref={labelCellsByHeaders}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What happened</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td>
                  <time dateTime={event.createdAt}>{formatDateTime(event.createdAt)}</time>
                </td>
                <td>{describeAuditEvent(event)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
