import { describe, expect, it } from 'vitest';
import {
  formatCalendarDay,
  formatDate,
  formatDateTime,
  formatFieldDate,
  formatFieldValue,
  formatRecordSpan,
  formatRecordTime,
  formatTime,
  getCalendarDay,
} from './dates.ts';
import { usStateCodes } from './us-states.ts';

const afternoon = '2026-11-23T19:05:00.000Z';

describe('formatDateTime', () => {
  it('writes a US date, time and zone for en-US', () => {
    expect(formatDateTime(afternoon, { locale: 'en-US', timeZone: 'America/New_York' })).toBe('Nov 23, 2026, 2:05 PM EST');
    expect(formatDateTime(new Date('2026-07-04T16:30:00Z'), { locale: 'en-US', timeZone: 'America/Los_Angeles' })).toBe('Jul 4, 2026, 9:30 AM PDT');
  });

  it('follows the viewer’s language and zone', () => {
    expect(formatDateTime(afternoon, { locale: 'en-GB', timeZone: 'Europe/London' })).toBe('23 Nov 2026, 19:05 GMT');
    expect(formatDateTime(afternoon, { locale: 'de-DE', timeZone: 'Europe/Berlin' })).toContain('20:05');
  });

  it('writes UTC for a zone it does not know, and nothing for what is not a date', () => {
    expect(formatDateTime(afternoon, { locale: 'en-US', timeZone: 'Mars/Olympus_Mons' })).toBe('Nov 23, 2026, 7:05 PM UTC');
    expect(formatDateTime('not a date', { locale: 'en-US' })).toBe('');
  });
});

describe('formatDate and formatCalendarDay', () => {
  it('gives the day an instant falls on where the viewer is', () => {
    const lateEvening = '2026-11-24T03:30:00Z';
    expect(formatDate(lateEvening, { locale: 'en-US', timeZone: 'America/Chicago' })).toBe('Nov 23, 2026');
    expect(formatDate(lateEvening, { locale: 'en-US', timeZone: 'UTC' })).toBe('Nov 24, 2026');
  });

  it('never shifts a calendar day by the viewer’s zone', () => {
    expect(formatCalendarDay('2031-06-30', { locale: 'en-US' })).toBe('Jun 30, 2031');
    expect(formatCalendarDay('2031-06-30', { locale: 'en-GB' })).toBe('30 Jun 2031');
    expect(formatCalendarDay('someday')).toBe('someday');
  });
});

describe('getCalendarDay', () => {
  it('is the signer’s day, not the server’s', () => {
    const instant = new Date('2026-11-24T03:30:00Z');
    expect(getCalendarDay(instant, 'America/New_York')).toBe('2026-11-23');
    expect(getCalendarDay(instant, 'Asia/Tokyo')).toBe('2026-11-24');
    expect(getCalendarDay(instant)).toBe('2026-11-24');
    expect(getCalendarDay(instant, 'Nowhere/Else')).toBe('2026-11-24');
  });
});

describe('formatFieldDate', () => {
  it('writes a filled date as every US state expects: MM/DD/YYYY', () => {
    for (const state of usStateCodes) expect(formatFieldDate('2026-03-04', state), state).toBe('03/04/2026');
    expect(formatFieldDate('2026-11-23', ' tx ')).toBe('11/23/2026');
  });

  it('writes the US way while the state is unknown, and an older value as it was stored', () => {
    expect(formatFieldDate('2026-11-23', null)).toBe('11/23/2026');
    expect(formatFieldDate('2026-11-23', 'Narnia')).toBe('11/23/2026');
    expect(formatFieldDate('March 14, 2026', 'TX')).toBe('March 14, 2026');
  });
});

describe('formatFieldValue', () => {
  it('writes date and date-signed fields the state’s way and leaves other values as they are', () => {
    expect(formatFieldValue({ type: 'date', value: '2026-11-23' }, 'VA')).toBe('11/23/2026');
    expect(formatFieldValue({ type: 'date_signed', value: '2026-01-05' }, 'TX')).toBe('01/05/2026');
    expect(formatFieldValue({ type: 'text', value: '2026-11-23' }, 'TX')).toBe('2026-11-23');
    expect(formatFieldValue({ type: 'date', value: null }, 'TX')).toBeNull();
  });
});

describe('formatTime', () => {
  it('writes the time of day with its zone in the viewer’s language, and nothing for what is not a date', () => {
    expect(formatTime('2026-11-23T19:05:00Z', { locale: 'en-US', timeZone: 'America/New_York' })).toBe('2:05 PM EST');
    expect(formatTime('not a date', { locale: 'en-US' })).toBe('');
  });
});

describe('formatRecordTime', () => {
  /** What Intl itself prints for the instant, with no caching in between. */
  function direct(date: Date, timeZone: string): string {
    const parts = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
      timeZone,
    }).formatToParts(date);
    const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((item) => item.type === type)?.value ?? '';
    return `${part('day')} ${part('month')} ${part('year')} at ${part('hour')}:${part('minute')}:${part('second')} ${part('timeZoneName')}`;
  }

  it('prints "26 November 2026 at 22:14:05 UTC"', () => {
    expect(formatRecordTime(new Date('2026-11-26T22:14:05.900Z'))).toBe('26 November 2026 at 22:14:05 UTC');
    expect(formatRecordSpan(new Date('2026-11-26T22:14:05Z'), new Date('2026-11-26T22:14:45Z'))).toBe('on 26 November 2026 from 22:14:05 to 22:14:45 UTC');
  });

  it('prints every second as Intl does, across daylight-saving changes and in zones a half or three quarters of an hour off', () => {
    const zones = ['UTC', 'America/New_York', 'America/Chicago', 'Europe/London', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham'];
    // The two changes of 2026 in the United States and one in Lord Howe (a half hour), second by second around each, then a spread of the year.
    const around = [Date.UTC(2026, 2, 8, 7, 0, 0), Date.UTC(2026, 10, 1, 6, 0, 0), Date.UTC(2026, 3, 4, 15, 0, 0)];
    const instants = around.flatMap((centre) => Array.from({ length: 150 }, (_, index) => new Date(centre - 75_000 + index * 997)));
    for (let index = 0; index < 200; index += 1) instants.push(new Date(Date.UTC(2026, 0, 1) + index * 157_679_999 + index * 7_777));
    for (const timeZone of zones) {
      for (const instant of instants) expect(formatRecordTime(instant, timeZone), `${instant.toISOString()} in ${timeZone}`).toBe(direct(instant, timeZone));
    }
  });

  it('prints times before 1980 as Intl does (offsets then were not always whole minutes)', () => {
    const instant = new Date('1971-06-01T12:00:07Z');
    expect(formatRecordTime(instant, 'Africa/Monrovia')).toBe(direct(instant, 'Africa/Monrovia'));
  });
});
