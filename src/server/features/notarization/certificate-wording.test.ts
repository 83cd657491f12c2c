import { describe, expect, it } from 'vitest';
import { formatDateTime, formatIsoDay } from './certificate-wording.ts';

describe('the certificate’s dates', () => {
  it('prints each instant in the zone asked for, whatever was printed before (printed dates are kept by style, zone and instant)', () => {
    const act = new Date(Date.UTC(2026, 2, 14, 3, 30, 5));
    expect(formatDateTime(act, 'UTC')).toBe('March 14, 2026 at 3:30:05 AM UTC');
    expect(formatDateTime(act, 'America/Chicago')).toBe('March 13, 2026 at 10:30:05 PM CDT');
    expect(formatDateTime(act, 'UTC')).toBe('March 14, 2026 at 3:30:05 AM UTC');
    expect(formatDateTime(new Date(act.getTime() + 1000), 'UTC')).toBe('March 14, 2026 at 3:30:06 AM UTC');
    expect(formatIsoDay('2030-06-30')).toBe('June 30, 2030');
    expect(formatIsoDay('2030-07-01')).toBe('July 1, 2030');
    expect(formatIsoDay('not a day')).toBe('not a day');
  });

  it('prints an instant right after thousands of others have been printed and the kept ones let go', () => {
    const start = Date.UTC(2026, 0, 1);
    for (let index = 0; index < 5000; index += 1) formatDateTime(new Date(start + index * 1000), 'UTC');
    expect(formatDateTime(new Date(start), 'UTC')).toBe('January 1, 2026 at 12:00:00 AM UTC');
  });
});
