import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime } from '#shared/dates.ts';
import type { GnwBooking, GnwJob } from '#shared/gnw.ts';
import { sessionEntryPath } from '#shared/session-steps.ts';
import { buildBookingIcs, isTimeToJoin } from './booking-calendar.ts';
import { describeHold } from './setup-view.ts';

/** Offers the booking as an .ics file made here in the browser. */
function downloadIcs(booking: GnwBooking, title: string, joinUrl: string) {
  const blob = new Blob([buildBookingIcs(booking, { title, joinUrl })], { type: 'text/calendar;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = 'notarization.ics';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** The booked time in the person's zone, Add to calendar, and the way in once it is nearly time. */
export function BookedView({ job }: { job: GnwJob }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const booking = job.booking;
  if (!booking) return <p>Your time is booked; its details are on their way by email.</p>;
  const joinPath = sessionEntryPath(job.jobId);
  const canJoin = isTimeToJoin(booking, now);
  return (
    <div className="stack">
      <p>
        <strong>{formatDateTime(booking.startsAt, { timeZone: booking.timeZone })}</strong> with {booking.notaryName}.
      </p>
      <p className="muted small">An invitation with this time was sent to your email, with reminders a day and 15 minutes before.</p>
      {canJoin ? (
        <div className="actions">
          <Link className="button primary gnw-primary" to={joinPath}>
            Join your session
          </Link>
        </div>
      ) : (
        <p>The way into your session appears here 15 minutes before the time. Before then, you can prove your identity on the session page.</p>
      )}
      <div className="actions">
        <button type="button" className="button" onClick={() => downloadIcs(booking, job.title, new URL(joinPath, window.location.origin).href)}>
          Add to calendar
        </button>
        {canJoin ? null : (
          <Link className="button" to={joinPath}>
            Prove your identity now
          </Link>
        )}
      </div>
      <p className="muted small">{describeHold(job.payment)}</p>
    </div>
  );
}
