import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { availabilityMessages, availabilityStatusSchema, type AvailabilityStatus } from '#shared/availability.ts';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { availabilityStatusKey, getBrowserSessionId, useAvailabilityStatus } from './use-availability-status.ts';
import './availability-toggle.css';

/**
 * The online switch in the sidebar, shown to notaries and to platform witnesses (decision 051; a
 * witness's label says what they are online for): hidden when the status call
 * answers 403, 'Failed to load availability status' when it fails otherwise; a failed change puts the
 * switch back and says 'Failed to update availability'. The heartbeat runs at the app's root
 * (availability-heartbeat.tsx) and updates the same status.
 */
export function AvailabilityToggle({ isWitnessOnly = false }: { isWitnessOnly?: boolean }) {
  const queryClient = useQueryClient();
  const labelId = useId();
  const [sessionId] = useState(getBrowserSessionId);
  const [updateError, setUpdateError] = useState<string | null>(null);
  const status = useAvailabilityStatus();
  const toggle = useMutation({
    mutationFn: (isAvailable: boolean) =>
      api.post('/api/notary-availability/toggle', { is_available: isAvailable, session_id: sessionId }, availabilityStatusSchema),
    onMutate: async (isAvailable) => {
      setUpdateError(null);
      await queryClient.cancelQueries({ queryKey: availabilityStatusKey });
      const previous = queryClient.getQueryData<AvailabilityStatus>(availabilityStatusKey);
      if (previous) queryClient.setQueryData<AvailabilityStatus>(availabilityStatusKey, { ...previous, is_available: isAvailable });
      return { previous };
    },
    onError: (error, _isAvailable, context) => {
      if (context?.previous) queryClient.setQueryData(availabilityStatusKey, context.previous);
      const detail = error instanceof ApiError && error.status >= 400 && error.status < 500 ? error.message : null;
      setUpdateError(detail ? `${availabilityMessages.updateFailed}. ${detail}` : availabilityMessages.updateFailed);
    },
    onSuccess: (next) => queryClient.setQueryData(availabilityStatusKey, next),
  });

  const isOnline = status.data?.is_available ?? false;
  if (status.error instanceof ApiError && status.error.status === 403) return null;
  if (status.isError) {
    return (
      <div className="availability-toggle">
        <p className="availability-error" role="alert">
          {availabilityMessages.loadFailed}
        </p>
        <button type="button" className="button" onClick={() => void status.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  const data = status.data;
  return (
    <div className="availability-toggle">
      <div className="availability-row">
        <span id={labelId} className="availability-label">
          {isWitnessOnly ? 'Available to witness notarizations' : 'Available for notarizations'}
        </span>
        <button
          type="button"
          role="switch"
          className="availability-switch"
          aria-checked={isOnline}
          aria-labelledby={labelId}
          disabled={!data || toggle.isPending}
          onClick={() => toggle.mutate(!isOnline)}
        >
          <span className="availability-knob" aria-hidden="true" />
        </button>
        <span className="availability-state" aria-hidden="true">
          {data ? (isOnline ? 'Online' : 'Offline') : '…'}
        </span>
      </div>
      {data && !data.can_go_online && !isOnline && data.reason ? <p className="availability-note">{data.reason}</p> : null}
      {updateError ? (
        <p className="availability-error" role="alert">
          {updateError}
        </p>
      ) : null}
    </div>
  );
}
