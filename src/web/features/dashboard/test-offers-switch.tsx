import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { availabilityKeys } from '#web/api/availability.ts';
import { gnwApi } from '#web/api/gnw.ts';
import { useAvailabilityStatus } from './use-availability-status.ts';

/**
 * The notary's opt-in to test offers from administrators (decision 051: the notary loop test page
 * sends one only to a notary who agreed). Its state is the availability status's
 * `accepts_test_offers`; a server that does not send it leaves the switch out rather than guess.
 */
export function TestOffersSwitch() {
  const queryClient = useQueryClient();
  const labelId = useId();
  const hintId = useId();
  const status = useAvailabilityStatus();
  const [error, setError] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: (accepts: boolean) => gnwApi.setTestOffers(accepts),
    onMutate: () => setError(null),
    onError: (failure) => setError(`Test offers were not changed. ${failure.message}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: availabilityKeys.status() }),
  });
  const accepts = status.data?.accepts_test_offers;
  if (typeof accepts !== 'boolean') return null;
  const shown = change.isPending && change.variables !== undefined ? change.variables : accepts;
  return (
    <div className="availability-toggle test-offers">
      <div className="availability-row">
        <span id={labelId} className="availability-label">
          Receive test offers from administrators
        </span>
        <button
          type="button"
          role="switch"
          className="availability-switch"
          aria-checked={shown}
          aria-labelledby={labelId}
          aria-describedby={hintId}
          disabled={change.isPending}
          onClick={() => change.mutate(!shown)}
        >
          <span className="availability-knob" aria-hidden="true" />
        </button>
      </div>
      <p id={hintId} className="availability-note">
        A test rings like a real request while you are online; accepting it only records your answer.
      </p>
      {error ? (
        <p className="availability-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
