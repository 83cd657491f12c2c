import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { availabilitySlotListSchema, createAvailabilityInputSchema, slotLimits, toInstant, type AvailabilitySlot } from '#shared/availability.ts';
import { formatDate, formatTime } from '#shared/dates.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { availabilityKeys } from '#web/api/availability.ts';
import { api } from '#web/lib/api.ts';
import './availability.css';

const slotsKey = availabilityKeys.slots();

/** The browser's IANA zone: the notary's, as far as this page knows. */
function getBrowserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** "Tue, Dec 1, 2026, 9:00 AM – 12:00 PM CST", in the zone the slot was entered in. */
function describeSlot(slot: AvailabilitySlot): string {
  const options = { timeZone: slot.timeZone };
  const startDay = formatDate(slot.startsAt, options);
  const endDay = formatDate(slot.endsAt, options);
  const endTime = formatTime(slot.endsAt, options);
  return `${startDay}, ${formatTime(slot.startsAt, options)} – ${endDay === startDay ? endTime : `${endDay}, ${endTime}`}`;
}

function SlotItem({ slot, onDelete, isDeleting }: { slot: AvailabilitySlot; onDelete?: () => void; isDeleting?: boolean }) {
  const text = describeSlot(slot);
  return (
    <li className="slot-item">
      <span className="slot-text">
        {text}
        <span className="muted"> ({slot.timeZone})</span>
      </span>
      {onDelete ? (
        <button type="button" className="button" aria-label={`Delete the slot ${text}`} disabled={isDeleting} onClick={onDelete}>
          Delete
        </button>
      ) : null}
    </li>
  );
}

/**
 * The notary's scheduled availability (/dashboard?tab=availability): upcoming slots with
 * Delete, recent past ones, and a form adding one slot (a day, a start and an end) in the notary's
 * time zone, named on the page.
 */
export function AvailabilityPanel() {
  const queryClient = useQueryClient();
  const timeZone = getBrowserTimeZone();
  const [form, setForm] = useState({ date: '', start: '', end: '' });
  const [formError, setFormError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const slots = useQuery({ queryKey: slotsKey, queryFn: () => api.get('/api/availability', availabilitySlotListSchema) });
  const add = useMutation({
    mutationFn: (input: unknown) => api.post('/api/availability', input, availabilitySlotListSchema),
    onSuccess: (created) => {
      setForm({ date: '', start: '', end: '' });
      const [slot] = created.items;
      setNotice(slot ? `Added ${describeSlot(slot)}.` : null);
      void queryClient.invalidateQueries({ queryKey: slotsKey });
    },
    onError: (error) => setFormError(error.message),
  });
  const remove = useMutation({
    mutationFn: (slot: AvailabilitySlot) => api.delete(`/api/availability/${slot.id}`),
    onSuccess: (_data, slot) => {
      setNotice(`Deleted ${describeSlot(slot)}.`);
      void queryClient.invalidateQueries({ queryKey: slotsKey });
    },
    onError: () => setNotice(null),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    setNotice(null);
    if (!form.date || !form.start || !form.end) {
      setFormError('Choose a date, a start time and an end time.');
      return;
    }
    const input = { timeZone, slots: [{ start: `${form.date}T${form.start}`, end: `${form.date}T${form.end}` }] };
    const parsed = createAvailabilityInputSchema.safeParse(input);
    if (!parsed.success) {
      setFormError(parsed.error.issues[0]?.message ?? 'Check the slot’s times.');
      return;
    }
    const start = toInstant(input.slots[0]?.start ?? '', timeZone);
    if (start && start.getTime() < Date.now()) {
      setFormError('The slot starts in the past; choose a time from now on.');
      return;
    }
    add.mutate(parsed.data);
  };

  const items = slots.data?.items ?? [];
  const upcoming = items.filter((slot) => !slot.isPast);
  const past = items.filter((slot) => slot.isPast);
  return (
    <section className="stack availability-panel" aria-labelledby="availability-title">
      <h2 id="availability-title">Your availability</h2>
      <p>
        The times you can take notarizations. Times are in <strong>{timeZone}</strong>, your device’s time zone.
      </p>
      <FormAlert message={notice} tone="success" />
      <FormAlert message={remove.error ? `The slot was not deleted: ${remove.error.message}` : null} />
      <h3>Upcoming slots</h3>
      {slots.isPending ? <p role="status">Loading your availability…</p> : null}
      <FormAlert message={slots.error ? `Your availability could not be loaded: ${slots.error.message}` : null} />
      {slots.data && upcoming.length === 0 ? <p className="empty">You have no upcoming slots. Add the times you can take notarizations below.</p> : null}
      {upcoming.length > 0 ? (
        <ul className="slot-list" aria-label="Upcoming slots">
          {upcoming.map((slot) => (
            <SlotItem key={slot.id} slot={slot} isDeleting={remove.isPending && remove.variables?.id === slot.id} onDelete={() => remove.mutate(slot)} />
          ))}
        </ul>
      ) : null}

      <form className="card stack" onSubmit={submit} aria-labelledby="availability-add-title" noValidate>
        <h3 id="availability-add-title">Add a slot</h3>
        <div className="row wrap align-end">
          <Field label="Date" type="date" value={form.date} onChange={(event) => setForm({ ...form, date: event.target.value })} required />
          <Field label="Start time" type="time" value={form.start} onChange={(event) => setForm({ ...form, start: event.target.value })} required />
          <Field label="End time" type="time" value={form.end} onChange={(event) => setForm({ ...form, end: event.target.value })} required />
        </div>
        <p className="field-hint">
          In {timeZone}. A slot lasts {slotLimits.minMinutes} minutes to {slotLimits.maxHours} hours and may not overlap another.
        </p>
        <FormAlert message={formError} />
        <div>
          <button type="submit" className="button primary" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add slot'}
          </button>
        </div>
      </form>

      {past.length > 0 ? (
        <>
          <h3>Recent past slots</h3>
          <ul className="slot-list" aria-label="Recent past slots">
            {past.map((slot) => (
              <SlotItem key={slot.id} slot={slot} />
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
