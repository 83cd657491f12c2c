import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  /** The envelope recipient, lowercased. */
  to: string;
  subject: string;
  text: string;
  /** The HTML alternative, or null when the message was text only. */
  html: string | null;
  /** The top-level Content-Type, e.g. multipart/alternative when text and HTML were both sent. */
  contentType: string;
  /** The Message-ID header, with its angle brackets. */
  messageId: string;
  /** Parts other than the text and HTML (a calendar invitation among them), as text. */
  attachments: Array<{ filename: string | null; contentType: string; content: string }>;
}

export interface SmtpCatcher {
  /** smtp://127.0.0.1:<port>, ready for SMTP_URL. */
  url: string;
  port: number;
  /** Every accepted message, in arrival order. */
  messages: CaughtMail[];
  /** How many DATA commands were refused on purpose (see rejectNext). */
  rejectedCount: number;
  /** The first accepted message matching the predicate, waiting for it up to timeoutMs. */
  waitForMail(predicate: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  /** Refuses the next `count` messages with a temporary SMTP error (451), as a failing relay would. */
  rejectNext(count: number): void;
  /**
   * Keeps the next message waiting for the server's answer, as a slow relay would: `held` resolves
   * once that message arrived, and the sender gets its answer only after `release()`.
   */
  holdNext(): { held: Promise<void>; release(): void };
  close(): Promise<void>;
}

/** A real SMTP server on loopback that keeps what it receives, so tests can read mail and follow its links. */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const messages: CaughtMail[] = [];
  const waiters = new Set<() => void>();
  let toReject = 0;
  let rejectedCount = 0;
  let hold: { arrived: () => void; released: Promise<void> } | null = null;

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1000,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (parsed) => {
          const current = hold;
          if (current) {
            hold = null;
            current.arrived();
            await current.released;
          }
          if (toReject > 0) {
            toReject -= 1;
            rejectedCount += 1;
            const error = Object.assign(new Error('Mailbox temporarily unavailable, try again later'), { responseCode: 451 });
            callback(error);
            return;
          }
          const recipient = session.envelope.rcptTo[0]?.address ?? '';
          messages.push({
            to: recipient.toLowerCase(),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
            contentType:
              parsed.headers.get('content-type') && typeof parsed.headers.get('content-type') === 'object'
                ? String((parsed.headers.get('content-type') as { value: string }).value)
                : '',
            messageId: parsed.messageId ?? '',
            attachments: parsed.attachments.map((part) => ({
              filename: part.filename ?? null,
              contentType: part.contentType,
              content: part.content.toString('utf8'),
            })),
          });
          callback();
          for (const wake of waiters) wake();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  const waitForMail = (predicate: (mail: CaughtMail) => boolean, timeoutMs = 5000) =>
    new Promise<CaughtMail>((resolve, reject) => {
      const check = () => {
        const found = messages.find(predicate);
        if (!found) return false;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = () => void check();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`no matching mail within ${timeoutMs} ms (received: ${messages.map((m) => `${m.to} "${m.subject}"`).join(', ') || 'none'})`));
      }, timeoutMs);
      if (!check()) waiters.add(wake);
    });

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    get rejectedCount() {
      return rejectedCount;
    },
    waitForMail,
    rejectNext(count) {
      toReject = count;
    },
    holdNext() {
      let arrived = () => {};
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      hold = { arrived, released };
      return { held, release };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
