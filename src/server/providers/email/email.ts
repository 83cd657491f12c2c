import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';

export interface OutgoingEmail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** Delivers one message: SMTP when SMTP_URL is set, else the log (the embedded default). */
export interface EmailTransport {
  readonly kind: 'smtp' | 'log';
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
        // The same Message-ID on every attempt lets receivers drop a duplicate after a crash.
        messageId: `<${message.id}@${host}>`,
      });
    },
    async close() {
      transporter.close();
    },
  };
}

/** Without SMTP, mail (and the links in it) goes to the log so a local operator can follow it. */
export function createLogTransport(log: FastifyBaseLogger): EmailTransport {
  return {
    kind: 'log',
    async send(message) {
      log.info({ event: 'email.logged', to: message.to, subject: message.subject }, `email (no SMTP_URL set):\n${message.text}`);
    },
    async close() {},
  };
}
