import { describe, expect, it } from 'vitest';
import type { GnwSlot } from '#shared/gnw.ts';
import { buildBookingIcs, groupSlotsByDay, isTimeToJoin } from './booking-calendar.ts';

const slot = (startsAt: string, notaryName = 'Nora Notary'): GnwSlot => ({
  notaryId: '11111111-1111-4111-8111-111111111111',
  notaryName,
  commissionState: 'TX',
  startsAt,
  endsAt: new Date(Date.parse(startsAt) + 30 * 60_000).toISOString(),
  label: startsAt,
});

describe('groupSlotsByDay', () => {
  it('groups times by the day they fall on in the person’s zone, in order', () => {
    // 03:30 UTC on Dec 2 is still Dec 1 in Chicago.
    const days = groupSlotsByDay([slot('2026-12-02T15:00:00Z'), slot('2026-12-02T03:30:00Z'), slot('2026-12-01T15:30:00Z')], 'America/Chicago');
    expect(days.map((day) => [day.day, day.heading, day.slots.map((item) => item.time)])).toEqual([
      ['2026-12-01', 'Tuesday, December 1', ['9:30 AM CST', '9:30 PM CST']],
      ['2026-12-02', 'Wednesday, December 2', ['9:00 AM CST']],
    ]);
  });
});

describe('buildBookingIcs', () => {
  it('writes one event in UTC with the booking’s UID, escaped text and a reminder', () => {
    const ics = buildBookingIcs(
      {
        id: 'b1',
        startsAt: '2026-12-01T15:30:00.000Z',
        endsAt: '2026-12-01T16:00:00.000Z',
        timeZone: 'America/Chicago',
        notaryName: 'Nora, Notary',
        label: '',
      },
      { title: 'Deed; page 2', joinUrl: 'https://ron.example.test/session/j1', now: new Date('2026-11-20T10:00:00Z') },
    );
    const lines = ics.split('\r\n');
    expect(lines).toContain('UID:b1@notarize-now');
    expect(lines).toContain('DTSTART:20261201T153000Z');
    expect(lines).toContain('DTEND:20261201T160000Z');
    expect(lines).toContain('DTSTAMP:20261120T100000Z');
    expect(lines).toContain('SUMMARY:Notarization: Deed\\; page 2');
    expect(ics).toContain('with Nora\\, Notary');
    expect(lines).toContain('TRIGGER:-PT15M');
    expect(lines.every((line) => line.length <= 75)).toBe(true);
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
  });
});

describe('isTimeToJoin', () => {
  it('opens the join path 15 minutes before the time, until it ends', () => {
    const booking = { startsAt: '2026-12-01T15:30:00Z', endsAt: '2026-12-01T16:00:00Z' };
    expect(isTimeToJoin(booking, Date.parse('2026-12-01T15:14:00Z'))).toBe(false);
    expect(isTimeToJoin(booking, Date.parse('2026-12-01T15:15:00Z'))).toBe(true);
    expect(isTimeToJoin(booking, Date.parse('2026-12-01T16:01:00Z'))).toBe(false);
  });
});
