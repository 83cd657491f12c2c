import { useState, type FormEvent } from 'react';
import type { CalendarItem } from '#shared/calendar.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { useCreateEvent, useDeleteEvent, useUpdateEvent } from '#web/api/calendar.ts';
import { describeZone } from './calendar-words.ts';

interface EventDialogProps {
  /** The event to change, or null to add one on `day`. */
  event: CalendarItem | null;
  day: string;
  timeZone: string;
  onClose: (notice?: string) => void;
}

const messageOf = (caught: unknown) => (caught instanceof ApiError ? caught.message : 'That did not work. Check your connection and try again.');

/** Add or change one of the person's own events: a title, the day, a start and an end in their zone, notes. */
export function EventDialog({ event, day, timeZone, onClose }: EventDialogProps) {
  const [title, setTitle] = useState(event?.title ?? '');
  const [date, setDate] = useState(event?.localStart.slice(0, 10) ?? day);
  const [start, setStart] = useState(event?.localStart.slice(11, 16) ?? '09:00');
  const [endDate, setEndDate] = useState(event?.localEnd?.slice(0, 10) ?? day);
  const [end, setEnd] = useState(event?.localEnd?.slice(11, 16) ?? '10:00');
  const [notes, setNotes] = useState(event?.notes ?? '');
  const [error, setError] = useState<string | null>(null);
  const create = useCreateEvent();
  const update = useUpdateEvent();
  const remove = useDeleteEvent();
  const { dialog, ask } = useConfirmDialog();
  const isBusy = create.isPending || update.isPending || remove.isPending;

  const submit = async (submitEvent: FormEvent) => {
    submitEvent.preventDefault();
    setError(null);
    const input = { title, start: `${date}T${start}`, end: `${endDate}T${end}`, timeZone, notes: notes.trim() === '' ? null : notes };
    try {
      if (event) await update.mutateAsync({ id: event.id, input });
      else await create.mutateAsync(input);
      onClose(event ? `“${title.trim()}” was changed.` : `“${title.trim()}” was added to your calendar.`);
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  const deleteEvent = async () => {
    if (!event) return;
    const answer = await ask({
      title: `Delete “${event.title}”?`,
      description: 'It leaves this calendar and, at its next refresh, the calendar apps that subscribe to your feed.',
      confirmLabel: 'Delete the event',
      confirmTone: 'danger',
    });
    if (answer === null) return;
    try {
      await remove.mutateAsync(event.id);
      onClose(`“${event.title}” was deleted.`);
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  return (
    <ModalDialog title={event ? 'Change the event' : 'Add an event'} onClose={() => onClose()}>
      {dialog}
      <form className="stack" onSubmit={(submitEvent) => void submit(submitEvent)} noValidate>
        <FormAlert message={error} />
        <Field label="Title" value={title} onChange={(change) => setTitle(change.target.value)} maxLength={200} required />
        <div className="calendar-time-fields">
          <Field label="Starts on" type="date" value={date} onChange={(change) => setDate(change.target.value)} required />
          <Field label="Starts at" type="time" value={start} onChange={(change) => setStart(change.target.value)} required />
          <Field label="Ends on" type="date" value={endDate} onChange={(change) => setEndDate(change.target.value)} required />
          <Field label="Ends at" type="time" value={end} onChange={(change) => setEnd(change.target.value)} required />
        </div>
        <p className="field-hint">Times are in your time zone, {describeZone(timeZone)}.</p>
        <div className="field">
          <label htmlFor="calendar-event-notes">Notes (optional)</label>
          <textarea id="calendar-event-notes" value={notes} onChange={(change) => setNotes(change.target.value)} maxLength={2000} rows={3} />
        </div>
        <div className="actions">
          <button type="submit" className="button primary" disabled={isBusy}>
            {event ? 'Save the changes' : 'Add the event'}
          </button>
          <button type="button" className="button" onClick={() => onClose()} disabled={isBusy}>
            Cancel
          </button>
          {event ? (
            <button type="button" className="button danger" onClick={() => void deleteEvent()} disabled={isBusy}>
              Delete
            </button>
          ) : null}
        </div>
      </form>
    </ModalDialog>
  );
}
