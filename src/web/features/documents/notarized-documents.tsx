import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getNotNotarialNotice, notarizedListSchema } from '#shared/fields.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { formatPageCount, formatSize } from '#web/lib/format-size.ts';

/**
 * The sealed, digitally signed outputs of a job: what a completed job offers first. Each says
 * whether it is a notarial act; one sealed without a recorded session and proven identity says it
 * is not, with the reasons, as its pages do.
 */
export function NotarizedDocuments({ jobId }: { jobId: string }) {
  const notarized = useQuery({ queryKey: jobKeys.notarized(jobId), queryFn: () => api.get(`/api/jobs/${jobId}/notarized`, notarizedListSchema) });
  const items = notarized.data?.items ?? [];
  if (notarized.error) return <FormAlert message={notarized.error.message} />;
  if (items.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="notarized-title">
      <h2 id="notarized-title">{items.every((item) => item.isNotarialAct) ? 'Notarized documents' : 'Signed documents'}</h2>
      <ul className="plain">
        {items.map((item) => {
          const notice = getNotNotarialNotice(item);
          return (
            <li key={item.id} className="stack">
              <div>
                <a href={item.downloadUrl} download className="strong">
                  {item.name}
                </a>
                <span className="muted">
                  {' '}
                  · {formatPageCount(item.pageCount)} · {formatSize(item.sizeBytes)} · digitally signed
                </span>
              </div>
              {notice ? (
                <div className="alert error" role="note">
                  <strong>{notice}</strong> {item.notNotarialReasons.join(' ')}
                </div>
              ) : null}
              <span className="muted small">
                SHA-256 <code>{item.sha256.slice(0, 16)}…</code> · <Link to={`/verify?id=${item.id}`}>Verify {item.name}</Link>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
