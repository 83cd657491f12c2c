import { getCalendarDay, formatTime } from '#shared/dates.ts';
import type { GnwBooking, GnwSlot } from '#shared/gnw.ts';

/**
 * The scheduled lane in the browser (decision 051): bookable times grouped by day in the person's
 * zone, and the booked time as an .ics file for their own calendar.
 */
export interface SlotDay {
  /** YYYY-MM-DD in the person's zone. */
  day: string;
  /** "Tuesday, December 1" */
  heading: string;
  slots: Array<GnwSlot & { time: string }>;
}

export function groupSlotsByDay(slots: readonly GnwSlot[], timeZone: string): SlotDay[] {
  const days = new Map<string, SlotDay>();
  let headingFormat: Intl.DateTimeFormat;
  try {
    headingFormat = new Intl.DateTimeFormat('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone });
  } catch {
    headingFormat = new Intl.DateTimeFormat('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' });
  }
  const ordered = [...slots].sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt));
  for (const slot of ordered) {
    const start = new Date(slot.startsAt);
    const day = getCalendarDay(start, timeZone);
    let group = days.get(day);
    if (!group) {
      group = { day, heading: headingFormat.format(start), slots: [] };
      days.set(day, group);
    }
    group.slots.push({ ...slot, time: formatTime(start, { timeZone, locale: 'en-US' }) });
  }
  return [...days.values()];
}

/** 20261201T153000Z */
function icsTime(value: string): string {
  return new Date(value)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** RFC 5545 text: backslashes, semicolons, commas and line breaks escaped. */
function icsText(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');
}

/** Lines longer than 75 characters are folded (a break and a space), as RFC 5545 asks. */
function fold(line: string): string {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > 75) {
    parts.push(rest.slice(0, 75));
    rest = ` ${rest.slice(75)}`;
  }
  parts.push(rest);
  return parts.join('\r\n');
}

/** The booked session as an .ics event; the UID is the booking's, so adding it twice updates one event. */
export function buildBookingIcs(booking: GnwBooking, options: { title: string; joinUrl: string; now?: Date }): string {
  const description = `Your online notarization with ${booking.notaryName}. Join at ${options.joinUrl} a few minutes before the time.`;
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Open RON//Notarize Now//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'BEGIN:VEVENT',
    `UID:${booking.id}@notarize-now`,
    `DTSTAMP:${icsTime((options.now ?? new Date()).toISOString())}`,
    `DTSTART:${icsTime(booking.startsAt)}`,
    `DTEND:${icsTime(booking.endsAt)}`,
    `SUMMARY:${icsText(`Notarization: ${options.title}`)}`,
    `DESCRIPTION:${icsText(description)}`,
    `URL:${options.joinUrl}`,
    `LOCATION:${icsText(options.joinUrl)}`,
    'BEGIN:VALARM',
    'TRIGGER:-PT15M',
    'ACTION:DISPLAY',
    `DESCRIPTION:${icsText('Your notarization starts in 15 minutes.')}`,
    'END:VALARM',
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return `${lines.map(fold).join('\r\n')}\r\n`;
}

/** The join path is offered from 15 minutes before the booked time until it ends. */
export function isTimeToJoin(booking: Pick<GnwBooking, 'startsAt' | 'endsAt'>, now: number = Date.now()): boolean {
  return now >= Date.parse(booking.startsAt) - 15 * 60_000 && now <= Date.parse(booking.endsAt);
}
