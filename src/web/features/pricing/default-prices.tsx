import './pricing.css';
import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { feeKindLabels, formatCents, priceItemSchema, priceListSchema, priceUnitLabels, type PriceItem } from '#shared/pricing.ts';
import { defaultPricesQueryOptions, pricingKeys } from '#web/api/pricing.ts';
import { FormAlert } from '#web/components/field.tsx';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';
import { useDecision } from '#web/components/use-decision.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { PriceDialog } from './price-dialog.tsx';

/**
 * The platform's default prices, in the order invoices list them. Administrators and finance add,
 * change, move and remove them; billing staff read them.
 */
export function DefaultPrices({ canChange }: { canChange: boolean }) {
  const queryClient = useQueryClient();
  const prices = useQuery(defaultPricesQueryOptions());
  const { dialog, outcome, busyId, decide } = useDecision();
  const { notice, show } = useNotice();
  const [editing, setEditing] = useState<{ item: PriceItem | null } | null>(null);
  const [moveError, setMoveError] = useState<string | null>(null);
  const [isMoving, setIsMoving] = useState(false);
  const tableRef = useRef<HTMLTableElement>(null);
  const items = prices.data?.items ?? [];
  useEffect(() => labelCellsByHeaders(tableRef.current), [items.length]);

  const refresh = () => queryClient.invalidateQueries({ queryKey: pricingKeys.all });

  const move = async (index: number, by: -1 | 1) => {
    const order = items.map((item) => item.key);
    const [moved] = order.splice(index, 1);
    if (!moved) return;
    order.splice(index + by, 0, moved);
    setMoveError(null);
    setIsMoving(true);
    try {
      const answer = await api.post('/api/admin/pricing/defaults/reorder', { order }, priceListSchema);
      queryClient.setQueryData(pricingKeys.defaults(), answer);
      await refresh();
    } catch (caught) {
      setMoveError(caught instanceof ApiError ? caught.message : 'The order could not be saved. Please try again.');
    } finally {
      setIsMoving(false);
    }
  };

  const remove = (item: PriceItem, opener: HTMLElement) =>
    decide(
      item.key,
      opener,
      {
        title: `Remove “${item.label}” from the default prices?`,
        description: 'Jobs completed from now on are not charged for it, unless a company keeps an amount of its own. Charges already made keep it.',
        confirmLabel: 'Remove price',
        cancelLabel: 'Keep it',
        confirmTone: 'danger',
      },
      async () => {
        const answer = await api.delete(`/api/admin/pricing/defaults/${encodeURIComponent(item.key)}`);
        await refresh();
        return { message: readServerMessage(answer, `“${item.label}” was removed.`) };
      },
    );

  return (
    <section className="card stack" aria-labelledby="default-prices-title">
      <div className="row wrap between">
        <h2 id="default-prices-title">Default prices</h2>
        {canChange ? (
          <button type="button" className="button primary" onClick={() => setEditing({ item: null })}>
            Add a price
          </button>
        ) : null}
      </div>
      <p className="muted">
        Every title company pays these unless it has prices of its own. Jobs are charged once, when they complete, at the prices of that moment.
      </p>
      {dialog}
      {outcome}
      {notice}
      <FormAlert message={prices.error?.message ?? moveError} />
      {prices.isPending ? <p role="status">Loading prices…</p> : null}
      {prices.data && items.length === 0 ? (
        <p className="empty">
          {canChange ? 'No default prices yet. Add the first one, such as the notarial fee for a seal.' : 'No default prices have been set yet.'}
        </p>
      ) : null}
      {items.length > 0 ? (
        <table ref={tableRef} className="table">
          <caption className="visually-hidden">Default prices, in the order invoices list them</caption>
          <thead>
            <tr>
              <th scope="col">Price</th>
              <th scope="col">Amount</th>
              <th scope="col">Counted</th>
              <th scope="col">Kind</th>
              {canChange ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {items.map((item, index) => (
              <tr key={item.key}>
                <th scope="row">
                  {item.label}
                  <span className="muted price-key"> {item.key}</span>
                </th>
                <td>{formatCents(item.amountCents)}</td>
                <td>{priceUnitLabels[item.unit]}</td>
                <td>{item.feeKind === 'notarial' ? 'Notarial fee' : 'Platform fee'}</td>
                {canChange ? (
                  <td>
                    <div className="actions">
                      <button type="button" className="button" onClick={() => setEditing({ item })}>
                        Change<span className="visually-hidden"> {item.label}</span>
                      </button>
                      <button type="button" className="button" disabled={isMoving || index === 0} onClick={() => void move(index, -1)}>
                        Up<span className="visually-hidden"> {item.label}</span>
                      </button>
                      <button type="button" className="button" disabled={isMoving || index === items.length - 1} onClick={() => void move(index, 1)}>
                        Down<span className="visually-hidden"> {item.label}</span>
                      </button>
                      <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void remove(item, event.currentTarget)}>
                        Remove<span className="visually-hidden"> {item.label}</span>
                      </button>
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {editing ? (
        <PriceDialog
          item={editing.item}
          owner="the defaults"
          onClose={() => setEditing(null)}
          onSaved={(message) => show(message)}
          save={async (input) => {
            const answer = editing.item
              ? await api.put(`/api/admin/pricing/defaults/${encodeURIComponent(editing.item.key)}`, input, priceItemSchema)
              : await api.post('/api/admin/pricing/defaults', input, priceItemSchema);
            await refresh();
            return `${answer.label} is ${formatCents(answer.amountCents)} ${priceUnitLabels[answer.unit]} (${feeKindLabels[answer.feeKind].toLowerCase()}).`;
          }}
        />
      ) : null}
    </section>
  );
}
