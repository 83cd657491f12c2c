import { toSingleLine } from '#shared/text.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { emailOutbox } from '#server/db/schema/index.ts';
import type { MailAttachment } from '#server/providers/email/email.ts';

export interface QueuedEmail {
  to: string;
  subject: string;
  text: string;
  /** The HTML alternative a template renders (features/mail/templates.ts); sent beside the text. */
  html?: string | null;
  kind: string;
  /** Files sent with it, such as a calendar invitation (features/gnw/calendar-invite.ts). */
  attachments?: MailAttachment[];
}

/**
 * Writes mail to the outbox; call it inside the transaction of the action that sends it. The subject
 * is made one line whatever it quotes; the templates already put every quoted name or title on one line.
 */
export async function queueEmail(db: DbOrTx, email: QueuedEmail): Promise<void> {
  await db.insert(emailOutbox).values({
    toAddress: email.to,
    subject: toSingleLine(email.subject),
    textBody: email.text,
    htmlBody: email.html ?? null,
    attachments: email.attachments?.length ? email.attachments : null,
    kind: email.kind,
  });
}
