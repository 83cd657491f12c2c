import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { GnwJob } from '#shared/gnw.ts';
import { gnwApi, gnwKeys } from '#web/api/gnw.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { groupSlotsByDay } from './booking-calendar.ts';

/**
 * Bookable times in the person's zone, grouped by day: one group of radio buttons (arrow keys move
 * between times), then Book. A time someone else took first answers 409 slot_taken: the sentence,
 * and the times again, fresh.
 */
export function SlotPicker({ job }: { job: GnwJob }) {
  const queryClient = useQueryClient();
  const name = useId();
  const slotsKey = [...gnwKeys.job(job.jobId), 'slots', job.timeZone] as const;
  const slots = useQuery({ queryKey: slotsKey, queryFn: () => gnwApi.slots({ jobId: job.jobId, timeZone: job.timeZone, days: 7 }), retry: false });
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isBooking, setIsBooking] = useState(false);
  const days = slots.data ? groupSlotsByDay(slots.data.slots, job.timeZone) : [];
  const valueOf = (slot: { notaryId: string; startsAt: string }) => `${slot.notaryId}|${slot.startsAt}`;

  const book = async () => {
    const slot = slots.data?.slots.find((item) => valueOf(item) === chosen);
    if (!slot) {
      setError('Choose a time first.');
      return;
    }
    setError(null);
    setIsBooking(true);
    try {
      queryClient.setQueryData(
        gnwKeys.job(job.jobId),
        await gnwApi.book({ jobId: job.jobId, notaryId: slot.notaryId, startsAt: slot.startsAt, timeZone: job.timeZone }),
      );
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The time could not be booked. Please try again.');
      if (caught instanceof ApiError && caught.code === 'slot_taken') {
        setChosen(null);
        await queryClient.invalidateQueries({ queryKey: slotsKey });
      }
    } finally {
      setIsBooking(false);
    }
  };

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void book();
      }}
    >
      <p className="muted">Times are shown in your time zone, {job.timeZone.replace(/_/g, ' ')}. Each session is booked for 30 minutes.</p>
      {slots.isPending ? <p role="status">Finding free times…</p> : null}
      <FormAlert message={slots.error?.message ?? null} />
      {slots.data && days.length === 0 ? <p role="status">{slots.data.message}</p> : null}
      {days.length > 0 ? (
        <div role="radiogroup" aria-label="Free times">
          {days.map((day) => (
            <fieldset key={day.day} className="gnw-slot-day">
              <legend>{day.heading}</legend>
              <div className="gnw-slot-list">
                {day.slots.map((slot) => (
                  <label key={valueOf(slot)} className="gnw-slot">
                    <input type="radio" name={name} value={valueOf(slot)} checked={chosen === valueOf(slot)} onChange={() => setChosen(valueOf(slot))} />
                    <span className="strong">{slot.time}</span>
                    <span className="muted small">{slot.notaryName}</span>
                  </label>
                ))}
              </div>
            </fieldset>
          ))}
        </div>
      ) : null}
      <FormAlert message={error} />
      <div className="actions">
        <button type="submit" className="button primary gnw-primary" disabled={isBooking || days.length === 0}>
          {isBooking ? 'Booking…' : 'Book this time'}
        </button>
        <button type="button" className="button" onClick={() => void queryClient.invalidateQueries({ queryKey: slotsKey })}>
          Show the times again
        </button>
      </div>
    </form>
  );
}
