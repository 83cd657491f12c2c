import './identity.css';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { getIdentityStage, nextStepSentences, type IdentityCheck, type IdentityStage } from '#shared/identity.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ContinueOnPhone } from './continue-on-phone.tsx';
import { DetailsForm } from './details-form.tsx';
import { identityKeys, phonePollMs, useIdentityCheck, type IdentityAccess } from './api/identity-queries.ts';
import { describeKbaStanding } from './identity-words.ts';
import { CredentialStep, SelfieStep } from './photo-steps.tsx';
import { QuestionsStep } from './questions-step.tsx';

export const identityDoneSentence = nextStepSentences.ready;
export const phoneDoneSentence = 'Done. Go back to your computer: it carries on by itself.';

const stepNames: Array<{ stage: IdentityStage; name: string }> = [
  { stage: 'details', name: 'Your details' },
  { stage: 'credential', name: 'ID photos' },
  { stage: 'selfie', name: 'Selfie' },
  { stage: 'questions', name: 'Questions' },
];

/** The steps, with the current one marked, as a short ordered list. */
function StepList({ stage, check }: { stage: IdentityStage; check: IdentityCheck | null }) {
  const shown = stepNames.filter((step) =>
    step.stage === 'credential' ? (check?.credential.required ?? true) : step.stage === 'selfie' ? (check?.selfie.required ?? true) : true,
  );
  const currentIndex = shown.findIndex((step) => step.stage === stage);
  return (
    <ol className="identity-steps">
      {shown.map((step, index) => {
        const isDone = stage === 'done' || (currentIndex >= 0 && index < currentIndex);
        return (
          <li
            key={step.stage}
            aria-current={step.stage === stage ? 'step' : undefined}
            className={isDone ? 'is-done' : step.stage === stage ? 'is-current' : undefined}
          >
            {step.name}
            {isDone ? <span className="visually-hidden"> (done)</span> : null}
          </li>
        );
      })}
    </ol>
  );
}

interface IdentityStepProps {
  /** The job whose session needs the step (desktop mode starts the check with it). */
  jobId: string;
  /** The caller's current check (can-enter's identity.checkId, or the check a resume link continues). */
  checkId: string | null;
  /** 'phone': opened from a resume link, not signed in; every call carries the link's token. */
  mode: 'desktop' | 'phone';
  resumeToken?: string | null;
  personName?: string;
  /** Called once the step is complete (every part passed, or the notary confirmed). */
  onComplete?: (check: IdentityCheck) => void;
}

/**
 * The signer's identity step: details, ID photos, selfie, questions, and the end; on a
 * computer it may go on on the phone (a link and a QR code) and carries on by itself when the
 * phone has finished.
 */
export function IdentityStep({ jobId, checkId: initialCheckId, mode, resumeToken = null, personName, onComplete }: IdentityStepProps) {
  const queryClient = useQueryClient();
  const [checkId, setCheckId] = useState(initialCheckId);
  const [isPhoneOpen, setIsPhoneOpen] = useState(false);
  const [access] = useState<IdentityAccess>(() => ({ resumeToken }));
  const checkQuery = useIdentityCheck(checkId, access, { pollMs: isPhoneOpen ? phonePollMs : false });
  const check = checkQuery.data ?? null;
  const stage = getIdentityStage(check);
  const isFinished = stage === 'done' || stage === 'locked' || stage === 'rejected';
  // The phone panel stays until the phone has finished (or the person carries on here).
  const isPhoneShown = isPhoneOpen && Boolean(check) && !isFinished;

  const setCheck = (next: IdentityCheck) => {
    queryClient.setQueryData(identityKeys.check(next.checkId), next);
    setCheckId(next.checkId);
  };

  useEffect(() => {
    if (stage === 'done' && check) onComplete?.(check);
    // Once per completion: a later poll of the same done check must not call again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stage, check?.checkId]);

  let body;
  if (checkId && checkQuery.isPending) {
    body = <p role="status">Loading your identity step…</p>;
  } else if (checkId && checkQuery.error && !check) {
    body = <FormAlert message={checkQuery.error.message} />;
  } else if (isPhoneShown && check) {
    body = <ContinueOnPhone check={check} onClose={() => setIsPhoneOpen(false)} />;
  } else {
    body = <StageBody stage={stage} check={check} jobId={jobId} mode={mode} access={access} personName={personName} onCheck={setCheck} />;
  }

  const canUsePhone = mode === 'desktop' && check && !isFinished && !isPhoneShown && (stage === 'credential' || stage === 'selfie' || stage === 'questions');
  return (
    <section className="card stack identity-step" aria-labelledby="identity-step-title">
      <p className="identity-kicker" id="identity-step-title">
        Prove who you are{check ? `: ${check.personName}` : ''}
      </p>
      {stage !== 'done' ? <StepList stage={stage} check={check} /> : null}
      {body}
      {canUsePhone ? (
        <div className="phone-offer stack">
          <p className="muted">No camera here, or a better one on your phone? Take the photos and answer the questions there.</p>
          <button type="button" className="button" onClick={() => setIsPhoneOpen(true)}>
            Continue on your phone
          </button>
        </div>
      ) : null}
    </section>
  );
}

interface StageBodyProps {
  stage: IdentityStage;
  check: IdentityCheck | null;
  jobId: string;
  mode: 'desktop' | 'phone';
  access: IdentityAccess;
  personName?: string;
  onCheck: (check: IdentityCheck) => void;
}

function StageBody({ stage, check, jobId, mode, access, personName, onCheck }: StageBodyProps) {
  const [shownAt] = useState(() => Date.now());
  if (stage === 'details' || !check) {
    if (mode === 'phone') {
      return (
        <div className="stack">
          <h2 id="identity-stage-title">This identity step has ended</h2>
          <p className="alert error" role="alert">
            {check?.status === 'expired'
              ? 'This identity step has expired. Go back to your computer and start a new one there.'
              : 'Go back to your computer and start the identity step there.'}
          </p>
        </div>
      );
    }
    return <DetailsForm jobId={jobId} personName={personName} onCheck={onCheck} />;
  }
  switch (stage) {
    case 'credential':
      return <CredentialStep key={check.checkId} check={check} access={access} onCheck={onCheck} />;
    case 'selfie':
      return <SelfieStep key={check.checkId} check={check} access={access} onCheck={onCheck} />;
    case 'questions':
      return <QuestionsStep key={check.checkId} check={check} access={access} onCheck={onCheck} />;
    case 'locked':
      return (
        <div className="stack">
          <h2 id="identity-stage-title">The questions are locked</h2>
          <div className="alert error" role="alert">
            {describeKbaStanding(check.kba, shownAt).map((sentence) => (
              <p key={sentence}>{sentence}</p>
            ))}
            <p>{check.nextStep}</p>
          </div>
        </div>
      );
    case 'rejected':
      return (
        <div className="stack">
          <h2 id="identity-stage-title">The notary did not accept your identity step</h2>
          <div className="alert error" role="alert">
            {check.review.reason ? <p>Reason: {check.review.reason}</p> : null}
            <p>{check.nextStep}</p>
          </div>
        </div>
      );
    default:
      return (
        <div className="stack">
          <h2 id="identity-stage-title">Identity step complete</h2>
          <p className="alert success" role="status">
            {mode === 'phone' ? phoneDoneSentence : identityDoneSentence}
          </p>
        </div>
      );
  }
}
