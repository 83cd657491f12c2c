import { findUsState, type DateFieldFormat } from './us-states.ts';

/**
 * Dates and times as people read them: in the viewer's language and time zone (the browser's,
 * unless a caller names others), e.g. "Nov 23, 2026, 2:05 PM EST" for en-US. Filled date fields
 * are written the way the document's state writes dates (us-states.ts), not the viewer's way.
 */

export interface DateOptions {
  /** A BCP 47 language tag ("en-US"); the viewer's language when left out. */
  locale?: string;
  /** An IANA zone ("America/New_York"); the viewer's zone when left out. */
  timeZone?: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** Intl.DateTimeFormat is costly to build: one per language, zone and style. A zone or language it does not know falls back to UTC or the default. */
function getFormat(style: 'dateTime' | 'date' | 'time' | 'day', { locale, timeZone }: DateOptions): Intl.DateTimeFormat {
  const key = `${style}|${locale ?? ''}|${timeZone ?? ''}`;
  let format = formats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      style === 'dateTime'
        ? { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone }
        : style === 'date'
          ? { year: 'numeric', month: 'short', day: 'numeric', timeZone }
          : style === 'time'
            ? { hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone }
            : { year: 'numeric', month: '2-digit', day: '2-digit', timeZone };
    // The calendar day is read from parts, so its language only has to be one Intl knows.
    const language = style === 'day' ? 'en-US' : locale;
    try {
      format = new Intl.DateTimeFormat(language, options);
    } catch {
      // An unknown zone or language: UTC (the written zone says so) in the default language.
      format = new Intl.DateTimeFormat(style === 'day' ? 'en-US' : undefined, { ...options, timeZone: 'UTC' });
    }
    formats.set(key, format);
  }
  return format;
}

function toDate(value: Date | string | number): Date | null {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Narrow and no-break spaces (some browsers put them before "PM") as plain spaces. */
function plainSpaces(text: string): string {
  return text.replace(/[\u00a0\u202f]/g, ' ');
}

/** "Nov 23, 2026, 2:05 PM EST"; an empty string for what is not a date. */
export function formatDateTime(value: Date | string | number, options: DateOptions = {}): string {
  const date = toDate(value);
  return date ? plainSpaces(getFormat('dateTime', options).format(date)) : '';
}

/** "Nov 23, 2026": the day an instant falls on in the viewer's zone; an empty string for what is not a date. */
export function formatDate(value: Date | string | number, options: DateOptions = {}): string {
  const date = toDate(value);
  return date ? plainSpaces(getFormat('date', options).format(date)) : '';
}

/** "2:05 PM EST": the time of day in the viewer's zone (for lists of one day); an empty string for what is not a date. */
export function formatTime(value: Date | string | number, options: DateOptions = {}): string {
  const date = toDate(value);
  return date ? plainSpaces(getFormat('time', options).format(date)) : '';
}

/**
 * "Jun 30, 2031" for a calendar day (YYYY-MM-DD: an expiry date, a date of birth) in the viewer's
 * language. A day has no time zone, so it is never shifted by one; anything else comes back as is.
 */
export function formatCalendarDay(day: string, options: Pick<DateOptions, 'locale'> = {}): string {
  if (!isCalendarDay(day)) return day;
  return plainSpaces(getFormat('date', { locale: options.locale, timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`)));
}

/** A real calendar day written YYYY-MM-DD (what a date field holds). */
export function isCalendarDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The calendar day (YYYY-MM-DD) an instant falls on in a time zone (UTC when it is unknown). */
export function getCalendarDay(value: Date, timeZone = 'UTC'): string {
  const parts = getFormat('day', { timeZone }).formatToParts(value);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((entry) => entry.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const fieldDateWriters: Record<DateFieldFormat, (year: string, month: string, day: string) => string> = {
  'MM/DD/YYYY': (year, month, day) => `${month}/${day}/${year}`,
  'YYYY-MM-DD': (year, month, day) => `${year}-${month}-${day}`,
  'MMMM D, YYYY': (year, month, day) => `${monthNames[Number(month) - 1]} ${Number(day)}, ${year}`,
};

/** Where the document's state is not known (no notary with a commission yet): the US way. */
export const defaultDateFieldFormat: DateFieldFormat = 'MM/DD/YYYY';

/**
 * A filled date field (stored YYYY-MM-DD) as the document's state writes dates: "11/23/2026" in
 * every US state. The state is the job's notary's commission state. Anything that is not a
 * calendar day (a value stored before this rule) is shown as it was stored.
 */
export function formatFieldDate(day: string, stateCode: string | null | undefined): string {
  if (!isCalendarDay(day)) return day;
  const [year = '', month = '', date = ''] = day.split('-');
  return fieldDateWriters[findUsState(stateCode)?.dateFieldFormat ?? defaultDateFieldFormat](year, month, date);
}

/** A filled field's value as printed: dates (date, date_signed) in the state's way, anything else as stored. */
export function formatFieldValue(field: { type: string; value: string | null }, stateCode: string | null | undefined): string | null {
  return field.value !== null && (field.type === 'date' || field.type === 'date_signed') ? formatFieldDate(field.value, stateCode) : field.value;
}

// ---------------------------------------------------------------------------------------------
// The written record (audit certificate, seal refusals): "26 November 2026 at 22:14:05 UTC"

const recordFormats = new Map<string, Intl.DateTimeFormat>();

type RecordParts = { day: string; clock: string; zone: string };

/**
 * The printed minutes, by zone and minute: the audit pages print one time per event, most within the
 * same few minutes, and formatToParts with a zone name is the costly step of a seal's audit pages.
 * Offsets since 1980 are whole minutes, so the seconds are the instant's own.
 */
const recordMinutes = new Map<string, Omit<RecordParts, 'clock'> & { hourMinute: string }>();
const recordMinutesLimit = 4096;
const wholeMinuteOffsetsSince = Date.UTC(1980, 0, 1);

/** The day, the 24-hour clock with seconds and the zone's short name of an instant in `timeZone` (UTC if unknown). */
function getRecordParts(date: Date, timeZone: string): RecordParts {
  const time = date.getTime();
  if (time < wholeMinuteOffsetsSince) return formatRecordParts(date, timeZone);
  const minuteStart = time - (((time % 60_000) + 60_000) % 60_000);
  const key = `${timeZone}|${minuteStart}`;
  let minute = recordMinutes.get(key);
  if (!minute) {
    const parts = formatRecordParts(new Date(minuteStart), timeZone);
    minute = { day: parts.day, zone: parts.zone, hourMinute: parts.clock.slice(0, 5) };
    if (recordMinutes.size >= recordMinutesLimit) recordMinutes.clear();
    recordMinutes.set(key, minute);
  }
  const seconds = String(Math.floor((time - minuteStart) / 1000)).padStart(2, '0');
  return { day: minute.day, clock: `${minute.hourMinute}:${seconds}`, zone: minute.zone };
}

function formatRecordParts(date: Date, timeZone: string): RecordParts {
  let format = recordFormats.get(timeZone);
  if (!format) {
    const options: Intl.DateTimeFormatOptions = {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    };
    try {
      format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone });
    } catch {
      format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' });
    }
    recordFormats.set(timeZone, format);
  }
  // formatToParts is the costly call (the audit pages print one time per event): once per instant, not once per part.
  const parts = format.formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((item) => item.type === type)?.value ?? '';
  return { day: `${part('day')} ${part('month')} ${part('year')}`, clock: `${part('hour')}:${part('minute')}:${part('second')}`, zone: part('timeZoneName') };
}

/** "26 November 2026 at 22:14:05 UTC". */
export function formatRecordTime(date: Date, timeZone = 'UTC'): string {
  const { day, clock, zone } = getRecordParts(date, timeZone);
  return `${day} at ${clock} ${zone}`;
}

/** "on 26 November 2026 from 22:14:05 to 22:14:45 UTC"; both days in full when the span crosses midnight. */
export function formatRecordSpan(from: Date, to: Date, timeZone = 'UTC'): string {
  const start = getRecordParts(from, timeZone);
  const end = getRecordParts(to, timeZone);
  if (start.day === end.day && start.zone === end.zone) return `on ${start.day} from ${start.clock} to ${end.clock} ${end.zone}`;
  return `from ${formatRecordTime(from, timeZone)} to ${formatRecordTime(to, timeZone)}`;
}

/** "40 seconds", "2 minutes 5 seconds", "1 hour 3 minutes": a length of time, rounded to the second. */
export function formatDuration(milliseconds: number): string {
  const total = Math.max(0, Math.round(milliseconds / 1000));
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return minutes > 0 ? `${unit(hours, 'hour')} ${unit(minutes, 'minute')}` : unit(hours, 'hour');
  if (minutes > 0) return seconds > 0 ? `${unit(minutes, 'minute')} ${unit(seconds, 'second')}` : unit(minutes, 'minute');
  return unit(seconds, 'second');
}
