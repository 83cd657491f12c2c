import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import type { IdentityCheck, KbaQuestions, KbaResult } from '#shared/identity.ts';
import { correctAnswersToPass, policyFor } from '#shared/identity-policies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { identityCalls, type IdentityAccess } from './api/identity-queries.ts';
import {
  describeKbaResult,
  describeKbaStanding,
  describeQuestionRules,
  formatCountdown,
  formatDuration,
  getLocalDeadline,
  getTimeAnnouncement,
} from './identity-words.ts';

interface StepProps {
  check: IdentityCheck;
  access: IdentityAccess;
  onCheck: (check: IdentityCheck) => void;
}

type Phase = { name: 'intro' } | { name: 'questions'; questions: KbaQuestions; deadline: number } | { name: 'result'; result: KbaResult };

const developmentNotice = 'These questions come from the development provider: they are made up and prove nothing about who you are.';

/** The knowledge-based questions: the time limit said first, then the timed questions, then the result. */
export function QuestionsStep({ check, access, onCheck }: StepProps) {
  const [phase, setPhase] = useState<Phase>({ name: 'intro' });
  const [isStarting, setIsStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const rule = policyFor(check.policyCode).kba;
  // The clock the standing sentences are read against: when this step was shown (a render stays pure).
  const [shownAt] = useState(() => Date.now());

  const start = async () => {
    setError(null);
    setIsStarting(true);
    try {
      const questions = await identityCalls.getQuestions(check.checkId, access);
      setPhase({ name: 'questions', questions, deadline: getLocalDeadline(questions, Date.now()) });
    } catch (caught) {
      // 409: the questions may not start now (locked, or no try left): the server says why.
      setError(caught instanceof ApiError ? caught.message : 'The questions could not be loaded. Check your connection and try again.');
    } finally {
      setIsStarting(false);
    }
  };

  if (phase.name === 'questions') {
    return (
      <TimedQuestions
        checkId={check.checkId}
        access={access}
        questions={phase.questions}
        deadline={phase.deadline}
        onResult={(result) => setPhase({ name: 'result', result })}
      />
    );
  }

  if (phase.name === 'result') {
    const { result } = phase;
    const standing = describeKbaStanding(result.check.kba, shownAt, undefined, { isAfterTry: true });
    const canRetake =
      !result.passed &&
      result.check.kba.status !== 'locked' &&
      result.check.status !== 'locked' &&
      result.check.kba.attempts < result.check.kba.attemptsAllowed;
    return (
      <div className="stack">
        <h2 id="identity-stage-title">Your result</h2>
        <div className={`alert ${result.passed ? 'success' : 'error'}`} role="status">
          <p className="strong">{describeKbaResult(result)}</p>
          {standing.map((sentence) => (
            <p key={sentence}>{sentence}</p>
          ))}
        </div>
        {canRetake ? (
          <button
            type="button"
            className="button primary"
            onClick={() => {
              onCheck(result.check);
              setPhase({ name: 'intro' });
            }}
          >
            Get ready for the next try
          </button>
        ) : (
          <button type="button" className="button primary" onClick={() => onCheck(result.check)}>
            Continue
          </button>
        )}
      </div>
    );
  }

  const standing = describeKbaStanding(check.kba, shownAt);
  return (
    <div className="stack">
      <h2 id="identity-stage-title">Answer questions about yourself</h2>
      {check.kba.isDevelopmentProvider ? <p className="alert info provider-notice">{developmentNotice}</p> : null}
      <p>{describeQuestionRules(rule, correctAnswersToPass(rule, rule.questionCount))}</p>
      {standing.length > 0 ? (
        <div className="alert info" role="status">
          {standing.map((sentence) => (
            <p key={sentence}>{sentence}</p>
          ))}
        </div>
      ) : null}
      <FormAlert message={error} />
      <button type="button" className="button primary" disabled={isStarting} onClick={() => void start()}>
        {isStarting ? 'Loading the questions…' : 'Start the questions'}
      </button>
    </div>
  );
}

interface TimedQuestionsProps {
  checkId: string;
  access: IdentityAccess;
  questions: KbaQuestions;
  deadline: number;
  onResult: (result: KbaResult) => void;
}

function TimedQuestions({ checkId, access, questions, deadline, onResult }: TimedQuestionsProps) {
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [now, setNow] = useState(() => Date.now());
  const [announcement, setAnnouncement] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isSending, setIsSending] = useState(false);
  const hasSent = useRef(false);
  const answersRef = useRef(answers);
  const left = deadline - now;

  const send = useCallback(
    async (given: Record<string, string>) => {
      if (hasSent.current) return;
      hasSent.current = true;
      setIsSending(true);
      setError(null);
      try {
        const result = await identityCalls.sendAnswers(
          checkId,
          { attemptId: questions.attemptId, answers: Object.entries(given).map(([questionId, choiceId]) => ({ questionId, choiceId })) },
          access,
        );
        onResult(result);
      } catch (caught) {
        hasSent.current = false;
        setError(caught instanceof ApiError ? caught.message : 'Your answers could not be sent. Check your connection and press Send my answers again.');
      } finally {
        setIsSending(false);
      }
    },
    [access, checkId, onResult, questions.attemptId],
  );

  useEffect(() => {
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      const sentence = getTimeAnnouncement(deadline - current);
      if (sentence) setAnnouncement(sentence);
      // When the time is up, what was answered is sent: the server counts the rest as wrong.
      if (current >= deadline) {
        window.clearInterval(timer);
        void send(answersRef.current);
      }
    }, 250);
    return () => window.clearInterval(timer);
  }, [deadline, send]);

  const choose = (questionId: string, choiceId: string) => {
    const next = { ...answers, [questionId]: choiceId };
    answersRef.current = next;
    setAnswers(next);
    setError(null);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const unanswered = questions.questions.filter((question) => !answers[question.id]).length;
    if (unanswered > 0) {
      setError(unanswered === 1 ? 'Answer every question: 1 is not answered yet.' : `Answer every question: ${unanswered} are not answered yet.`);
      return;
    }
    void send(answers);
  };

  const isUrgent = left <= 30_000;
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <h2 id="identity-stage-title">Questions: try {questions.attempt}</h2>
      {questions.providerNotice ? (
        <p className="alert info provider-notice" role="note">
          {questions.providerNotice}
        </p>
      ) : null}
      <div className={`kba-timer${isUrgent ? ' is-urgent' : ''}`}>
        <span>Time left</span>
        <span role="timer" aria-label={`Time left: ${formatDuration(Math.max(0, Math.ceil(left / 1000)))}`} className="kba-clock">
          {formatCountdown(left)}
        </span>
      </div>
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
      {questions.questions.map((question, index) => (
        <fieldset key={question.id} className="stack kba-question">
          <legend>
            {index + 1}. {question.prompt}
          </legend>
          {question.choices.map((choice) => (
            <label key={choice.id} className="checkbox radio-choice">
              <input
                type="radio"
                name={`question-${question.id}`}
                value={choice.id}
                checked={answers[question.id] === choice.id}
                disabled={isSending}
                onChange={() => choose(question.id, choice.id)}
              />
              {choice.label}
            </label>
          ))}
        </fieldset>
      ))}
      <FormAlert message={error} />
      <button type="submit" className="button primary" disabled={isSending}>
        {isSending ? 'Sending your answers…' : 'Send my answers'}
      </button>
    </form>
  );
}
