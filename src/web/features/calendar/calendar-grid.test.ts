import { describe, expect, it } from 'vitest';
import type { CalendarItem } from '#shared/calendar.ts';
import { addMonths, dayStartInstant, itemTimes, itemsByDay, stepAnchor, viewDays, viewHeading } from './calendar-grid.ts';

const item = (localStart: string, localEnd: string | null): CalendarItem => ({
  id: `${localStart}-${localEnd}`,
  kind: 'event',
  title: 'Event',
  startsAt: '',
  endsAt: null,
  localStart,
  localEnd,
  timeZone: null,
  link: null,
  notes: null,
});

describe('the calendar page’s days', () => {
  it('shows six whole weeks from the Sunday before the first of the month, and a week from its Sunday', () => {
    expect(viewDays('month', '2026-12-17')).toEqual({ first: '2026-11-29', end: '2027-01-10' });
    expect(viewDays('week', '2026-12-03')).toEqual({ first: '2026-11-29', end: '2026-12-06' });
    expect(viewDays('agenda', '2026-12-03')).toEqual({ first: '2026-12-03', end: '2027-01-02' });
  });

  it('steps by a month from any day of it, across the year, and by a week or 30 days', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-01');
    expect(stepAnchor('month', '2026-12-17', 1)).toBe('2027-01-01');
    expect(stepAnchor('week', '2026-12-03', -1)).toBe('2026-11-26');
    expect(stepAnchor('agenda', '2026-12-03', 1)).toBe('2027-01-02');
  });

  it('begins a day at local midnight, on either side of a daylight saving change', () => {
    expect(dayStartInstant('2026-11-01', 'America/New_York')).toBe('2026-11-01T04:00:00.000Z');
    expect(dayStartInstant('2026-11-02', 'America/New_York')).toBe('2026-11-02T05:00:00.000Z');
    // Havana's clocks skip midnight in March.
    expect(dayStartInstant('2027-03-14', 'America/Havana')).toBe('2027-03-14T05:00:00.000Z');
  });

  it('puts an item on every day it covers, but not on the day it ends at midnight', () => {
    const days = itemsByDay([item('2026-12-03T22:00', '2026-12-05T02:00'), item('2026-12-07T20:00', '2026-12-08T00:00'), item('2026-12-09T09:00', null)]);
    expect([...days.keys()]).toEqual(['2026-12-03', '2026-12-04', '2026-12-05', '2026-12-07', '2026-12-09']);
    const long = item('2026-12-03T22:00', '2026-12-05T02:00');
    expect(['2026-12-03', '2026-12-04', '2026-12-05'].map((day) => itemTimes(long, day))).toEqual(['From 10:00 PM', 'All day', 'Until 2:00 AM']);
    expect(itemTimes(item('2026-12-09T09:00', null), '2026-12-09')).toBe('9:00 AM');
    expect(itemTimes(item('2026-12-09T00:05', '2026-12-09T12:30'), '2026-12-09')).toBe('12:05 AM – 12:30 PM');
  });

  it('names each view in words', () => {
    expect(viewHeading('month', '2026-12-17')).toBe('December 2026');
    expect(viewHeading('week', '2026-12-31')).toBe('Dec 27 – Jan 2, 2027');
    expect(viewHeading('agenda', '2026-12-03')).toBe('Dec 3, 2026 – Jan 1, 2027');
  });
});
