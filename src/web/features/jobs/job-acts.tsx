import { useId, useState } from 'react';
import { isJobEditable, jobSchema, notarizationTypes, type Job } from '#shared/jobs.ts';
import { useJobMutation, useJobNotarizationTypes } from '#web/api/jobs.ts';
import { api } from '#web/lib/api.ts';

const labelOf = (key: string) => notarizationTypes.find((type) => type.key === key)?.label ?? key;
/** "a jurat", "an acknowledgment", "an oath or affirmation". */
const withArticle = (label: string) => `${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label.toLowerCase()}`;

/**
 * The job's act, changeable while the job can be edited among the acts its notary's state allows,
 * and the ways its signers may be identified, each with its rule (decision 052).
 */
export function JobActs({ job, run }: { job: Job; run: (action: () => Promise<unknown>, success?: string) => void }) {
  const acts = useJobNotarizationTypes(job.id);
  const change = useJobMutation((notarizationType: string) => api.patch(`/api/jobs/${job.id}`, { notarizationType, version: job.version }, jobSchema));
  const selectId = useId();
  const current = notarizationTypes.find((type) => type.key === job.notarizationType);
  const canChange = job.permissions.canEdit && isJobEditable(job.status);
  const data = acts.data;
  // Chosen first, saved with a button: moving through the list with the keyboard changes nothing yet.
  const [chosen, setChosen] = useState(job.notarizationType);
  return (
    <>
      <dt>{canChange ? <label htmlFor={selectId}>Notarization type</label> : 'Notarization type'}</dt>
      <dd>
        {canChange && data ? (
          <div className="row wrap job-act-picker">
            <select id={selectId} className="job-act-select" value={chosen} disabled={change.isPending} onChange={(event) => setChosen(event.target.value)}>
              {data.items.map((item) => (
                <option key={item.key} value={item.key} disabled={!item.allowed}>
                  {item.allowed ? item.label : `${item.label} (not allowed online in ${data.policy.name})`}
                </option>
              ))}
            </select>
            {chosen !== job.notarizationType ? (
              <>
                <button
                  type="button"
                  className="button primary"
                  disabled={change.isPending}
                  onClick={() => run(() => change.mutateAsync(chosen), `The act is now ${withArticle(labelOf(chosen))}.`)}
                >
                  Save the act
                </button>
                <button type="button" className="button" disabled={change.isPending} onClick={() => setChosen(job.notarizationType)}>
                  Keep {labelOf(job.notarizationType).toLowerCase()}
                </button>
              </>
            ) : null}
          </div>
        ) : (
          (current?.label ?? job.notarizationType)
        )}
        {data ? (
          <details className="job-identification">
            <summary>How signers may be identified</summary>
            <p className="field-hint">
              {data.policy.isDefault
                ? 'The job has no notary yet, so these are the default rules; the notary’s commissioning state decides once one is chosen.'
                : `The rules of ${data.policy.name}, where the notary is commissioned.`}
            </p>
            <ul>
              {data.identification.map((row) => (
                <li key={row.method}>
                  <strong>{row.allowed ? 'Allowed: ' : 'Not available: '}</strong>
                  {row.label}.{row.reason ? ` ${row.reason}` : ''}
                  {row.citation ? <span className="field-hint"> ({row.citation})</span> : null}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </dd>
    </>
  );
}
