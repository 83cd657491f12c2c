import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { WebhookEventType } from '#shared/webhooks.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobs, webhookDeliveries, webhookEndpoints } from '#server/db/schema/index.ts';

/** What each event carries (docs/WEBHOOKS.md): ids, statuses and times, never personal or ID data. */
export interface WebhookEventData {
  'job.created': { jobId: string; status: string; notarizationType: string; scheduledAt: string | null; createdAt: string };
  'participant.invited': { jobId: string; participantId: string; role: string; invitedAt: string };
  'identity.passed': { jobId: string; participantId: string; checkId: string; passedAt: string };
  'session.started': { jobId: string; sessionId: string; startedAt: string };
  'recording.stored': { jobId: string; sessionId: string; recordingId: string; segmentCount: number; stoppedAt: string };
  'document.notarized': { jobId: string; documentId: string; notarizedDocumentId: string; sha256: string; isNotarialAct: boolean; notarizedAt: string };
  'job.completed': { jobId: string; status: 'completed'; completedAt: string };
  'invoice.issued': { invoiceId: string; number: string | null; period: string; totalCents: number; issuedAt: string; dueAt: string | null };
}

/**
 * Queues one event for every active endpoint of the company that asked for its type: call it inside
 * the transaction of the change it reports, so the event is sent if and only if the change is
 * committed (the webhook outbox, sent by tasks/webhook-delivery.ts). One statement; a company with
 * no endpoint for the type costs one indexed read. No company (a job of nobody's company): nothing.
 */
export async function queueWebhookEvent<Type extends WebhookEventType>(
  db: DbOrTx,
  companyId: string | null | undefined,
  type: Type,
  data: WebhookEventData[Type],
): Promise<void> {
  if (!companyId) return;
  const eventId = randomUUID();
  const body = JSON.stringify({ id: eventId, type, createdAt: new Date().toISOString(), companyId, data });
  // A closed company receives nothing more (its endpoints are disabled as it closes; the join keeps it so).
  await db.execute(sql`insert into webhook_deliveries (endpoint_id, event_id, event_type, body)
    select e.id, ${eventId}::uuid, ${type}::text, ${body}::text from webhook_endpoints e
    join title_companies c on c.id = e.company_id and c.closed_at is null
    where e.company_id = ${companyId}::uuid and e.disabled_at is null and ${type}::text = any(e.events)`);
}

/**
 * A company closing (company-admin.service.ts closeCompany, in its transaction): its endpoints are
 * disabled and what still waits to be sent fails with a sentence; the log stays for administrators.
 */
export async function stopWebhooksOfClosedCompany(db: DbOrTx, companyId: string, now: Date): Promise<{ endpoints: number; deliveries: number }> {
  const endpoints = await db
    .update(webhookEndpoints)
    .set({ disabledAt: now, updatedAt: now })
    .where(and(eq(webhookEndpoints.companyId, companyId), isNull(webhookEndpoints.disabledAt)))
    .returning({ id: webhookEndpoints.id });
  if (endpoints.length === 0) return { endpoints: 0, deliveries: 0 };
  const stopped = await db
    .update(webhookDeliveries)
    .set({ status: 'failed', lastError: 'The company was closed before this was delivered.' })
    .where(
      and(
        inArray(
          webhookDeliveries.endpointId,
          endpoints.map((row) => row.id),
        ),
        eq(webhookDeliveries.status, 'pending'),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return { endpoints: endpoints.length, deliveries: stopped.length };
}

/** queueWebhookEvent for a job's event where only the job's id is at hand: the job's company is read first. */
export async function queueJobWebhookEvent<Type extends WebhookEventType>(db: DbOrTx, jobId: string, type: Type, data: WebhookEventData[Type]): Promise<void> {
  const [job] = await db.select({ companyId: jobs.companyId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  await queueWebhookEvent(db, job?.companyId, type, data);
}
