import { describe, expect, it } from 'vitest';
import { formatCalendarDay, formatDate, formatDateTime, formatFieldDate, formatFieldValue, formatTime, getCalendarDay } from './dates.ts';
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
