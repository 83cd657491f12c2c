/**
 * A calendar invitation (iCalendar, RFC 5545, with the iTIP methods of RFC 5546) for a booked session
 * (decision 051), written by hand: one VEVENT, every line ended by CRLF and folded at 75 octets, text
 * values escaped. REQUEST invites (or updates, with a higher SEQUENCE); CANCEL takes the event off the
 * calendar of whoever received the REQUEST with the same UID.
 */

export type CalendarMethod = 'REQUEST' | 'CANCEL';

export interface CalendarPerson {
  name: string;
  email: string;
}

export interface CalendarInvite {
  method: CalendarMethod;
  /** Stable for the booking: every update and the cancel carry the same one (bookingUid). */
  uid: string;
  /** Raised on every change sent, so calendars apply the newest. */
  sequence: number;
  startsAt: Date;
  /** Null when no length was recorded: the event is then a start time alone (RFC 5545 3.6.1). */
  endsAt: Date | null;
  /** When this version of the invitation was made (DTSTAMP). */
  stampedAt: Date;
  summary: string;
  description: string;
  /** The job page. */
  url: string;
  organizer: CalendarPerson;
  attendees: readonly CalendarPerson[];
}

const crlf = '\r\n';
const maxLineOctets = 75;

/** A UID stable per booking, in the platform's own domain: booking-{id}@{host of PUBLIC_URL}. */
export function bookingUid(bookingId: string, publicUrl: string): string {
  let host = 'localhost';
  try {
    host = new URL(publicUrl).hostname || host;
  } catch {
    // A PUBLIC_URL that is no URL cannot happen (config checks it); the UID stays unique by its id.
  }
  return `booking-${bookingId}@${host}`;
}

/** A UTC date-time in the form iCalendar writes it: 20261201T153000Z. */
export function formatCalendarTime(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** A TEXT value (RFC 5545 3.3.11): backslash, semicolon and comma escaped, every line break as \n, other controls dropped. */
export function escapeCalendarText(text: string): string {
  return (
    text
      .replace(/\\/g, '\\\\')
      .replace(/;/g, '\\;')
      .replace(/,/g, '\\,')
      .replace(/\r\n|\r|\n/g, '\\n')
      // eslint-disable-next-line no-control-regex -- control characters are what is being removed
      .replace(/[\u0000-\u001f\u007f]/g, '')
  );
}

/**
 * A parameter value (CN=…): always quoted, as a name may hold a comma, colon or semicolon. A quoted
 * value cannot hold a double quote or a control character (RFC 5545 3.1), so those are dropped.
 */
function quoteParameter(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters cannot appear in a parameter value
  return `"${value.replace(/["\u0000-\u001f\u007f]/g, '').trim()}"`;
}

/** A mail address as a CAL-ADDRESS; anything that could break the line is dropped. */
function mailto(email: string): string {
  // eslint-disable-next-line no-control-regex -- see above
  return `mailto:${email.replace(/[\s\u0000-\u001f\u007f"<>]/g, '')}`;
}

/**
 * Folds a content line (RFC 5545 3.1): no line longer than 75 octets of UTF-8, each continuation
 * starting with one space (which counts toward its 75), never splitting a character.
 */
export function foldCalendarLine(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= maxLineOctets) return line;
  const pieces: string[] = [];
  let current = '';
  let currentOctets = 0;
  let limit = maxLineOctets;
  for (const character of line) {
    const octets = Buffer.byteLength(character, 'utf8');
    if (currentOctets + octets > limit) {
      pieces.push(current);
      current = '';
      currentOctets = 0;
      // Every later piece starts with the space of the fold.
      limit = maxLineOctets - 1;
    }
    current += character;
    currentOctets += octets;
  }
  pieces.push(current);
  return pieces.join(`${crlf} `);
}

/** The whole invitation: a VCALENDAR of one VEVENT, CRLF line ends, folded. */
export function buildCalendarInvite(invite: CalendarInvite): string {
  const isCancel = invite.method === 'CANCEL';
  const lines = [
    'BEGIN:VCALENDAR',
    'PRODID:-//Open RON//Notarize Now//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    `METHOD:${invite.method}`,
    'BEGIN:VEVENT',
    `UID:${invite.uid}`,
    `SEQUENCE:${invite.sequence}`,
    `DTSTAMP:${formatCalendarTime(invite.stampedAt)}`,
    `DTSTART:${formatCalendarTime(invite.startsAt)}`,
    ...(invite.endsAt ? [`DTEND:${formatCalendarTime(invite.endsAt)}`] : []),
    `SUMMARY:${escapeCalendarText(invite.summary)}`,
    `DESCRIPTION:${escapeCalendarText(invite.description)}`,
    `URL:${invite.url.replace(/[\s"]/g, '')}`,
    `ORGANIZER;CN=${quoteParameter(invite.organizer.name)}:${mailto(invite.organizer.email)}`,
    ...invite.attendees.map((person) => `ATTENDEE;CN=${quoteParameter(person.name)};ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:${mailto(person.email)}`),
    `STATUS:${isCancel ? 'CANCELLED' : 'CONFIRMED'}`,
    'TRANSP:OPAQUE',
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return lines.map(foldCalendarLine).join(crlf) + crlf;
}

/** The address inside a From header such as `Open RON <no-reply@example.com>`, or the header itself when it is a bare address. */
export function readMailAddress(from: string): string {
  const match = /<([^<>\s]+@[^<>\s]+)>/.exec(from);
  return (match?.[1] ?? from).trim();
}
