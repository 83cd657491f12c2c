import { and, eq, gt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '#server/db/client.ts';
import { emailOutbox } from '#server/db/schema/index.ts';
import type { EmailTransport } from '#server/providers/email/email.ts';

const batchSize = 10;
/** Kinds whose text carries a live link or code. */
export const secretBearingKinds = new Set(['password_reset', 'mfa_email_code', 'job_invite', 'job_invite_reminder', 'email_verification']);
export const removedAfterDelivery = '[removed after delivery: it carried a link or code]';
const leaseSeconds = 120;

/** Retry delay after a failed attempt: 5 s, 10 s, 20 s … capped at one hour. */
export function getRetryDelaySeconds(attempts: number): number {
  return Math.min(3600, 5 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Delivers the outbox. Each batch is claimed with FOR UPDATE SKIP LOCKED and a lease, committed,
 * then sent outside any transaction. Right before each send the lease is checked and renewed, so a
 * message whose lease ran out while earlier ones were slow, and that another instance took over,
 * is left to that instance. A crash between the SMTP answer and the mark may resend once, with the
 * same Message-ID. SMTP timeouts (providers/email) stay well below the lease.
 */
export class EmailDelivery {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private isStopped = false;

  constructor(
    private readonly db: Db,
    private readonly transport: EmailTransport,
    private readonly log: FastifyBaseLogger,
    private readonly options: { pollMs: number; maxAttempts: number },
  ) {}

  start(): void {
    this.isStopped = false;
    const tick = async () => {
      if (this.isStopped) return;
      try {
        await this.runOnce();
      } catch (error) {
        this.log.error({ err: error }, 'email delivery pass failed');
      }
      if (!this.isStopped) this.timer = setTimeout(tick, this.options.pollMs);
    };
    this.timer = setTimeout(tick, this.options.pollMs);
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; returns how many messages were sent. Concurrent calls share the pass in flight. */
  runOnce(): Promise<number> {
    this.running ??= this.deliverBatch().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async deliverBatch(): Promise<number> {
    const claimed = await this.db
      .update(emailOutbox)
      .set({ status: 'sending', attempts: sql`${emailOutbox.attempts} + 1`, lockedUntil: sql`now() + make_interval(secs => ${leaseSeconds})` })
      .where(
        sql`${emailOutbox.id} in (select id from email_outbox
          where (status = 'pending' and next_attempt_at <= now()) or (status = 'sending' and locked_until < now())
          order by created_at limit ${batchSize} for update skip locked)`,
      )
      .returning();
    // UPDATE ... RETURNING keeps no order: send the oldest first.
    claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    let sent = 0;
    for (const row of claimed) {
      // Still ours? The same attempt, still sending, lease not run out: renew it for this send.
      const isStillHeld = and(eq(emailOutbox.id, row.id), eq(emailOutbox.status, 'sending'), eq(emailOutbox.attempts, row.attempts));
      const renewed = await this.db
        .update(emailOutbox)
        .set({ lockedUntil: sql`now() + make_interval(secs => ${leaseSeconds})` })
        .where(and(isStillHeld, gt(emailOutbox.lockedUntil, sql`now()`)))
        .returning({ id: emailOutbox.id });
      if (renewed.length === 0) {
        this.log.warn({ event: 'email.lease_lost', emailId: row.id, attempts: row.attempts }, 'email left to the instance that took it over');
        continue;
      }
      try {
        await this.transport.send({
          id: row.id,
          to: row.toAddress,
          subject: row.subject,
          text: row.textBody,
          html: row.htmlBody,
          kind: row.kind,
          attachments: row.attachments ?? [],
        });
        await this.db
          .update(emailOutbox)
          .set({
            status: 'sent',
            sentAt: new Date(),
            lockedUntil: null,
            lastError: null,
            // Links and codes are secrets: once delivered, the outbox keeps only that it was sent.
            ...(secretBearingKinds.has(row.kind) ? { textBody: removedAfterDelivery, subject: removedAfterDelivery, htmlBody: null } : {}),
          })
          .where(sql`${emailOutbox.id} = ${row.id}`);
        sent += 1;
      } catch (error) {
        const message = error instanceof Error ? error.message.slice(0, 500) : String(error);
        const isFinal = row.attempts >= this.options.maxAttempts;
        await this.db
          .update(emailOutbox)
          .set({
            status: isFinal ? 'failed' : 'pending',
            lastError: message,
            lockedUntil: null,
            nextAttemptAt: sql`now() + make_interval(secs => ${getRetryDelaySeconds(row.attempts)})`,
          })
          .where(isStillHeld);
        this.log.warn({ event: isFinal ? 'email.failed' : 'email.retry', emailId: row.id, attempts: row.attempts, error: message }, 'email not delivered');
      }
    }
    return sent;
  }
}
