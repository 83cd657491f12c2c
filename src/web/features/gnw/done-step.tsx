import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { GnwJob } from '#shared/gnw.ts';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { FormAlert } from '#web/components/field.tsx';

/** Done: the charge settled once (a retried finalize finds it settled), then the notarized documents to download. */
export function DoneStep({ job }: { job: GnwJob }) {
  const queryClient = useQueryClient();
  const finalize = useMutation({
    mutationFn: () => gnwApi.finalize(job.jobId),
    onSuccess: (answer) => queryClient.setQueryData(gnwKeys.job(job.jobId), answer.job),
  });
  const hasAsked = useRef(false);
  useEffect(() => {
    if (hasAsked.current) return;
    hasAsked.current = true;
    finalize.mutate();
  }, [finalize]);

  if (finalize.isPending || finalize.isIdle) return <p role="status">Settling the payment…</p>;
  if (finalize.error) {
    return (
      <div className="stack">
        <FormAlert message={`The payment could not be settled yet: ${finalize.error.message}`} />
        <div>
          <button type="button" className="button" onClick={() => finalize.mutate()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  const answer = finalize.data;
  return (
    <div className="stack">
      {/* The server's sentence says what was charged and what was released, once. */}
      <p role="status">{answer.message}</p>
      {answer.documents.length > 0 ? (
        <section className="stack" aria-labelledby="gnw-documents-title">
          <h3 id="gnw-documents-title">Your notarized documents</h3>
          <ul className="plain stack">
            {answer.documents.map((document) => (
              <li key={document.id}>
                <a className="button" href={document.downloadUrl} download>
                  Download {document.name}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <p>Your notarized documents are not ready to download yet. They are listed on the job’s page once they are.</p>
      )}
    </div>
  );
}
