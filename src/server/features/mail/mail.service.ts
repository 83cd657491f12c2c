import { desc, eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { MailboxPage, mailboxQuerySchema } from '#shared/mail.ts';
import { localMailbox } from '#server/db/schema/index.ts';
import type { Ctx } from '#server/lib/context.ts';
import { notFound, unauthorized } from '#server/lib/errors.ts';
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
        attachments: (row.attachments ?? []).map((file, index) => ({
          index,
          filename: file.filename,
          contentType: file.contentType,
          size: Buffer.byteLength(file.content, 'utf8'),
        })),
      })),
      total: totals[0]?.count ?? 0,
      page: query.page,
      pageSize: query.pageSize,
      isLocalMailbox,
    };
  });
}

/**
 * One attachment of a message in the local mailbox, for an administrator; the read is recorded in the
 * account audit trail as reading the mailbox is. 404 when the message or the attachment is not there.
 */
export async function readMailboxAttachment(ctx: Ctx, messageId: string, index: number): Promise<{ filename: string; contentType: string; content: string }> {
  const admin = ctx.user;
  if (!admin) throw unauthorized();
  const [row] = await ctx.db.select({ attachments: localMailbox.attachments }).from(localMailbox).where(eq(localMailbox.id, messageId)).limit(1);
  const file = row?.attachments?.[index];
  if (!file) throw notFound('No such attachment in the local mailbox.');
  await appendAuditEvent(ctx, {
    action: 'mail.attachment_read',
    data: { adminId: admin.id, adminName: admin.name, messageId, filename: file.filename },
  });
  return file;
}
