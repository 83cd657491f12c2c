import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '#web/lib/api-client.ts';
import { useConfirmDialog, type ConfirmRequest } from './confirm-dialog.tsx';
import { FormAlert } from './field.tsx';

interface Outcome {
  tone: 'success' | 'error';
  message: string;
}

/**
 * A decision about one item of a list (approve, reject...): ask in the in-app dialog, run it, then
 * say what happened in a notice that takes the focus (the item's buttons may be gone by then). A
 * cancelled question puts the focus back on the button that asked it.
 */
export function useDecision(): {
  dialog: ReactNode;
  outcome: ReactNode;
  busyId: string | null;
  decide: (itemId: string, opener: HTMLElement, request: ConfirmRequest, act: (reason: string) => Promise<{ message: string }>) => Promise<void>;
} {
  const { dialog, ask } = useConfirmDialog();
  const [result, setResult] = useState<Outcome | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (result) outcomeRef.current?.focus();
  }, [result]);

  const decide = useCallback(
    async (itemId: string, opener: HTMLElement, request: ConfirmRequest, act: (reason: string) => Promise<{ message: string }>) => {
      const answer = await ask(request);
      if (answer === null) {
        opener.focus();
        return;
      }
      setBusyId(itemId);
      setResult(null);
      try {
        const { message } = await act(answer);
        setResult({ tone: 'success', message });
      } catch (caught) {
        setResult({ tone: 'error', message: caught instanceof ApiError ? caught.message : 'Something went wrong. Please try again.' });
      } finally {
        setBusyId(null);
      }
    },
    [ask],
  );

  const outcome = (
    <div ref={outcomeRef} tabIndex={-1} className="decision-outcome">
      <FormAlert message={result?.message ?? null} tone={result?.tone ?? 'success'} />
    </div>
  );
  return { dialog, outcome, busyId, decide };
}
