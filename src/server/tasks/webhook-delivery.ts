import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '#server/db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '#server/db/schema/index.ts';
import { decryptSecret } from '#server/lib/secrets.ts';
import type { AddressPolicy } from '#server/features/integrations/webhook-address.ts';
import { sendWebhook, webhookTimeoutMs, type WebhookAttempt } from '#server/features/integrations/webhook-sender.ts';

const batchSize = 10;
/** A claimed delivery is another instance's to take once this has passed without an answer recorded. */
const leaseSeconds = 60;
/** Deliveries are tried for this long after they were queued (a replay counts from its own queueing). */
export const retryWindowMs = 24 * 3600_000;
/** The wait after the 1st, 2nd … failed try; after the last, 12 hours again until the window closes. */
export const retryDelaysSeconds = [60, 5 * 60, 30 * 60, 2 * 3600, 6 * 3600, 12 * 3600] as const;

/** When to try again after `attempts` failed tries of a delivery queued at `createdAt`; null: no more tries. */
export function getNextAttemptAt(attempts: number, createdAt: Date, now: Date): Date | null {
  const deadline = createdAt.getTime() + retryWindowMs;
  if (now.getTime() >= deadline) return null;
  const delay = retryDelaysSeconds[Math.min(attempts, retryDelaysSeconds.length) - 1] ?? retryDelaysSeconds[0];
  return new Date(Math.min(now.getTime() + delay * 1000, deadline));
}

/**
 * Sends the webhook outbox (decision 055). A batch of due deliveries of active endpoints is claimed
 * with FOR UPDATE SKIP LOCKED in one statement that counts the try and moves its next attempt a
 * lease ahead, so no other instance takes them; each is sent outside any transaction, and its
 * outcome recorded only if the try is still this one's (same attempt number). A process that stops
 * mid-way leaves the row pending: it is tried again when the lease runs out. Nothing is lost, and a
 * receiver de-duplicates the rare second send by the event id (Webhook-Id).
 */
export class WebhookDelivery {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private isStopped = false;

  constructor(
    private readonly db: Db,
    private readonly secretsKey: Buffer,
    private readonly log: FastifyBaseLogger,
    private readonly options: { pollMs: number; policy: AddressPolicy; timeoutMs?: number },
  ) {}

  start(): void {
    this.isStopped = false;
    const tick = async () => {
      if (this.isStopped) return;
      try {
        await this.runOnce();
      } catch (error) {
        this.log.error({ err: error }, 'webhook delivery pass failed');
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

  /** One pass; returns how many deliveries were delivered. Concurrent calls share the pass in flight. */
  runOnce(): Promise<number> {
    this.running ??= this.deliverBatch().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async deliverBatch(): Promise<number> {
    const claimed = await this.db
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        lastAttemptAt: sql`now()`,
        nextAttemptAt: sql`now() + make_interval(secs => ${leaseSeconds})`,
      })
      .where(
        sql`${webhookDeliveries.id} in (select d.id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where d.status = 'pending' and d.next_attempt_at <= now() and e.disabled_at is null
          order by d.next_attempt_at limit ${batchSize} for update of d skip locked)`,
      )
      .returning();
    claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    let delivered = 0;
    for (const row of claimed) {
      const isStillHeld = and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.status, 'pending'), eq(webhookDeliveries.attempts, row.attempts));
      // Renewed right before the send: an earlier slow send in this batch may have used up the lease.
      const renewed = await this.db
        .update(webhookDeliveries)
        .set({ nextAttemptAt: sql`now() + make_interval(secs => ${leaseSeconds})`, lastAttemptAt: sql`now()` })
        .where(isStillHeld)
        .returning({ id: webhookDeliveries.id });
      if (renewed.length === 0) continue;
      const [endpoint] = await this.db
        .select({ url: webhookEndpoints.url, secretSealed: webhookEndpoints.secretSealed, disabledAt: webhookEndpoints.disabledAt })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, row.endpointId))
        .limit(1);
      if (!endpoint || endpoint.disabledAt) continue;
      let attempt: WebhookAttempt;
      try {
        const secret = decryptSecret(this.secretsKey, endpoint.secretSealed);
        attempt = await sendWebhook(
          { url: endpoint.url, eventId: row.eventId, body: row.body, secret },
          this.options.policy,
          this.options.timeoutMs ?? webhookTimeoutMs,
        );
      } catch (error) {
        this.log.error({ err: error, deliveryId: row.id }, 'webhook delivery could not be prepared');
        attempt = { isDelivered: false, responseStatus: null, error: 'The delivery could not be prepared (its signing secret could not be read).' };
      }
      const now = new Date();
      if (attempt.isDelivered) {
        await this.db
          .update(webhookDeliveries)
          .set({ status: 'delivered', deliveredAt: now, responseStatus: attempt.responseStatus, lastError: null })
          .where(isStillHeld);
        delivered += 1;
        continue;
      }
      const next = getNextAttemptAt(row.attempts, row.createdAt, now);
      await this.db
        .update(webhookDeliveries)
        .set({
          status: next ? 'pending' : 'failed',
          responseStatus: attempt.responseStatus,
          lastError: attempt.error,
          ...(next ? { nextAttemptAt: next } : {}),
        })
        .where(isStillHeld);
      this.log.warn(
        { event: next ? 'webhook.retry' : 'webhook.failed', deliveryId: row.id, attempts: row.attempts, status: attempt.responseStatus },
        'webhook not delivered',
      );
    }
    return delivered;
  }
}
