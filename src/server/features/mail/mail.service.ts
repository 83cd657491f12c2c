import { desc, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { MailboxPage, mailboxQuerySchema } from '#shared/mail.ts';
import { localMailbox } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { unauthorized } from '#server/lib/errors.ts';
import { appendAuditEvent } from '#server/features/audit/audit.service.ts';

/**
 * One page of the local mailbox, newest first, for an administrator. Messages carry live links and
 * codes, so every read is recorded in the account audit trail with the administrator's name.
 */
export async function findMailboxMessages(ctx: Ctx, query: z.output<typeof mailboxQuerySchema>): Promise<MailboxPage> {
  const admin = ctx.user;
  if (!admin) throw unauthorized();
  const isLocalMailbox = ctx.config.email.smtpUrl === null;
  return ctx.db.transaction(async (tx) => {
    const [rows, totals] = await Promise.all([
      tx
        .select()
        .from(localMailbox)
        .orderBy(desc(localMailbox.deliveredAt), desc(localMailbox.id))
        .limit(query.pageSize)
        .offset((query.page - 1) * query.pageSize),
      tx.select({ count: sql<number>`count(*)::int` }).from(localMailbox),
    ]);
    await appendAuditEvent(
      { ...ctx, db: tx },
      {
        action: 'mail.read',
        data: {
          adminId: admin.id,
          adminName: admin.name,
          adminEmail: admin.email,
          page: query.page,
          pageSize: query.pageSize,
          messageIds: rows.map((row) => row.id),
        },
      },
    );
    return {
      items: rows.map((row) => ({
        id: row.id,
        to: row.toAddress,
        subject: row.subject,
        text: row.textBody,
        kind: row.kind,
        deliveredAt: row.deliveredAt.toISOString(),
      })),
      total: totals[0]?.count ?? 0,
      page: query.page,
      pageSize: query.pageSize,
      isLocalMailbox,
    };
  });
}
