import { queryOptions } from '@tanstack/react-query';
import { mailTemplatePreviewsSchema } from '#shared/mail.ts';
import { api } from '#web/lib/api.ts';

/** Query keys of the administrators' mail pages: the local mailbox a page at a time, and the template previews. */
export const mailKeys = {
  all: ['mail'] as const,
  page: (page: number) => [...mailKeys.all, 'page', page] as const,
  templates: () => [...mailKeys.all, 'templates'] as const,
};

/** GET /api/admin/mail/templates: every email template rendered with sample facts. */
export function mailTemplatesQueryOptions() {
  return queryOptions({ queryKey: mailKeys.templates(), queryFn: () => api.get('/api/admin/mail/templates', mailTemplatePreviewsSchema), retry: false });
}
