import { useEffect, useRef } from 'react';
import { formatPeriod, invoiceStatusLabels, type InvoiceSummary } from '#shared/billing.ts';
import { formatDate } from '#shared/dates.ts';
import { formatCents } from '#shared/pricing.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

/** An invoice's status as people say it: "Overdue" for an issued invoice past its due date. */
export function InvoiceStatus({ invoice }: { invoice: Pick<InvoiceSummary, 'status' | 'isOverdue'> }) {
  const label = invoice.isOverdue ? 'Overdue' : invoiceStatusLabels[invoice.status];
  return <span className={`badge invoice-${invoice.isOverdue ? 'overdue' : invoice.status}`}>{label}</span>;
}

/** What an invoice is called in a list: its number, or the draft of its month. */
export const invoiceName = (invoice: Pick<InvoiceSummary, 'number' | 'period'>) => invoice.number ?? `Draft for ${formatPeriod(invoice.period)}`;

/** When it is due, paid or was voided, as a sentence fragment. */
function whenText(invoice: InvoiceSummary): string {
  if (invoice.status === 'paid' && invoice.paidAt) return `Paid ${formatDate(invoice.paidAt)}`;
  if (invoice.status === 'void' && invoice.voidedAt) return `Void since ${formatDate(invoice.voidedAt)}`;
  if (invoice.dueAt) return `Due ${formatDate(invoice.dueAt)}`;
  return 'Not issued yet';
}

interface InvoiceTableProps {
  caption: string;
  invoices: readonly InvoiceSummary[];
  showCompany: boolean;
  onOpen: (invoice: InvoiceSummary) => void;
}

/** Invoices in a table (stacked on a phone), each opened with one button. */
export function InvoiceTable({ caption, invoices, showCompany, onOpen }: InvoiceTableProps) {
  const tableRef = useRef<HTMLTableElement>(null);
  useEffect(() => labelCellsByHeaders(tableRef.current), [invoices, showCompany]);
  return (
    <table ref={tableRef} className="table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Invoice</th>
          {showCompany ? <th scope="col">Company</th> : null}
          <th scope="col">Month</th>
          <th scope="col">Status</th>
          <th scope="col">Total</th>
          <th scope="col">When</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {invoices.map((invoice) => (
          <tr key={invoice.id}>
            <th scope="row">{invoiceName(invoice)}</th>
            {showCompany ? <td>{invoice.companyName}</td> : null}
            <td>{formatPeriod(invoice.period)}</td>
            <td>
              <InvoiceStatus invoice={invoice} />
            </td>
            <td>{`${formatCents(invoice.totalCents)} · ${invoice.jobCount === 1 ? 'one job' : `${invoice.jobCount} jobs`}`}</td>
            <td>{whenText(invoice)}</td>
            <td>
              <button type="button" className={invoice.status === 'draft' || invoice.isOverdue ? 'button primary' : 'button'} onClick={() => onOpen(invoice)}>
                Open<span className="visually-hidden"> {invoiceName(invoice)}</span>
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
