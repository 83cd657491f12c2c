import './pricing.css';
import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { companyPriceItemSchema, formatCents, priceUnitLabels, seedCompanyPricesResultSchema, type CompanyPriceItem } from '#shared/pricing.ts';
import { companyPricesQueryOptions, companySearchQueryOptions, pricingKeys } from '#web/api/pricing.ts';
import { FormAlert } from '#web/components/field.tsx';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';
import { useDecision } from '#web/components/use-decision.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { api } from '#web/lib/api.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { PriceDialog } from './price-dialog.tsx';

/**
 * One title company's prices: found by name, city or state, shown with which amounts are its own
 * and which the defaults. Administrators and finance give it amounts of its own, copy the defaults
 * to it, or send an item back to the default.
 */
export function CompanyPrices({ canChange }: { canChange: boolean }) {
  const [query, setQuery] = useState('');
  const [company, setCompany] = useState<{ id: string; name: string } | null>(null);
  const search = useQuery({ ...companySearchQueryOptions(query.trim()), enabled: company === null });
  const matches = search.data?.items ?? [];

  return (
    <section className="card stack" aria-labelledby="company-prices-title">
      <h2 id="company-prices-title">A company’s prices</h2>
      {company ? (
        <>
          <div className="row wrap between">
            <p className="strong">{company.name}</p>
            <button type="button" className="button" onClick={() => setCompany(null)}>
              Choose another company
            </button>
          </div>
          <CompanyPriceList companyId={company.id} companyName={company.name} canChange={canChange} />
        </>
      ) : (
        <>
          <div className="field">
            <label htmlFor="company-price-search">Find a title company</label>
            <input id="company-price-search" type="search" value={query} placeholder="Name, city or state" onChange={(event) => setQuery(event.target.value)} />
          </div>
          <FormAlert message={search.error?.message ?? null} />
          {search.isPending ? <p role="status">Loading companies…</p> : null}
          {search.data && matches.length === 0 ? <p className="empty">No approved title company matches “{query.trim()}”.</p> : null}
          {matches.length > 0 ? (
            <ul className="choice-list" aria-label="Title companies">
              {matches.map((match) => (
                <li key={match.id}>
                  <button type="button" className="button" onClick={() => setCompany({ id: match.id, name: match.name })}>
                    {match.name}
                    {match.city || match.state ? <span className="muted"> · {[match.city, match.state].filter(Boolean).join(', ')}</span> : null}
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
        </>
      )}
    </section>
  );
}

function CompanyPriceList({ companyId, companyName, canChange }: { companyId: string; companyName: string; canChange: boolean }) {
  const queryClient = useQueryClient();
  const prices = useQuery(companyPricesQueryOptions(companyId));
  const { dialog, outcome, busyId, decide } = useDecision();
  const { notice, show } = useNotice();
  const [editing, setEditing] = useState<CompanyPriceItem | null>(null);
  const tableRef = useRef<HTMLTableElement>(null);
  const items = prices.data?.items ?? [];
  const ownCount = items.filter((item) => item.source === 'company').length;
  useEffect(() => labelCellsByHeaders(tableRef.current), [items.length]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: pricingKeys.company(companyId) });

  const seed = (opener: HTMLElement) =>
    decide(
      'seed',
      opener,
      ownCount > 0
        ? {
            title: `Copy the default prices to ${companyName}?`,
            description: `${companyName} has ${ownCount === 1 ? 'an amount' : `${ownCount} amounts`} of its own. They are kept; the other defaults become its own, so later changes to the defaults no longer reach it.`,
            confirmLabel: 'Copy and keep its own',
            cancelLabel: 'Cancel',
          }
        : {
            title: `Copy the default prices to ${companyName}?`,
            description: 'They become its own, so later changes to the defaults no longer reach it.',
            confirmLabel: 'Copy the defaults',
            cancelLabel: 'Cancel',
          },
      async () => {
        const answer = await api.post(`/api/admin/pricing/company/${encodeURIComponent(companyId)}/seed`, { overwrite: false }, seedCompanyPricesResultSchema);
        await refresh();
        return { message: answer.message };
      },
    );

  const returnToDefault = (item: CompanyPriceItem, opener: HTMLElement) =>
    decide(
      item.key,
      opener,
      {
        title: `Use the default for “${item.label}”?`,
        description: `${companyName}’s own amount, ${formatCents(item.amountCents)}, is removed; jobs it completes from now on pay the default.`,
        confirmLabel: 'Use the default',
        cancelLabel: 'Keep its own',
      },
      async () => {
        const answer = await api.delete(`/api/admin/pricing/company/${encodeURIComponent(companyId)}/items/${encodeURIComponent(item.key)}`);
        await refresh();
        return { message: readServerMessage(answer, `${companyName} pays the default for “${item.label}” again.`) };
      },
    );

  return (
    <div className="stack">
      {dialog}
      {outcome}
      {notice}
      <FormAlert message={prices.error?.message ?? null} />
      {prices.isPending ? <p role="status">Loading prices…</p> : null}
      {prices.data && items.length === 0 ? <p className="empty">There are no prices yet: add default prices first.</p> : null}
      {canChange && items.length > 0 ? (
        <div className="actions">
          <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void seed(event.currentTarget)}>
            Copy the default prices
          </button>
        </div>
      ) : null}
      {items.length > 0 ? (
        <table ref={tableRef} className="table">
          <caption className="visually-hidden">Prices of {companyName}</caption>
          <thead>
            <tr>
              <th scope="col">Price</th>
              <th scope="col">Amount</th>
              <th scope="col">Counted</th>
              <th scope="col">From</th>
              {canChange ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.key}>
                <th scope="row">{item.label}</th>
                <td>{formatCents(item.amountCents)}</td>
                <td>{priceUnitLabels[item.unit]}</td>
                <td>{item.source === 'company' ? 'Its own' : 'The default'}</td>
                {canChange ? (
                  <td>
                    <div className="actions">
                      <button type="button" className="button" onClick={() => setEditing(item)}>
                        Set its amount<span className="visually-hidden"> for {item.label}</span>
                      </button>
                      {item.source === 'company' ? (
                        <button
                          type="button"
                          className="button"
                          disabled={busyId !== null}
                          onClick={(event) => void returnToDefault(item, event.currentTarget)}
                        >
                          Use the default<span className="visually-hidden"> for {item.label}</span>
                        </button>
                      ) : null}
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
          item={editing}
          owner={companyName}
          isAmountOnly
          onClose={() => setEditing(null)}
          onSaved={(message) => show(message)}
          save={async (input) => {
            const answer = await api.put(
              `/api/admin/pricing/company/${encodeURIComponent(companyId)}/items/${encodeURIComponent(editing.key)}`,
              { amountCents: input.amountCents },
              companyPriceItemSchema,
            );
            await refresh();
            return `${companyName} pays ${formatCents(answer.amountCents)} ${priceUnitLabels[answer.unit]} for “${answer.label}”.`;
          }}
        />
      ) : null}
    </div>
  );
}
