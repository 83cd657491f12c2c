import { formatCalendarDay } from '#shared/dates.ts';
import './identity.css';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { bypassMethodNames, documentTypeNames, identityReviewInputSchema, type IdentityCheck, type JobIdentityList } from '#shared/identity.ts';
import { jobKeys } from '#web/api/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { identityCalls, useJobIdentity } from './api/identity-queries.ts';
import { describeCheckStatus, describePartStatus, describeReviewCount, formatWhen, sideNames } from './identity-words.ts';

type Person = JobIdentityList['items'][number];

const fieldNames: Array<[keyof NonNullable<IdentityCheck['credential']['fields']>, string]> = [
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['birthDate', 'Date of birth'],
  ['expiryDate', 'Expires'],
  ['issuer', 'Issued by'],
  ['address', 'Address'],
  ['documentNumberLast4', 'Number ends in'],
];

/** The ID photographs and the selfie side by side, for the notary to compare with the person on camera. */
function Images({ check, name }: { check: IdentityCheck; name: string }) {
  if (check.images.length === 0) return <p className="empty">No photographs yet.</p>;
  const order = ['front', 'back', 'passport', 'selfie'] as const;
  const images = [...check.images].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  return (
    <>
      <div className="identity-images">
        {images.map((image) => (
          <figure key={image.kind}>
            <a href={image.url} target="_blank" rel="noreferrer">
              <img src={image.url} alt={`${name}: ${sideNames[image.kind].toLowerCase()}`} loading="lazy" />
            </a>
            <figcaption>{sideNames[image.kind]}</figcaption>
          </figure>
        ))}
      </div>
      <p className="field-hint">Open a photo to see it full size.</p>
    </>
  );
}

function Credential({ check }: { check: IdentityCheck }) {
  const { credential } = check;
  const fields = credential.fields;
  return (
    <div className="stack">
      <p>
        <span className="strong">ID: </span>
        {credential.documentType ? documentTypeNames[credential.documentType] : 'No ID given yet'} · {describePartStatus(credential.status)}
        {credential.attempts > 1 ? ` (${credential.attempts} tries)` : ''}
      </p>
      {fields ? (
        <dl className="review-facts" aria-label="Read from the ID">
          {fieldNames.map(([key, label]) => (
            <div key={key} style={{ display: 'contents' }}>
              <dt>{label}</dt>
              <dd>{key === 'birthDate' || key === 'expiryDate' ? (fields[key] ? formatCalendarDay(fields[key]) : 'Not read') : (fields[key] ?? 'Not read')}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {credential.checks.length > 0 ? (
        <ul className="identity-checks" aria-label="Checks of the ID">
          {credential.checks.map((item) => (
            <li key={item.id} className={item.passed ? 'is-passed' : 'is-failed'}>
              <span className="visually-hidden">{item.passed ? 'Passed: ' : 'Failed: '}</span>
              {item.sentence}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function Questions({ check }: { check: IdentityCheck }) {
  const { kba } = check;
  const score = kba.lastCorrect !== null && kba.lastTotal !== null ? `, last score ${kba.lastCorrect} of ${kba.lastTotal}` : '';
  return (
    <p>
      <span className="strong">Questions: </span>
      {describePartStatus(kba.status)} · {kba.attempts} of {kba.attemptsAllowed} tries used{score}.
      {kba.lockedUntil ? ` Locked until ${formatWhen(kba.lockedUntil)}.` : ''}
      {kba.isDevelopmentProvider ? ' The questions came from the development provider: they prove nothing.' : ''}
    </p>
  );
}

/** Confirm or reject, with the reason the record keeps. */
function ReviewForm({ jobId, check, name }: { jobId: string; check: IdentityCheck; name: string }) {
  const queryClient = useQueryClient();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const review = useMutation({
    mutationFn: (decision: 'confirmed' | 'rejected') => identityCalls.review(check.checkId, { decision, reason }),
    onSuccess: (_result, decision) => {
      setNotice(decision === 'confirmed' ? `You confirmed ${name}’s identity.` : `You rejected ${name}’s identity step.`);
      setReason('');
      void queryClient.invalidateQueries({ queryKey: jobKeys.detail(jobId) });
    },
  });

  const decide = (event: FormEvent, decision: 'confirmed' | 'rejected') => {
    event.preventDefault();
    setNotice(null);
    const parsed = identityReviewInputSchema.shape.reason.safeParse(reason);
    if (!parsed.success) {
      setReasonError(parsed.error.issues[0]?.message ?? 'Give a reason.');
      document.getElementById(reasonId)?.focus();
      return;
    }
    setReasonError(null);
    review.mutate(decision);
  };

  return (
    <form className="stack" noValidate onSubmit={(event) => decide(event, 'confirmed')}>
      <div className="field">
        <label htmlFor={reasonId}>Your reason for {name}</label>
        <textarea
          id={reasonId}
          rows={2}
          value={reason}
          required
          aria-invalid={reasonError ? true : undefined}
          aria-describedby={`${reasonId}-hint${reasonError ? ` ${reasonId}-error` : ''}`}
          onChange={(event) => setReason(event.target.value)}
        />
        <p className="field-hint" id={`${reasonId}-hint`}>
          Required: what you compared, for example “ID photo and selfie match the person on camera”.
        </p>
        {reasonError ? (
          <p className="field-error" id={`${reasonId}-error`} role="alert">
            {reasonError}
          </p>
        ) : null}
      </div>
      <FormAlert message={review.error ? (review.error instanceof ApiError ? review.error.message : 'The decision could not be saved. Try again.') : null} />
      <FormAlert message={notice} tone="success" />
      <div className="actions">
        <button type="submit" className="button primary" disabled={review.isPending}>
          Confirm <span className="visually-hidden">{name}’s identity</span>
        </button>
        <button type="button" className="button danger" disabled={review.isPending} onClick={(event) => decide(event, 'rejected')}>
          Reject <span className="visually-hidden">{name}’s identity step</span>
        </button>
      </div>
    </form>
  );
}

function PersonReview({ jobId, person }: { jobId: string; person: Person }) {
  const { check, bypass } = person;
  return (
    <li className="identity-person">
      <h4>
        {person.name} <span className="muted">({person.role})</span>
      </h4>
      {bypass ? (
        <p className="notice">
          Identity step not needed:{' '}
          {bypass.method && bypass.method in bypassMethodNames ? bypassMethodNames[bypass.method as keyof typeof bypassMethodNames] : 'set aside'}. Reason:{' '}
          {bypass.reason}
        </p>
      ) : null}
      {check ? (
        <>
          <p>
            <span className="strong">Status: </span>
            {describeCheckStatus(check.status)}.
          </p>
          <Images check={check} name={person.name} />
          <Credential check={check} />
          {check.selfie.required ? (
            <p>
              <span className="strong">Selfie: </span>
              {describePartStatus(check.selfie.status)}
            </p>
          ) : null}
          <Questions check={check} />
          {check.review.decision ? (
            <p className="notice">
              {check.review.decision === 'confirmed' ? 'Confirmed' : 'Rejected'} by {check.review.reviewerName ?? 'a reviewer'}
              {check.review.reviewedAt ? ` on ${formatWhen(check.review.reviewedAt)}` : ''}. Reason: {check.review.reason ?? 'none given'}
            </p>
          ) : null}
          {check.status === 'ready' || check.status === 'in_progress' || check.status === 'locked' ? (
            <ReviewForm jobId={jobId} check={check} name={person.name} />
          ) : null}
        </>
      ) : bypass ? null : (
        <p className="empty">{person.name} has not started the identity step.</p>
      )}
    </li>
  );
}

/**
 * The notary's review of each person's identity step in the session room: the photographs side by
 * side, what was read and checked, the questions' outcome, and Confirm or Reject with a reason.
 */
export function IdentityReviewPanel({ jobId }: { jobId: string }) {
  const [isOpen, setIsOpen] = useState(false);
  // A signer finishing their step shows here without a click: often while open, now and then while closed.
  const list = useJobIdentity(jobId, { refetchMs: isOpen ? 5_000 : 20_000 });
  const items = list.data?.items ?? [];
  return (
    <details className="identity-review stack" open={isOpen} onToggle={(event) => setIsOpen(event.currentTarget.open)}>
      <summary>Identity {list.data ? <span className="badge">{describeReviewCount(items)}</span> : null}</summary>
      {isOpen ? (
        <div className="stack">
          {list.isPending ? <p role="status">Loading the identity steps…</p> : null}
          <FormAlert message={list.error?.message ?? null} />
          {list.data && items.length === 0 ? <p className="empty">No one in this job has to prove identity.</p> : null}
          <ul className="review-list">
            {items.map((person) => (
              <PersonReview key={person.participantId} jobId={jobId} person={person} />
            ))}
          </ul>
          <button type="button" className="button" disabled={list.isFetching} onClick={() => void list.refetch()}>
            {list.isFetching ? 'Checking…' : 'Check again'}
          </button>
        </div>
      ) : null}
    </details>
  );
}
