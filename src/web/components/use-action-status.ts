import { useCallback, useState } from 'react';
import { ApiError } from '#web/lib/api-client.ts';

const fallbackMessage = 'Something went wrong. Please try again.';

/**
 * Runs a user action and keeps what to tell the person: the server's error text (`message`, else
 * `error` and `detail`, already picked by the API client) or a success notice.
 */
export function useActionStatus(onError?: (caught: unknown) => void | Promise<void>) {
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = useCallback(
    async (action: () => Promise<unknown>, success?: string) => {
      setError(null);
      setNotice(null);
      try {
        await action();
        if (success) setNotice(success);
      } catch (caught) {
        await onError?.(caught);
        setError(caught instanceof ApiError ? caught.message : fallbackMessage);
      }
    },
    [onError],
  );
  return { error, notice, run, setError };
}
