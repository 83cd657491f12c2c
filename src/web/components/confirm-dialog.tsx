import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import type { z } from 'zod';

export interface ConfirmRequest {
  /** The question, also the dialog's name: "Delete deed.pdf?" */
  title: string;
  /** What will happen, under the question: "Nora Notary is told by email and can then sign in." */
  description?: string;
  confirmLabel: string;
  cancelLabel?: string;
  /** 'danger' for an action that cannot be undone (red button). */
  confirmTone?: 'primary' | 'danger';
  /** Asks for a reason too (required), labelled with this text. */
  reasonLabel?: string;
  /** Shown under the reason field: who will read it, how long it may be. */
  reasonHint?: string;
  /** The schema the server checks the reason with; its message is shown under the field. */
  reasonSchema?: z.ZodType<string, string>;
  /**
   * A box of this many rows instead of a one-line input. The reason stays one line: Enter adds no
   * line break and pasted line breaks become spaces.
   */
  reasonRows?: number;
  /** One choice among options (radio buttons), required; `onChoice` gets it before `ask` resolves. */
  choice?: { legend: string; options: Array<{ value: string; label: string }>; onChoice: (value: string) => void };
}

interface OpenRequest extends ConfirmRequest {
  resolve: (answer: string | null) => void;
}

/**
 * The in-app replacement for window.confirm and window.prompt: a modal dialog in the page. `ask`
 * resolves with the reason typed ('' when none is asked) once confirmed, null when cancelled.
 * Render `dialog` once in the component that asks.
 */
export function useConfirmDialog(): { dialog: ReactNode; ask: (request: ConfirmRequest) => Promise<string | null> } {
  const [request, setRequest] = useState<OpenRequest | null>(null);
  const ask = useCallback((next: ConfirmRequest) => new Promise<string | null>((resolve) => setRequest({ ...next, resolve })), []);
  const settle = useCallback(
    (answer: string | null) => {
      request?.resolve(answer);
      setRequest(null);
    },
    [request],
  );
  return { dialog: request ? <ConfirmDialog key={request.title} request={request} onSettle={settle} /> : null, ask };
}

function ConfirmDialog({ request, onSettle: settleRequest }: { request: OpenRequest; onSettle: (answer: string | null) => void }) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  // The modal is closed before the asker hears the answer: while it is open the rest of the page is
  // inert, so the asker's focus() on the button that asked (useDecision) would go nowhere.
  const onSettle = (answer: string | null) => {
    dialogRef.current?.close();
    settleRequest(answer);
  };
  const reasonRef = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [choice, setChoice] = useState<string | null>(null);
  const [choiceError, setChoiceError] = useState<string | null>(null);
  const choiceName = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    // The reason to type, or else the safe answer: Enter on an unread question changes nothing.
    (reasonRef.current ?? cancelRef.current)?.focus();
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (request.choice) {
      if (!choice) {
        setChoiceError(`Choose one: ${request.choice.legend.toLowerCase()}`);
        return;
      }
      request.choice.onChoice(choice);
    }
    if (!request.reasonLabel) {
      onSettle('');
      return;
    }
    if (request.reasonSchema) {
      const parsed = request.reasonSchema.safeParse(reason);
      if (!parsed.success) {
        setError(parsed.error.issues[0]?.message ?? 'Give a reason.');
        reasonRef.current?.focus();
        return;
      }
      onSettle(parsed.data);
      return;
    }
    if (!reason.trim()) {
      setError('Give a reason.');
      return;
    }
    onSettle(reason.trim());
  };
  const hintId = request.reasonHint ? `${reasonId}-hint` : null;
  const errorId = error ? `${reasonId}-error` : null;
  const reasonProps = {
    id: reasonId,
    value: reason,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
  };

  return (
    <dialog
      ref={dialogRef}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={request.description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onSettle(null);
      }}
    >
      <form className="stack" onSubmit={submit} noValidate>
        <h2 id={titleId}>{request.title}</h2>
        {request.description ? (
          <p className="dialog-description" id={descriptionId}>
            {request.description}
          </p>
        ) : null}
        {request.choice ? (
          <fieldset className="stack">
            <legend>{request.choice.legend}</legend>
            {request.choice.options.map((option) => (
              <label key={option.value} className="checkbox radio-choice">
                <input type="radio" name={choiceName} value={option.value} checked={choice === option.value} onChange={() => setChoice(option.value)} />
                {option.label}
              </label>
            ))}
            {choiceError ? (
              <p className="field-error" role="alert">
                {choiceError}
              </p>
            ) : null}
          </fieldset>
        ) : null}
        {request.reasonLabel ? (
          <div className="field">
            <label htmlFor={reasonId}>{request.reasonLabel}</label>
            {request.reasonRows ? (
              <textarea
                ref={reasonRef}
                {...reasonProps}
                rows={request.reasonRows}
                onKeyDown={(event: KeyboardEvent<HTMLTextAreaElement>) => {
                  if (event.key === 'Enter') event.preventDefault();
                }}
                onChange={(event) => setReason(event.target.value.replace(/[\r\n]+/g, ' '))}
              />
            ) : (
              <input ref={reasonRef} {...reasonProps} maxLength={500} onChange={(event) => setReason(event.target.value)} />
            )}
            {request.reasonHint ? (
              <p className="field-hint" id={hintId ?? undefined}>
                {request.reasonHint}
              </p>
            ) : null}
            {error ? (
              <p className="field-error" id={`${reasonId}-error`} role="alert">
                {error}
              </p>
            ) : null}
          </div>
        ) : null}
        <div className="actions">
          <button type="submit" className={`button ${request.confirmTone ?? 'primary'}`}>
            {request.confirmLabel}
          </button>
          <button ref={cancelRef} type="button" className="button" onClick={() => onSettle(null)}>
            {request.cancelLabel ?? 'Keep it'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
