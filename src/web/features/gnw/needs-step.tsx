import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'react';
import { maxOtherSigners, maxWitnessesRequested, updateGnwJobInputSchema, type GnwJob } from '#shared/gnw.ts';
import { notarizationTypes, type NotarizationType } from '#shared/jobs.ts';
import { isUsStateCode } from '#shared/us-states.ts';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { StateSelect } from '#web/components/state-select.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { EstimateCard } from './estimate-card.tsx';

interface SignerRow {
  key: number;
  name: string;
  email: string;
}

function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

function timeZoneChoices(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return known.includes(current) ? known : [current, ...known];
}

/** Waits until the value has stopped changing for `ms`: the estimate is asked for once typing pauses. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** "What you need": the act, the person's state, other signers, witnesses, their time zone, and the live estimate. */
export function NeedsStep({ job }: { job: GnwJob }) {
  const queryClient = useQueryClient();
  const formId = useId();
  const [act, setAct] = useState<NotarizationType>(job.act);
  const [signerState, setSignerState] = useState(job.signerState ?? '');
  // A person who never saved this step gets the browser's zone; after that, the one they chose.
  const [timeZone, setTimeZone] = useState(job.signerState ? job.timeZone : browserTimeZone());
  const [witnesses, setWitnesses] = useState(job.witnessesRequested);
  const [signers, setSigners] = useState<SignerRow[]>(job.otherSigners.map((signer, key) => ({ key, ...signer })));
  const [nextKey, setNextKey] = useState(job.otherSigners.length);
  const [problems, setProblems] = useState<string[]>([]);
  const { error, run } = useActionStatus();

  const estimateInput = useDebounced(
    useMemo(
      () => ({
        jobId: job.jobId,
        act,
        signerState: isUsStateCode(signerState) ? signerState : null,
        signers: Math.min(1 + signers.length, 10),
        witnesses,
        documents: Math.min(Math.max(job.documentCount, 1), 20),
      }),
      [job.jobId, job.documentCount, act, signerState, signers.length, witnesses],
    ),
    400,
  );
  const estimate = useQuery({
    queryKey: [...gnwKeys.job(job.jobId), 'estimate', estimateInput],
    queryFn: () => gnwApi.estimate(estimateInput),
    placeholderData: keepPreviousData,
    retry: false,
  });

  const save = () =>
    run(async () => {
      const parsed = updateGnwJobInputSchema.safeParse({
        step: 'payment',
        act,
        signerState: signerState || undefined,
        timeZone,
        witnessesRequested: witnesses,
        otherSigners: signers.map(({ name, email }) => ({ name, email })),
      });
      const found = parsed.success ? [] : [...new Set(parsed.error.issues.map((issue) => issue.message))];
      if (!signerState) found.unshift('Choose the state you are in.');
      setProblems(found);
      if (!parsed.success || found.length > 0) return;
      queryClient.setQueryData(gnwKeys.job(job.jobId), await gnwApi.updateJob(job.jobId, parsed.data));
    });

  const updateSigner = (key: number, change: Partial<SignerRow>) => setSigners((rows) => rows.map((row) => (row.key === key ? { ...row, ...change } : row)));

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <fieldset className="stack">
        <legend>What kind of notarization?</legend>
        {notarizationTypes.map((type) => (
          <label key={type.key} className="checkbox radio-choice">
            <input type="radio" name={`${formId}-act`} value={type.key} checked={act === type.key} onChange={() => setAct(type.key)} />
            <span>
              <strong>{type.label}</strong>
              <br />
              <span className="muted small">{type.description}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <StateSelect
        label="The state you are in"
        value={signerState}
        onChange={setSignerState}
        hint="Where you are during the session: it sets the notary’s fee cap."
      />
      <fieldset className="stack">
        <legend>Other signers</legend>
        <p className="muted small">Anyone signing besides you. Each gets an invitation by email.</p>
        {signers.map((row, index) => (
          <div key={row.key} className="gnw-signer-row">
            <Field
              label={`Signer ${index + 2}: name`}
              value={row.name}
              maxLength={200}
              autoComplete="off"
              onChange={(event) => updateSigner(row.key, { name: event.target.value })}
            />
            <Field
              label={`Signer ${index + 2}: email`}
              type="email"
              value={row.email}
              maxLength={254}
              autoComplete="off"
              onChange={(event) => updateSigner(row.key, { email: event.target.value })}
            />
            <button type="button" className="button" onClick={() => setSigners((rows) => rows.filter((item) => item.key !== row.key))}>
              Remove signer {index + 2}
            </button>
          </div>
        ))}
        {signers.length < maxOtherSigners ? (
          <div>
            <button
              type="button"
              className="button"
              onClick={() => {
                setSigners((rows) => [...rows, { key: nextKey, name: '', email: '' }]);
                setNextKey((key) => key + 1);
              }}
            >
              Add another signer
            </button>
          </div>
        ) : (
          <p className="muted small">At most {maxOtherSigners} other signers.</p>
        )}
      </fieldset>
      <div className="field">
        <label htmlFor={`${formId}-witnesses`}>Witnesses needed</label>
        <select
          id={`${formId}-witnesses`}
          value={witnesses}
          onChange={(event) => setWitnesses(Number(event.target.value))}
          aria-describedby={`${formId}-witnesses-hint`}
        >
          {Array.from({ length: maxWitnessesRequested + 1 }, (_, count) => (
            <option key={count} value={count}>
              {count === 0 ? 'None' : count === 1 ? '1 witness' : `${count} witnesses`}
            </option>
          ))}
        </select>
        <p className="field-hint" id={`${formId}-witnesses-hint`}>
          If your document needs witnesses, we provide them.
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${formId}-zone`}>Your time zone</label>
        <select id={`${formId}-zone`} value={timeZone} onChange={(event) => setTimeZone(event.target.value)}>
          {timeZoneChoices(timeZone).map((zone) => (
            <option key={zone} value={zone}>
              {zone.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </div>
      {estimate.data ? <EstimateCard estimate={estimate.data} isUpdating={estimate.isFetching} /> : null}
      {estimate.isPending ? <p role="status">Working out the estimate…</p> : null}
      <FormAlert message={estimate.error ? `The estimate could not be worked out: ${estimate.error.message}` : null} />
      {problems.length > 0 ? (
        <div className="alert error" role="alert">
          <ul className="plain">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <FormAlert message={error} />
      <div className="actions">
        <button type="submit" className="button primary gnw-primary">
          Next: payment
        </button>
      </div>
    </form>
  );
}
