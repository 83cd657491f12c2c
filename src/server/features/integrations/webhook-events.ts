import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { WebhookEventType } from '#shared/webhooks.ts';
import type { DbOrTx } from '#server/db/client.ts';
import { jobs } from '#server/db/schema/index.ts';

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
  await db.execute(sql`insert into webhook_deliveries (endpoint_id, event_id, event_type, body)
    select id, ${eventId}::uuid, ${type}::text, ${body}::text from webhook_endpoints
    where company_id = ${companyId}::uuid and disabled_at is null and ${type}::text = any(events)`);
}

/** queueWebhookEvent for a job's event where only the job's id is at hand: the job's company is read first. */
export async function queueJobWebhookEvent<Type extends WebhookEventType>(db: DbOrTx, jobId: string, type: Type, data: WebhookEventData[Type]): Promise<void> {
  const [job] = await db.select({ companyId: jobs.companyId }).from(jobs).where(eq(jobs.id, jobId)).limit(1);
  await queueWebhookEvent(db, job?.companyId, type, data);
}
