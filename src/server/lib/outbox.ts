import type { DbOrTx } from '#server/db/client.ts';
import { emailOutbox } from '#server/db/schema/index.ts';

export interface QueuedEmail {
  to: string;
  subject: string;
  text: string;
  kind: string;
}

/** Writes mail to the outbox; call it inside the transaction of the action that sends it. */
export async function queueEmail(db: DbOrTx, email: QueuedEmail): Promise<void> {
  await db.insert(emailOutbox).values({ toAddress: email.to, subject: email.subject, textBody: email.text, kind: email.kind });
}
