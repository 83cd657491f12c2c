import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueEmail } from '#server/lib/outbox.ts';
import { createTestApp, type TestApp } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';
import { bookingUid, buildCalendarInvite, escapeCalendarText, foldCalendarLine, formatCalendarTime, readMailAddress } from './calendar-invite.ts';
import { formatSessionLabel } from './gnw-booking-mail.ts';

const invite = {
  method: 'REQUEST' as const,
  uid: 'booking-5f0c@ron.example.test',
  sequence: 0,
  startsAt: new Date('2026-12-01T15:30:00Z'),
  endsAt: new Date('2026-12-01T16:00:00Z'),
  stampedAt: new Date('2026-11-20T08:05:09.123Z'),
  summary: 'Notarization: Deed of trust',
  description: 'Remote online notarization of "Deed of trust".\nJoin from the job page: https://ron.example.test/jobs/detail?jobId=1',
  url: 'https://ron.example.test/jobs/detail?jobId=1',
  organizer: { name: 'Open RON', email: 'no-reply@ron.example.test' },
  attendees: [
    { name: 'Sam Signer', email: 'sam@example.test' },
    { name: 'Nora "Q" Notary, Esq.', email: 'nora@example.test' },
  ],
};

/** The content lines of an iCalendar text, unfolded (RFC 5545 3.1). */
const unfold = (text: string) => text.replace(/\r\n /g, '').split('\r\n');

describe('the calendar invitation (RFC 5545)', () => {
  it('is one VEVENT with the method, a stable UID, the sequence, UTC times, summary, description, organizer and both attendees', () => {
    const text = buildCalendarInvite(invite);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect(unfold(text)).toEqual([
      'BEGIN:VCALENDAR',
      'PRODID:-//Open RON//Notarize Now//EN',
      'VERSION:2.0',
      'CALSCALE:GREGORIAN',
      'METHOD:REQUEST',
      'BEGIN:VEVENT',
      'UID:booking-5f0c@ron.example.test',
      'SEQUENCE:0',
      'DTSTAMP:20261120T080509Z',
      'DTSTART:20261201T153000Z',
      'DTEND:20261201T160000Z',
      'SUMMARY:Notarization: Deed of trust',
      'DESCRIPTION:Remote online notarization of "Deed of trust".\\nJoin from the job page: https://ron.example.test/jobs/detail?jobId=1',
      'URL:https://ron.example.test/jobs/detail?jobId=1',
      'ORGANIZER;CN="Open RON":mailto:no-reply@ron.example.test',
      'ATTENDEE;CN="Sam Signer";ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:sam@example.test',
      'ATTENDEE;CN="Nora Q Notary, Esq.";ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:nora@example.test',
      'STATUS:CONFIRMED',
      'TRANSP:OPAQUE',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ]);
  });

  it('cancels with METHOD:CANCEL, the same UID, a higher SEQUENCE and STATUS:CANCELLED', () => {
    const lines = unfold(buildCalendarInvite({ ...invite, method: 'CANCEL', sequence: 1 }));
    expect(lines).toContain('METHOD:CANCEL');
    expect(lines).toContain('UID:booking-5f0c@ron.example.test');
    expect(lines).toContain('SEQUENCE:1');
    expect(lines).toContain('STATUS:CANCELLED');
  });

  it('escapes backslash, semicolon, comma and line breaks in text, and drops other control characters', () => {
    expect(escapeCalendarText('a\\b;c,d\ne\r\nf\rg\u0007h')).toBe('a\\\\b\\;c\\,d\\ne\\nf\\ng' + 'h');
    const lines = unfold(buildCalendarInvite({ ...invite, summary: 'Deed; lot 4, block 2\nBEGIN:VEVENT' }));
    expect(lines).toContain('SUMMARY:Deed\\; lot 4\\, block 2\\nBEGIN:VEVENT');
    expect(lines.filter((line) => line === 'BEGIN:VEVENT')).toHaveLength(1);
  });

  it('folds every line at 75 octets with CRLF and a space, never splitting a multi-byte character', () => {
    const summary = `Notarization: ${'Ünïcödé déèd '.repeat(12)}`;
    const text = buildCalendarInvite({ ...invite, summary });
    const physical = text.split('\r\n');
    for (const line of physical) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
    expect(physical.some((line) => line.startsWith(' '))).toBe(true);
    expect(text).not.toContain('\uFFFD');
    expect(unfold(text)).toContain(`SUMMARY:${summary.replace(/,/g, '\\,')}`);
    // Exactly at the limit: no fold; one octet more: a fold.
    expect(foldCalendarLine('x'.repeat(75))).toBe('x'.repeat(75));
    expect(foldCalendarLine('x'.repeat(76))).toBe(`${'x'.repeat(75)}\r\n x`);
    expect(foldCalendarLine('x'.repeat(74) + 'é')).toBe(`${'x'.repeat(74)}\r\n é`);
  });

  it('writes times in UTC, the UID in the platform’s domain, and reads the From address', () => {
    expect(formatCalendarTime(new Date('2026-03-08T07:59:00-06:00'))).toBe('20260308T135900Z');
    expect(bookingUid('abc', 'https://notary.example.com:8443')).toBe('booking-abc@notary.example.com');
    expect(readMailAddress('Open RON <no-reply@ron.example.test>')).toBe('no-reply@ron.example.test');
    expect(readMailAddress('ops@ron.example.test')).toBe('ops@ron.example.test');
  });

  it('labels a session as the person reads it in their zone', () => {
    expect(formatSessionLabel(new Date('2026-12-01T15:30:00Z'), 'America/Chicago')).toBe('Tuesday, December 1, 9:30 AM CST');
    expect(formatSessionLabel(new Date('2026-07-04T00:00:00Z'), 'America/New_York')).toBe('Friday, July 3, 8:00 PM EDT');
  });
});

describe('an attachment through the outbox', () => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    t = await createTestApp({ SMTP_URL: smtp.url, EMAIL_POLL_MS: '60000' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('keeps a calendar invitation with the queued mail and sends it as the message’s text/calendar part', async () => {
    const content = buildCalendarInvite(invite);
    await queueEmail(t.db, {
      to: 'sam@example.test',
      subject: 'Your notarization is booked',
      text: 'See the invitation.',
      kind: 'session_booked',
      attachments: [{ filename: 'invite.ics', contentType: 'text/calendar; charset=utf-8; method=REQUEST', content }],
    });
    await queueEmail(t.db, { to: 'plain@example.test', subject: 'No files', text: 'Nothing attached.', kind: 'job_update' });
    await t.app.emailDelivery.runOnce();
    const mail = await smtp.waitForMail((m) => m.to === 'sam@example.test');
    expect(mail.text).toContain('See the invitation.');
    const calendar = mail.attachments.find((part) => part.contentType.startsWith('text/calendar'));
    expect(calendar?.content.replace(/\r\n /g, '')).toContain('UID:booking-5f0c@ron.example.test');
    expect(calendar?.content).toContain('METHOD:REQUEST\r\n');
    const plain = await smtp.waitForMail((m) => m.to === 'plain@example.test');
    expect(plain.attachments).toEqual([]);
  });
});
