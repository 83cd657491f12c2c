import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatPeriod, invoiceDetailSchema, paymentReferenceSchema, voidInvoiceInputSchema, type InvoiceDetail } from '#shared/billing.ts';
import { formatDate } from '#shared/dates.ts';
import { formatCents, priceUnitLabels } from '#shared/pricing.ts';
import { billingKeys, invoiceFileUrl, invoiceQueryOptions } from '#web/api/billing.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { Pager } from '#web/components/pager.tsx';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';
import { InvoiceStatus, invoiceName } from './invoice-table.tsx';

/** Who an invoice is to, and the facts of its life so far, as sentences. */
function InvoiceFacts({ invoice }: { invoice: InvoiceDetail }) {
  const { billedTo } = invoice;
  const place = [billedTo.city, billedTo.state].filter(Boolean).join(', ');
  const facts = [
    invoice.issuedAt
      ? `Issued ${formatDate(invoice.issuedAt)}${invoice.issuedByName ? ` by ${invoice.issuedByName}` : ''}.`
      : 'A draft: the company does not see it until it is issued.',
    invoice.dueAt && invoice.status === 'issued' ? `Due ${formatDate(invoice.dueAt)}${invoice.isOverdue ? ', and overdue' : ''}.` : null,
    invoice.paidAt
      ? `Paid ${formatDate(invoice.paidAt)}${invoice.paidByName ? `, recorded by ${invoice.paidByName}` : ''}${invoice.paymentReference ? ` (reference ${invoice.paymentReference})` : ''}.`
      : null,
    invoice.voidedAt
      ? `Voided ${formatDate(invoice.voidedAt)}${invoice.voidedByName ? ` by ${invoice.voidedByName}` : ''}: ${invoice.voidReason ?? 'no reason recorded'}`
      : null,
  ].filter(Boolean);
  return (
    <div className="invoice-facts">
      <div>
        <p className="strong">Billed to</p>
        <p>{billedTo.name}</p>
        {billedTo.addressLine ? <p>{billedTo.addressLine}</p> : null}
        {place ? <p>{place}</p> : null}
        {billedTo.contactEmail ? <p>{billedTo.contactEmail}</p> : null}
      </div>
      <div>
        {facts.map((fact) => (
          <p key={fact}>{fact}</p>
        ))}
      </div>
    </div>
  );
}

/** The jobs of the invoice with their lines, then the notarial fees apart from the platform's, and the total. */
function InvoiceLines({ invoice }: { invoice: InvoiceDetail }) {
  if (invoice.jobs.length === 0)
    return <p className="empty">No charges are on this invoice{invoice.status === 'void' ? ': they went back on a draft of the month' : ''}.</p>;
  return (
    <div className="invoice-lines">
      {invoice.jobs.map((job) => (
        <section key={job.jobId} className="invoice-job" aria-label={`Charges of ${job.title}`}>
          <p className="row between">
            <strong>{job.title}</strong>
            <span>{formatCents(job.totalCents)}</span>
          </p>
          <p className="muted">Completed {formatDate(job.chargedAt)}</p>
          <ul>
            {job.lines.map((line, index) => (
              <li key={`${line.label}-${index}`} className="row between">
                <span>
                  {line.label}: {line.quantity} × {formatCents(line.unitAmountCents)} {priceUnitLabels[line.unit]}
                  <span className="muted"> ({line.feeKind === 'notarial' ? 'notarial fee' : 'platform fee'})</span>
                </span>
                <span>{formatCents(line.amountCents)}</span>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/** One invoice in a dialog: who, when, every job's lines and the totals; the files; and the next step the reader may take. */
export function InvoiceDialog({
  invoiceId,
  onClose,
  onChanged,
}: {
  invoiceId: string;
  onClose: () => void;
  onChanged?: (status: InvoiceDetail['status']) => void;
}) {
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const query = useQuery(invoiceQueryOptions(invoiceId, page));
  const { dialog, outcome, busyId, decide } = useDecision();
  const invoice = query.data;
  const refresh = () => queryClient.invalidateQueries({ queryKey: billingKeys.all });
  const title = invoice ? `${invoiceName(invoice)}, ${invoice.companyName}` : 'Invoice';

  const issue = (opener: HTMLElement, current: InvoiceDetail) =>
    decide(
      'issue',
      opener,
      {
        title: `Issue the invoice of ${formatCents(current.totalCents)} to ${current.companyName}?`,
        description: `It gets its number and is due in 30 days. ${current.companyName}’s title staff see it from then on; its lines can no longer change, only a void can withdraw it.`,
        confirmLabel: 'Issue the invoice',
      },
      async () => {
        const answer = await api.post(`/api/billing/invoices/${encodeURIComponent(current.id)}/issue`, {}, invoiceDetailSchema);
        await refresh();
        onChanged?.(answer.status);
        return {
          message: `Invoice ${answer.number ?? ''} is issued to ${answer.companyName}, due ${answer.dueAt ? formatDate(answer.dueAt) : ''}. It is listed under Awaiting payment.`,
        };
      },
    );
  const markPaid = (opener: HTMLElement, current: InvoiceDetail) =>
    decide(
      'pay',
      opener,
      {
        title: `Record the payment of ${formatCents(current.totalCents)} for ${invoiceName(current)}?`,
        description: 'The invoice shows as paid to everyone who sees it. This cannot be undone.',
        confirmLabel: 'Mark as paid',
        reasonLabel: 'Payment reference',
        reasonHint: 'The check number or transfer reference, as on the bank statement.',
        reasonSchema: paymentReferenceSchema,
      },
      async (reference) => {
        const answer = await api.post(`/api/billing/invoices/${encodeURIComponent(current.id)}/pay`, { reference }, invoiceDetailSchema);
        await refresh();
        onChanged?.(answer.status);
        return { message: `${invoiceName(answer)} is paid. It is listed under Paid.` };
      },
    );
  const voidIt = (opener: HTMLElement, current: InvoiceDetail) =>
    decide(
      'void',
      opener,
      {
        title: `Void ${invoiceName(current)}?`,
        description: `${current.companyName} sees it as void, with your reason. Its charges go back on a draft of ${formatPeriod(current.period)}, to be invoiced again. This cannot be undone.`,
        confirmLabel: 'Void the invoice',
        confirmTone: 'danger',
        reasonLabel: 'Why is it void?',
        reasonHint: 'The company reads this reason.',
        reasonSchema: voidInvoiceInputSchema.shape.reason,
      },
      async (reason) => {
        const answer = await api.post(`/api/billing/invoices/${encodeURIComponent(current.id)}/void`, { reason }, invoiceDetailSchema);
        await refresh();
        onChanged?.(answer.status);
        return { message: `${invoiceName(answer)} is void; its charges are back on the draft of ${formatPeriod(answer.period)}.` };
      },
    );

  return (
    <ModalDialog title={title} onClose={onClose} isWide>
      <div className="stack">
        {dialog}
        {outcome}
        <FormAlert message={query.error?.message ?? null} />
        {query.isPending ? <p role="status">Loading the invoice…</p> : null}
        {invoice ? (
          <>
            <p className="row wrap">
              <InvoiceStatus invoice={invoice} /> <span>{formatPeriod(invoice.period)}</span>
            </p>
            <InvoiceFacts invoice={invoice} />
            <InvoiceLines invoice={invoice} />
            <Pager
              page={page}
              pageSize={invoice.pageSize}
              total={invoice.jobCount}
              noun={{ one: 'job', many: 'jobs' }}
              label="Pages of the invoice’s jobs"
              onPage={setPage}
            />
            <dl className="invoice-totals">
              <div>
                <dt>Notarial fees</dt>
                <dd>{formatCents(invoice.notarialFeeCents)}</dd>
              </div>
              <div>
                <dt>Platform fees</dt>
                <dd>{formatCents(invoice.platformFeeCents)}</dd>
              </div>
              <div className="strong">
                <dt>{invoice.status === 'void' ? 'Total as issued; void, so nothing is owed' : 'Total'}</dt>
                <dd>{formatCents(invoice.totalCents)}</dd>
              </div>
            </dl>
            <div className="actions">
              {invoice.canIssue ? (
                <button type="button" className="button primary" disabled={busyId !== null} onClick={(event) => void issue(event.currentTarget, invoice)}>
                  Issue the invoice
                </button>
              ) : null}
              {invoice.canMarkPaid ? (
                <button type="button" className="button primary" disabled={busyId !== null} onClick={(event) => void markPaid(event.currentTarget, invoice)}>
                  Mark as paid
                </button>
              ) : null}
              <a className="button" href={invoiceFileUrl(invoice.id, 'pdf')} download>
                Download the PDF
              </a>
              <a className="button" href={invoiceFileUrl(invoice.id, 'csv')} download>
                Download the CSV
              </a>
              {invoice.canVoid ? (
                <button type="button" className="button danger" disabled={busyId !== null} onClick={(event) => void voidIt(event.currentTarget, invoice)}>
                  Void the invoice
                </button>
              ) : null}
              <button type="button" className="button" onClick={onClose}>
                Close
              </button>
            </div>
          </>
        ) : null}
      </div>
    </ModalDialog>
  );
}
