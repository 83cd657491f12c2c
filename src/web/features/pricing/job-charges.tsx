import './pricing.css';
import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatCents, priceUnitLabels } from '#shared/pricing.ts';
import { formatDateTime } from '#shared/dates.ts';
import { jobChargesQueryOptions } from '#web/api/pricing.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

/**
 * What a completed job was charged: each line with its quantity and unit amount, the notarial fee
 * apart from the platform's fees, and the total. Shown to administrators and the company's title staff.
 */
export function JobChargesCard({ jobId }: { jobId: string }) {
  const charges = useQuery(jobChargesQueryOptions(jobId, true));
  const tableRef = useRef<HTMLTableElement>(null);
  const items = charges.data?.items ?? [];
  useEffect(() => labelCellsByHeaders(tableRef.current), [items.length]);
  // Title staff of another company than the job's are not told its charges: the card stays away.
  if (charges.error instanceof ApiError && charges.error.status === 404) return null;
  return (
    <section className="card stack" aria-labelledby="job-charges-title">
      <h2 id="job-charges-title">Charges</h2>
      <FormAlert message={charges.error?.message ?? null} />
      {charges.isPending ? <p role="status">Loading charges…</p> : null}
      {charges.data && items.length === 0 ? (
        <p className="empty">{charges.data.chargedAt ? 'Nothing was charged: no price applied to this job.' : 'Charges are made when the job completes.'}</p>
      ) : null}
      {charges.data && items.length > 0 ? (
        <>
          <p className="muted">Charged {charges.data.chargedAt ? formatDateTime(charges.data.chargedAt) : ''}, at the prices of that moment.</p>
          <table ref={tableRef} className="table">
            <caption className="visually-hidden">What the job was charged</caption>
            <thead>
              <tr>
                <th scope="col">Charge</th>
                <th scope="col">Quantity</th>
                <th scope="col">Each</th>
                <th scope="col">Amount</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.key}>
                  <th scope="row">
                    {item.label}
                    <span className="muted fee-kind">{item.feeKind === 'notarial' ? 'Notarial fee' : 'Platform fee'}</span>
                  </th>
                  <td>
                    {item.quantity} {priceUnitLabels[item.unit].replace(/^per /, '× ')}
                  </td>
                  <td>{formatCents(item.unitAmountCents)}</td>
                  <td>{formatCents(item.amountCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <dl className="charge-totals">
            <dt>Notarial fee</dt>
            <dd>{formatCents(charges.data.notarialFeeCents)}</dd>
            <dt>Platform fees</dt>
            <dd>{formatCents(charges.data.platformFeeCents)}</dd>
            <dt>Total</dt>
            <dd className="strong">{formatCents(charges.data.totalCents)}</dd>
          </dl>
        </>
      ) : null}
    </section>
  );
}
