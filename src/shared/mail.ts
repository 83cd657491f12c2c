import { z } from 'zod';

/** Without SMTP_URL, mail is delivered to the local mailbox, which administrators read at /admin/mail. */
export const mailboxQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .min(1, { message: 'pageSize must be between 1 and 100.' })
    .max(100, { message: 'pageSize must be between 1 and 100.' })
    .default(20),
});
export type MailboxQuery = z.input<typeof mailboxQuerySchema>;

/** A file that came with a message (a calendar invitation), fetched from /api/admin/mail/{id}/attachments/{index}. */
export const mailboxAttachmentSchema = z.object({ index: z.number().int(), filename: z.string(), contentType: z.string(), size: z.number().int() });
export type MailboxAttachment = z.infer<typeof mailboxAttachmentSchema>;

export const mailboxMessageSchema = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  kind: z.string(),
  deliveredAt: z.string(),
  attachments: z.array(mailboxAttachmentSchema),
});

export const mailboxAttachmentParamsSchema = z.object({
  id: z.uuid({ message: 'That is not a message id.' }),
  index: z.coerce.number({ message: 'index must be a whole number.' }).int({ message: 'index must be a whole number.' }).min(0).max(99),
});
export type MailboxMessage = z.infer<typeof mailboxMessageSchema>;

export const mailboxPageSchema = z.object({
  items: z.array(mailboxMessageSchema),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** False when SMTP_URL is set: mail goes out by SMTP and nothing is kept here. */
  isLocalMailbox: z.boolean(),
});
export type MailboxPage = z.infer<typeof mailboxPageSchema>;

/** One email template rendered with sample facts, for the administrators' preview at /admin/mail/templates. */
export const mailTemplatePreviewSchema = z.object({
  name: z.string(),
  title: z.string(),
  purpose: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
});
export type MailTemplatePreview = z.infer<typeof mailTemplatePreviewSchema>;

export const mailTemplatePreviewsSchema = z.object({ templates: z.array(mailTemplatePreviewSchema) });
export type MailTemplatePreviews = z.infer<typeof mailTemplatePreviewsSchema>;
