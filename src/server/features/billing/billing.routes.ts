import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  companyInvoicesQuerySchema,
  companyInvoicesSchema,
  ownBillingCompaniesSchema,
  generateInvoicesInputSchema,
  generateInvoicesResultSchema,
  invoiceDetailSchema,
  invoiceListQuerySchema,
  invoiceListSchema,
  markInvoicePaidInputSchema,
  voidInvoiceInputSchema,
} from '#shared/billing.ts';
import { companyParams, idParams } from '#server/lib/route-params.ts';
import { invoiceFileName, renderInvoiceCsv, renderInvoicePdf } from './invoice-files.ts';
import {
  billingStaff,
  findOwnBillingCompany,
  generateInvoices,
  getInvoice,
  issueInvoice,
  listCompanyInvoices,
  listInvoices,
  markInvoicePaid,
  paymentStaff,
  readWholeInvoice,
  voidInvoice,
} from './invoices.service.ts';

/** Who reads invoices: billing staff every company's, a company's own title staff theirs, and its agents when it lets them (checked by the service). */
const invoiceReaders = [...billingStaff, 'title', 'title_agent'] as const;

const invoiceParams = idParams('Invoice');
/** Invoices, under /api/billing (decision 049). */
export const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/invoices',
    { config: { access: billingStaff }, schema: { querystring: invoiceListQuerySchema, response: { 200: invoiceListSchema } } },
    async (request) => listInvoices(request.ctx, request.query),
  );
  app.post(
    '/invoices/generate',
    { config: { access: billingStaff }, schema: { body: generateInvoicesInputSchema, response: { 200: generateInvoicesResultSchema } } },
    async (request) => generateInvoices(request.ctx, request.body.period),
  );
  app.get(
    '/invoices/:id',
    { config: { access: invoiceReaders }, schema: { params: invoiceParams, querystring: companyInvoicesQuerySchema, response: { 200: invoiceDetailSchema } } },
    async (request) => getInvoice(request.ctx, request.params.id, request.query.page),
  );
  app.get('/invoices/:id/pdf', { config: { access: invoiceReaders }, schema: { params: invoiceParams } }, async (request, reply) => {
    const invoice = await readWholeInvoice(request.ctx, request.params.id);
    const pdf = await renderInvoicePdf(invoice, { name: 'Open RON', url: request.ctx.config.publicUrl });
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${invoiceFileName(invoice.summary, 'pdf')}"`)
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });
  app.get('/invoices/:id/csv', { config: { access: invoiceReaders }, schema: { params: invoiceParams } }, async (request, reply) => {
    const invoice = await readWholeInvoice(request.ctx, request.params.id);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${invoiceFileName(invoice.summary, 'csv')}"`)
      .header('cache-control', 'private, no-store')
      .send(renderInvoiceCsv(invoice));
  });
  app.post(
    '/invoices/:id/issue',
    { config: { access: billingStaff }, schema: { params: invoiceParams, response: { 200: invoiceDetailSchema } } },
    async (request) => issueInvoice(request.ctx, request.params.id),
  );
  app.post(
    '/invoices/:id/pay',
    { config: { access: paymentStaff }, schema: { params: invoiceParams, body: markInvoicePaidInputSchema, response: { 200: invoiceDetailSchema } } },
    async (request) => markInvoicePaid(request.ctx, request.params.id, request.body.reference),
  );
  app.post(
    '/invoices/:id/void',
    { config: { access: paymentStaff }, schema: { params: invoiceParams, body: voidInvoiceInputSchema, response: { 200: invoiceDetailSchema } } },
    async (request) => voidInvoice(request.ctx, request.params.id, request.body.reason),
  );
  app.get(
    '/companies/:id/invoices',
    {
      config: { access: invoiceReaders },
      schema: { params: companyParams, querystring: companyInvoicesQuerySchema, response: { 200: companyInvoicesSchema } },
    },
    async (request) => listCompanyInvoices(request.ctx, request.params.id, request.query.page),
  );
  app.get('/company', { config: { access: ['title', 'title_agent'] }, schema: { response: { 200: ownBillingCompaniesSchema } } }, async (request) =>
    findOwnBillingCompany(request.ctx),
  );
};
