import { describe, expect, it } from 'vitest';
import { isKnownTimeZone, toInstant, toLocalDateTime } from './availability.ts';

describe('local times in a zone', () => {
  it('reads a local time in winter and in summer with the zone’s offset of that day', () => {
    expect(toInstant('2026-12-01T09:00', 'America/Chicago')?.toISOString()).toBe('2026-12-01T15:00:00.000Z');
    expect(toInstant('2026-07-01T09:00', 'America/Chicago')?.toISOString()).toBe('2026-07-01T14:00:00.000Z');
    expect(toInstant('2026-07-01T09:00', 'Asia/Kolkata')?.toISOString()).toBe('2026-07-01T03:30:00.000Z');
    expect(toInstant('2026-07-01T09:00', 'UTC')?.toISOString()).toBe('2026-07-01T09:00:00.000Z');
  });

  it('has no instant for a time the clocks skip, and takes the first of a time that happens twice', () => {
    expect(toInstant('2027-03-14T02:30', 'America/Chicago')).toBeNull();
    expect(toInstant('2026-11-01T01:30', 'America/Chicago')?.toISOString()).toBe('2026-11-01T06:30:00.000Z');
  });

  it('shows an instant as the local time it is in a zone', () => {
    expect(toLocalDateTime(new Date('2026-12-01T15:00:00Z'), 'America/Chicago')).toBe('2026-12-01T09:00');
    expect(toLocalDateTime(new Date('2026-12-31T23:30:00Z'), 'Asia/Kolkata')).toBe('2027-01-01T05:00');
  });

  it('knows real IANA zones and nothing else', () => {
    expect(isKnownTimeZone('America/Chicago')).toBe(true);
    expect(isKnownTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isKnownTimeZone('../etc/passwd')).toBe(false);
  });
});
