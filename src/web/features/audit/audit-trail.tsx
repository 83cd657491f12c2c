import { useQuery } from '@tanstack/react-query';
import { auditTrailSchema } from '#shared/audit.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

const actionLabels: Record<string, string> = {
  'job.created': 'Job created',
  'job.updated': 'Job details changed',
  'job.status_changed': 'Status changed',
  'job.notary_replaced': 'Notary changed',
  'job.participants_notified': 'Participants notified',
  'job.notary_notified': 'Notary notified',
  'participant.added': 'Participant invited',
  'participant.updated': 'Participant changed',
  'participant.removed': 'Participant removed',
  'participant.reminded': 'Invitation reminder sent',
  'participants.reminded': 'Reminders sent',
  'participant.id_bypass_changed': 'Identity bypass changed',
  'participant.access_requested': 'New invitation requested',
  'invite.claimed': 'Invitation accepted',
  'document.uploaded': 'Document uploaded',
  'document.updated': 'Document changed',
  'document.deleted': 'Document deleted',
  'documents.reordered': 'Documents reordered',
  'document.completed': 'Document completed',
  'audit_asset.added': 'Audit asset tagged',
  'audit_asset.removed': 'Audit asset untagged',
};

function describe(data: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof data.from === 'string' && typeof data.to === 'string') parts.push(`${data.from} → ${data.to}`);
  for (const key of ['name', 'email', 'role', 'reason', 'sentTo']) if (typeof data[key] === 'string' && data[key]) parts.push(String(data[key]));
  if (typeof data.sha256 === 'string') parts.push(`SHA-256 ${data.sha256.slice(0, 16)}…`);
  return parts.join(' · ');
}

/** The job's hash-chained trail, with whether the chain verifies, and its status history. */
export function AuditTrail({ jobId }: { jobId: string }) {
  const trail = useQuery({ queryKey: ['jobs', jobId, 'audit'], queryFn: () => api.get(`/api/jobs/${jobId}/audit`, auditTrailSchema) });
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
              <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time> ·{' '}
              {event.action === 'job.created' ? 'Created as draft' : `${String(event.data.from)} → ${String(event.data.to)}`}
              {event.actorName ? ` by ${event.actorName}` : ''}
            </li>
          ))}
        </ol>
      ) : null}
      <details>
        <summary>All {events.length} events</summary>
        <table className="table" ref={labelCellsByHeaders}>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Who</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td>
                  <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
                </td>
                <td>{actionLabels[event.action] ?? event.action}</td>
                <td>{event.actorName ?? 'System'}</td>
                <td>{describe(event.data)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
