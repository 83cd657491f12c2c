import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, emailOutbox } from '#server/db/schema/index.ts';
import { queueEmail } from '#server/lib/outbox.ts';
import { localMailbox } from '#server/db/schema/index.ts';
import { mailTemplates } from './templates.ts';
import { removedAfterDelivery } from '#server/tasks/email-delivery.ts';
import { createTestApp, type TestApp, type TestUser } from '#test/create-test-app.ts';
import { startSmtpCatcher, type SmtpCatcher } from '#test/smtp-catcher.ts';

/** No SMTP_URL: mail is delivered to the local mailbox. The log is read from memory. */
let t: TestApp;
let withSmtp: TestApp;
let smtp: SmtpCatcher;
let admin: TestUser;
const logLines: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  [t, withSmtp] = await Promise.all([
    createTestApp({ EMAIL_POLL_MS: '60000', LOG_LEVEL: 'trace' }, { logStream: { write: (line) => void logLines.push(line) } }),
    createTestApp({ SMTP_URL: smtp.url, EMAIL_POLL_MS: '60000' }),
  ]);
  admin = await t.createUser({ roles: ['admin'], name: 'Ada Admin' });
});
afterAll(async () => {
  await Promise.all([t?.close(), withSmtp?.close()]);
  await smtp?.close();
});

const newAddress = () => `mailbox-${randomUUID().slice(0, 8)}@example.test`;

interface MailboxPage {
  items: Array<{
    id: string;
    to: string;
    subject: string;
    text: string;
    kind: string;
    deliveredAt: string;
    attachments: Array<{ index: number; filename: string; contentType: string; size: number }>;
  }>;
  total: number;
  page: number;
  pageSize: number;
  isLocalMailbox: boolean;
}

async function readMailbox(app: TestApp, user: TestUser, query = ''): Promise<MailboxPage> {
  const res = await app.app.inject({ method: 'GET', url: `/api/admin/mail${query}`, headers: await app.signInAs(user) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as MailboxPage;
}

describe('mail without SMTP_URL', () => {
  it('keeps a message in the local mailbox and logs only that mail for the address is waiting there', async () => {
    const to = newAddress();
    const secret = `reset-${randomUUID()}`;
    await queueEmail(t.db, { to, subject: `Reset your password ${secret}`, text: `Open http://localhost/login?resetToken=${secret}`, kind: 'password_reset' });
    expect(await t.app.emailDelivery.runOnce()).toBe(1);

    const log = logLines.join('');
    expect(log).toContain(`Mail for ${to} is waiting in the local mailbox at /admin/mail`);
    expect(log).not.toContain(secret);
    expect(log).not.toContain('Reset your password');

    const mailbox = await readMailbox(t, admin);
    expect(mailbox.isLocalMailbox).toBe(true);
    const message = mailbox.items.find((item) => item.to === to);
    expect(message).toMatchObject({ subject: `Reset your password ${secret}`, kind: 'password_reset', deliveredAt: expect.any(String) });
    // The mailbox is where the mail was delivered: the admin can read and follow the link.
    expect(message?.text).toContain(`resetToken=${secret}`);
    // The outbox still keeps no secret once the message is delivered.
    const [row] = await t.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, to));
    expect(row).toMatchObject({ status: 'sent', textBody: removedAfterDelivery });
  });

  it('lists the mailbox newest first, a page at a time', async () => {
    const to = newAddress();
    for (const number of [1, 2, 3]) {
      await queueEmail(t.db, { to, subject: `Message ${number}`, text: `Body ${number}`, kind: 'test' });
      await t.app.emailDelivery.runOnce();
    }
    const first = await readMailbox(t, admin, '?page=1&pageSize=2');
    expect(first.items.map((item) => item.subject)).toEqual(['Message 3', 'Message 2']);
    expect(first).toMatchObject({ page: 1, pageSize: 2 });
    expect(first.total).toBeGreaterThanOrEqual(3);
    const second = await readMailbox(t, admin, '?page=2&pageSize=2');
    expect(second.items[0]?.subject).toBe('Message 1');

    const bad = await t.app.inject({ method: 'GET', url: '/api/admin/mail?pageSize=1000', headers: await t.signInAs(admin) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'validation_failed', message: expect.any(String) });
  });

  it('records every read of the mailbox in the audit trail, naming the administrator', async () => {
    const before = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'mail.read'), eq(auditEvents.actorId, admin.id)));
    await readMailbox(t, admin, '?page=1&pageSize=5');
    const after = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'mail.read'), eq(auditEvents.actorId, admin.id)));
    expect(after.length).toBe(before.length + 1);
    const latest = after.sort((a, b) => b.sequence - a.sequence)[0];
    expect(latest).toMatchObject({
      scope: 'account',
      actorId: admin.id,
      data: expect.objectContaining({ adminName: 'Ada Admin', adminEmail: admin.email, page: 1, pageSize: 5 }),
    });
  });

  it('refuses an anonymous caller with 401 and every role but admin with 403', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/admin/mail' });
    expect(anonymous.statusCode).toBe(401);
    for (const role of ['signer', 'notary', 'title', 'billing', 'observer'] as const) {
      const user = await t.createUser({ roles: [role] });
      const res = await t.app.inject({ method: 'GET', url: '/api/admin/mail', headers: await t.signInAs(user) });
      expect(res.statusCode, role).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
  });
});

describe('mail with an attachment, without SMTP_URL', () => {
  it('keeps the attachment in the local mailbox: listed with its name, type and size, and downloadable by administrators only', async () => {
    const to = newAddress();
    const invite = 'BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nEND:VCALENDAR\r\n';
    await queueEmail(t.db, {
      to,
      subject: 'Booked: your session',
      text: 'Your session is booked.',
      kind: 'session_booked',
      attachments: [{ filename: 'session.ics', contentType: 'text/calendar; method=REQUEST; charset=utf-8', content: invite }],
    });
    expect(await t.app.emailDelivery.runOnce()).toBe(1);
    const message = (await readMailbox(t, admin)).items.find((item) => item.to === to);
    expect(message?.attachments).toEqual([
      { index: 0, filename: 'session.ics', contentType: 'text/calendar; method=REQUEST; charset=utf-8', size: invite.length },
    ]);
    const url = `/api/admin/mail/${message!.id}/attachments/0`;
    const file = await t.app.inject({ method: 'GET', url, headers: await t.signInAs(admin) });
    expect(file.statusCode, file.body).toBe(200);
    expect(file.headers['content-type']).toBe('text/calendar; method=REQUEST; charset=utf-8');
    expect(file.headers['content-disposition']).toBe('attachment; filename="session.ics"');
    expect(file.body).toBe(invite);
    expect((await t.app.inject({ method: 'GET', url: `/api/admin/mail/${message!.id}/attachments/1`, headers: await t.signInAs(admin) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/admin/mail/${message!.id}/attachments/x`, headers: await t.signInAs(admin) })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    const signer = await t.createUser({ roles: ['signer'] });
    expect((await t.app.inject({ method: 'GET', url, headers: await t.signInAs(signer) })).statusCode).toBe(403);
  });
});

describe('mail written by a template', () => {
  it('is kept in the local mailbox with its text and its HTML, and the mailbox still shows the text', async () => {
    const to = newAddress();
    await queueEmail(t.db, {
      to,
      kind: 'notary_approved',
      ...mailTemplates.notaryApproved.render({ name: '<b>Nora</b> Notary', signInLink: 'http://localhost/login' }),
    });
    expect(await t.app.emailDelivery.runOnce()).toBe(1);
    const [kept] = await t.db.select().from(localMailbox).where(eq(localMailbox.toAddress, to));
    expect(kept?.htmlBody).toContain('Hello &lt;b&gt;Nora&lt;/b&gt; Notary,');
    expect(kept?.htmlBody).toContain('<a href="http://localhost/login"');
    const message = (await readMailbox(t, admin)).items.find((item) => item.to === to);
    expect(message).toMatchObject({ subject: 'Your notary account is approved', kind: 'notary_approved' });
    expect(message?.text).toBe(
      'Hello <b>Nora</b> Notary,\n\nAn administrator reviewed your commission and approved your notary account. You can now take notarizations.\n\nSign in at http://localhost/login',
    );
  });

  it('goes out over SMTP as one message with both parts: text and HTML', async () => {
    const to = newAddress();
    await queueEmail(withSmtp.db, { to, kind: 'password_changed', ...mailTemplates.passwordChanged.render({ name: 'Ada <script>x</script>' }) });
    expect(await withSmtp.app.emailDelivery.runOnce()).toBe(1);
    const mail = await smtp.waitForMail((caught) => caught.to === to);
    expect(mail.contentType).toBe('multipart/alternative');
    expect(mail.subject).toBe('Your Open RON password was changed');
    expect(mail.text).toContain('Hello Ada <script>x</script>,');
    expect(mail.html).toContain('Hello Ada &lt;script&gt;x&lt;/script&gt;,');
    expect(mail.html).not.toContain('<script>');
  });
});

describe('GET /api/admin/mail/templates', () => {
  it('shows an administrator every template rendered with sample facts, links on this server', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/mail/templates', headers: await t.signInAs(admin) });
    expect(res.statusCode, res.body).toBe(200);
    const { templates } = res.json() as { templates: Array<{ name: string; title: string; purpose: string; subject: string; text: string; html: string }> };
    expect(templates.map((template) => template.name)).toEqual(Object.keys(mailTemplates));
    const reset = templates.find((template) => template.name === 'passwordReset');
    expect(reset).toMatchObject({ title: 'Password reset link', subject: 'Reset your Open RON password', purpose: expect.stringContaining('reset') });
    expect(reset?.text).toContain(`${t.config.publicUrl}/login?resetToken=`);
    expect(reset?.html).toContain('<!doctype html>');
  });

  it('refuses an anonymous caller with 401, and a signer or a notary with 403', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/admin/mail/templates' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'unauthorized', message: expect.any(String) });
    for (const role of ['signer', 'notary'] as const) {
      const user = await t.createUser({ roles: [role] });
      const res = await t.app.inject({ method: 'GET', url: '/api/admin/mail/templates', headers: await t.signInAs(user) });
      expect(res.statusCode, role).toBe(403);
      expect(res.json()).toMatchObject({ error: 'forbidden', message: expect.any(String) });
    }
  });
});

describe('mail with SMTP_URL', () => {
  it('sends mail over SMTP, keeps none of it in the local mailbox, and says so', async () => {
    const to = newAddress();
    await queueEmail(withSmtp.db, { to, subject: 'Over SMTP', text: 'Delivered by the relay.', kind: 'test' });
    expect(await withSmtp.app.emailDelivery.runOnce()).toBe(1);
    await smtp.waitForMail((mail) => mail.to === to);
    const smtpAdmin = await withSmtp.createUser({ roles: ['admin'] });
    const mailbox = await readMailbox(withSmtp, smtpAdmin);
    expect(mailbox).toMatchObject({ isLocalMailbox: false, items: [], total: 0 });
  });
});
