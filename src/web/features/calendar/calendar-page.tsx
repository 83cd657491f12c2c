import './calendar.css';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import type { CalendarItem } from '#shared/calendar.ts';
import { getCalendarDay } from '#shared/dates.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useCalendar } from '#web/api/calendar.ts';
import {
  calendarViews,
  dayHeading,
  dayStartInstant,
  daysBetween,
  itemTimes,
  itemsByDay,
  stepAnchor,
  viewDays,
  viewHeading,
  weekdayNames,
  type CalendarView,
} from './calendar-grid.ts';
import { describeZone } from './calendar-words.ts';
import { EventDialog } from './event-dialog.tsx';
import { FeedPanel } from './feed-panel.tsx';

const viewLabels: Record<CalendarView, string> = { month: 'Month', week: 'Week', agenda: 'Agenda' };
/** What each kind of item says before its title, on screen and to a screen reader. */
const kindPrefixes: Record<CalendarItem['kind'], string> = { session: 'Session: ', availability: '', event: '' };
const kindNames: Record<CalendarItem['kind'], string> = { session: 'Session: ', availability: '', event: 'Event: ' };

function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** One item: a session opens its job, a slot the availability tab, one's own event its dialog. */
function ItemEntry({ item, day, onEdit }: { item: CalendarItem; day: string; onEdit: (item: CalendarItem) => void }) {
  const text = (
    <>
      <span className="calendar-item-time">{itemTimes(item, day)}</span>{' '}
      <span className="calendar-item-title">
        {kindPrefixes[item.kind]}
        {item.title}
      </span>
    </>
  );
  const className = `calendar-item calendar-item-${item.kind}`;
  const label = `${kindNames[item.kind]}${item.title}, ${itemTimes(item, day)}`;
  if (item.link) {
    return (
      <Link className={className} to={item.link} aria-label={label}>
        {text}
      </Link>
    );
  }
  return (
    <button type="button" className={className} onClick={() => onEdit(item)} aria-label={`${label}. Change or delete it`}>
      {text}
    </button>
  );
}

/** The calendar page (decision 052): month, week and agenda views of the person's calendar, their own events, and their feed. */
export function CalendarPage() {
  const [timeZone] = useState(browserZone);
  const today = getCalendarDay(new Date(), timeZone);
  const [view, setView] = useState<CalendarView>(() =>
    typeof window !== 'undefined' && window.matchMedia?.('(max-width: 600px)').matches ? 'agenda' : 'month',
  );
  const [anchor, setAnchor] = useState(today);
  const [editing, setEditing] = useState<{ event: CalendarItem | null; day: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { first, end } = viewDays(view, anchor);
  const calendar = useCalendar(dayStartInstant(first, timeZone), dayStartInstant(end, timeZone), timeZone);
  const byDay = useMemo(() => itemsByDay(calendar.data?.items ?? []), [calendar.data]);
  const days = daysBetween(first, end);
  const month = anchor.slice(0, 7);
  const shownDays = view === 'agenda' ? days.filter((day) => byDay.has(day)) : days;

  const closeDialog = (message?: string) => {
    setEditing(null);
    if (message) setNotice(message);
  };

  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="calendar-title">
        <div className="row between wrap">
          <h1 id="calendar-title">Calendar</h1>
          <button
            type="button"
            className="button primary"
            onClick={() => setEditing({ event: null, day: anchor < today && view !== 'month' ? today : anchor })}
          >
            Add an event
          </button>
        </div>
        <p className="field-hint">
          Your sessions, your availability and your own events, in your time zone ({describeZone(timeZone)}). Choose a session to open its job.
        </p>
        <FormAlert message={notice} tone="success" />
        <div className="calendar-toolbar row between wrap">
          <div className="row wrap" role="group" aria-label="Move through the calendar">
            <button type="button" className="button" onClick={() => setAnchor(stepAnchor(view, anchor, -1))}>
              Previous<span className="visually-hidden"> {view === 'agenda' ? '30 days' : view}</span>
            </button>
            <button type="button" className="button" onClick={() => setAnchor(today)}>
              Today
            </button>
            <button type="button" className="button" onClick={() => setAnchor(stepAnchor(view, anchor, 1))}>
              Next<span className="visually-hidden"> {view === 'agenda' ? '30 days' : view}</span>
            </button>
          </div>
          <h2 className="calendar-heading" aria-live="polite">
            {viewHeading(view, anchor)}
          </h2>
          <div className="row wrap" role="group" aria-label="View">
            {calendarViews.map((option) => (
              <button
                key={option}
                type="button"
                className={option === view ? 'button primary' : 'button'}
                aria-pressed={option === view}
                onClick={() => setView(option)}
              >
                {viewLabels[option]}
              </button>
            ))}
          </div>
        </div>
        {calendar.isError ? <FormAlert message="The calendar could not be loaded. Check your connection and try again." /> : null}
        {calendar.isLoading ? <p role="status">Loading your calendar…</p> : null}
        {calendar.data && view === 'agenda' && shownDays.length === 0 ? (
          <p className="empty-state">Nothing in these 30 days. Add an event, or move on with Next.</p>
        ) : null}
        {calendar.data && view !== 'agenda' && calendar.data.items.length === 0 ? (
          <p className="empty-state">Nothing planned in this {view === 'week' ? 'week' : 'month'}. Add an event, or move on with Next.</p>
        ) : null}
        {calendar.data ? (
          view === 'month' ? (
            <table className="calendar-month">
              <caption className="visually-hidden">{viewHeading(view, anchor)}</caption>
              <thead>
                <tr>
                  {weekdayNames.map((name) => (
                    <th key={name} scope="col">
                      <abbr title={name}>{name.slice(0, 3)}</abbr>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {[0, 1, 2, 3, 4, 5].map((week) => (
                  <tr key={week}>
                    {days.slice(week * 7, week * 7 + 7).map((day) => {
                      const items = byDay.get(day) ?? [];
                      const classes = [
                        'calendar-day',
                        day.slice(0, 7) === month ? '' : 'calendar-day-outside',
                        day === today ? 'calendar-day-today' : '',
                        items.length ? '' : 'calendar-day-empty',
                      ];
                      return (
                        <td key={day} className={classes.filter(Boolean).join(' ')} aria-current={day === today ? 'date' : undefined}>
                          <div className="calendar-day-number">
                            <span aria-hidden="true">{Number(day.slice(8, 10))}</span>
                            <span className="visually-hidden">{dayHeading(day)}</span>
                            <span className="calendar-day-name" aria-hidden="true">
                              {dayHeading(day)}
                            </span>
                          </div>
                          <ul className="calendar-items">
                            {items.map((item) => (
                              <li key={item.id}>
                                <ItemEntry item={item} day={day} onEdit={(event) => setEditing({ event, day })} />
                              </li>
                            ))}
                          </ul>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <ol className="calendar-days">
              {shownDays.map((day) => {
                const items = byDay.get(day) ?? [];
                return (
                  <li key={day} className={day === today ? 'calendar-day-today' : undefined} aria-current={day === today ? 'date' : undefined}>
                    <h3>{dayHeading(day)}</h3>
                    {items.length === 0 ? (
                      <p className="field-hint">Nothing planned.</p>
                    ) : (
                      <ul className="calendar-items">
                        {items.map((item) => (
                          <li key={item.id}>
                            <ItemEntry item={item} day={day} onEdit={(event) => setEditing({ event, day })} />
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                );
              })}
            </ol>
          )
        ) : null}
      </section>
      <FeedPanel />
      {editing ? <EventDialog event={editing.event} day={editing.day} timeZone={timeZone} onClose={closeDialog} /> : null}
    </div>
  );
}
