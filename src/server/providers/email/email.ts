import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { DbOrTx } from '#server/db/client.ts';
import { localMailbox } from '#server/db/schema/index.ts';

/**
 * A file sent with a message. A calendar invitation (contentType text/calendar with its method) goes
 * as the message's calendar part, which mail programs show as an invitation to accept.
 */
export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

export interface OutgoingEmail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  kind: string;
  attachments?: readonly MailAttachment[];
}

const calendarMethods = ['REQUEST', 'CANCEL', 'PUBLISH', 'REPLY'] as const;

/** The iTIP method of a calendar attachment, from its METHOD line (REQUEST when it has none). */
function calendarMethodOf(content: string): (typeof calendarMethods)[number] {
  const method = /^METHOD:([A-Z]+)\r?$/m.exec(content)?.[1];
  return calendarMethods.find((known) => known === method) ?? 'REQUEST';
}

/** What nodemailer sends: the first calendar attachment as the calendar part (icalEvent), the rest as files. */
export function toNodemailerParts(attachments: readonly MailAttachment[] = []) {
  const calendar = attachments.find((attachment) => attachment.contentType.startsWith('text/calendar'));
  const files = attachments.filter((attachment) => attachment !== calendar);
  return {
    ...(calendar ? { icalEvent: { filename: calendar.filename, method: calendarMethodOf(calendar.content), content: calendar.content } } : {}),
    ...(files.length > 0 ? { attachments: files.map((file) => ({ filename: file.filename, contentType: file.contentType, content: file.content })) } : {}),
  };
}

/** Where administrators read mail kept in the local mailbox. */
export const localMailboxPath = '/admin/mail';

/** Delivers one message: SMTP when SMTP_URL is set, else the local mailbox (the embedded default). */
export interface EmailTransport {
  readonly kind: 'smtp' | 'mailbox';
  send(message: OutgoingEmail): Promise<void>;
  close(): Promise<void>;
}

export function createSmtpTransport(url: string, from: string, publicUrl: string): EmailTransport {
  // nodemailer waits up to 10 minutes on a silent socket by default; a send must end well within
  // the outbox lease (120 s), or another instance could take the message over and send it too.
  const transporter = nodemailer.createTransport({ url, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 45_000 });
  const host = new URL(publicUrl).hostname || 'localhost';
  return {
    kind: 'smtp',
    async send(message) {
      await transporter.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html ?? undefined,
        ...toNodemailerParts(message.attachments),
        // The same Message-ID on every attempt lets receivers drop a duplicate after a crash.
        messageId: `<${message.id}@${host}>`,
      });
    },
    async close() {
      transporter.close();
    },
  };
}

/**
 * Without SMTP, mail is delivered to the local mailbox in the database, which administrators read
 * at /admin/mail. The log says only that mail for an address is waiting: never its subject or body,
 * which carry links and codes that grant access.
 */
export function createMailboxTransport(db: DbOrTx, log: FastifyBaseLogger): EmailTransport {
  return {
    kind: 'mailbox',
    async send(message) {
      await db
        .insert(localMailbox)
        .values({
          id: message.id,
          toAddress: message.to,
          subject: message.subject,
          textBody: message.text,
          htmlBody: message.html,
          kind: message.kind,
          attachments: message.attachments?.length ? [...message.attachments] : null,
        })
        .onConflictDoNothing();
      log.info({ event: 'email.mailbox', emailId: message.id }, `Mail for ${message.to} is waiting in the local mailbox at ${localMailboxPath}`);
    },
    async close() {},
  };
}
