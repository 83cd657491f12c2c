import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';

export interface ConfirmRequest {
  /** The question, also the dialog's name: "Delete deed.pdf?" */
  title: string;
  confirmLabel: string;
  cancelLabel?: string;
  /** Asks for a reason too (required), labelled with this text. */
  reasonLabel?: string;
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

function ConfirmDialog({ request, onSettle }: { request: OpenRequest; onSettle: (answer: string | null) => void }) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const reasonRef = useRef<HTMLInputElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    // The reason to type, or else the safe answer: Enter on an unread question changes nothing.
    (reasonRef.current ?? cancelRef.current)?.focus();
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (request.reasonLabel && !reason.trim()) {
      setError('Give a reason.');
      return;
    }
    onSettle(request.reasonLabel ? reason.trim() : '');
  };

  return (
    <dialog
      ref={dialogRef}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onSettle(null);
      }}
    >
      <form className="stack" onSubmit={submit} noValidate>
        <h2 id={titleId}>{request.title}</h2>
        {request.reasonLabel ? (
          <div className="field">
            <label htmlFor={reasonId}>{request.reasonLabel}</label>
            <input
              ref={reasonRef}
              id={reasonId}
              value={reason}
              maxLength={500}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${reasonId}-error` : undefined}
              onChange={(event) => setReason(event.target.value)}
            />
            {error ? (
              <p className="field-error" id={`${reasonId}-error`} role="alert">
                {error}
              </p>
            ) : null}
          </div>
        ) : null}
        <div className="actions">
          <button type="submit" className="button primary">
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
