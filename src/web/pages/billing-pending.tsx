import '#web/features/billing/billing.css';
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Navigate, useLocation } from 'react-router';
import { formatPeriod, generateInvoicesResultSchema, invoiceFilters, periodOf, type InvoiceFilter } from '#shared/billing.ts';
import { formatCents } from '#shared/pricing.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { billingKeys, invoiceListQueryOptions } from '#web/api/billing.ts';
import { FormAlert } from '#web/components/field.tsx';
import { Pager } from '#web/components/pager.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { InvoiceDialog } from '#web/features/billing/invoice-dialog.tsx';
import { InvoiceTable } from '#web/features/billing/invoice-table.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';

const filterLabels: Record<InvoiceFilter, string> = {
  issued: 'Awaiting payment',
  overdue: 'Overdue',
  draft: 'Drafts to issue',
  paid: 'Paid',
  void: 'Void',
};
const filterOrder: InvoiceFilter[] = ['issued', 'overdue', 'draft', 'paid', 'void'];

/** What the list holds, in a sentence: "3 invoices awaiting payment, $1,250.00 in all." */
function describeList(filter: InvoiceFilter, count: number, totalCents: number): string {
  const what = count === 1 ? 'One invoice' : `${count} invoices`;
  const state = { issued: 'awaiting payment', overdue: 'overdue', draft: 'drafted and not issued yet', paid: 'paid', void: 'void' }[filter];
  return `${what} ${state}, ${formatCents(totalCents)} in all.`;
}

/** The last three months, this one first, as the months one may invoice. */
function recentPeriods(now = new Date()): string[] {
  return [0, 1, 2].map((back) => periodOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 15))));
}

/** Puts a month's charges that are on no invoice yet onto each company's draft. */
function GatherCharges({ onGathered }: { onGathered: (message: string) => void }) {
  const queryClient = useQueryClient();
  const periods = recentPeriods();
  const [period, setPeriod] = useState(periods[0]!);
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setIsBusy(true);
    setError(null);
    try {
      const answer = await api.post('/api/billing/invoices/generate', { period }, generateInvoicesResultSchema);
      await queryClient.invalidateQueries({ queryKey: billingKeys.all });
      onGathered(answer.message);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The charges could not be gathered. Please try again.');
    } finally {
      setIsBusy(false);
    }
  };
  return (
    <form className="card stack" aria-labelledby="gather-title" onSubmit={(event) => void submit(event)}>
      <h2 id="gather-title">Gather a month’s charges</h2>
      <p className="muted">A completed job’s charges go on its company’s draft at once. Gather a month to pick up any charge that is on no invoice yet.</p>
      <FormAlert message={error} />
      <div className="row wrap">
        <div className="field">
          <label htmlFor="gather-period">Month</label>
          <select id="gather-period" value={period} onChange={(event) => setPeriod(event.target.value)}>
            {periods.map((option) => (
              <option key={option} value={option}>
                {formatPeriod(option)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button" disabled={isBusy}>
          {isBusy ? 'Gathering…' : 'Gather the charges'}
        </button>
      </div>
    </form>
  );
}

export default function BillingPendingPage() {
  const user = useCurrentUser();
  const location = useLocation();
  const [filter, setFilter] = useState<InvoiceFilter>('issued');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const { notice, show } = useNotice();
  const isStaff = user ? hasAnyRole(user, ['admin', 'billing', 'finance']) : false;
  const list = useQuery({ ...invoiceListQueryOptions(filter, search.trim(), page), enabled: isStaff });
  const drafts = useQuery({ ...invoiceListQueryOptions('draft', '', 1), enabled: isStaff && filter !== 'draft' });
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  const items = list.data?.items ?? [];
  const draftCount = drafts.data?.count ?? 0;
  return (
    <DashboardLayout user={user} task="Pending invoices">
      <h1>Pending invoices</h1>
      {isStaff ? (
        <>
          {notice}
          {filter !== 'draft' && draftCount > 0 ? (
            <div className="card row wrap between">
              <p>
                {draftCount === 1 ? 'One draft is' : `${draftCount} drafts are`} ready to issue ({formatCents(drafts.data?.totalCents ?? 0)}).
              </p>
              <button
                type="button"
                className="button primary"
                onClick={() => {
                  setFilter('draft');
                  setPage(1);
                }}
              >
                Show the drafts
              </button>
            </div>
          ) : null}
          <section className="card stack" aria-labelledby="invoices-title">
            <h2 id="invoices-title">{filterLabels[filter]}</h2>
            <div className="row wrap">
              <div className="field">
                <label htmlFor="invoice-filter">Show</label>
                <select
                  id="invoice-filter"
                  value={filter}
                  onChange={(event) => {
                    setFilter(event.target.value as InvoiceFilter);
                    setPage(1);
                  }}
                >
                  {filterOrder
                    .filter((option) => invoiceFilters.includes(option))
                    .map((option) => (
                      <option key={option} value={option}>
                        {filterLabels[option]}
                      </option>
                    ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor="invoice-search">Company or invoice number</label>
                <input
                  id="invoice-search"
                  type="search"
                  value={search}
                  onChange={(event) => {
                    setSearch(event.target.value);
                    setPage(1);
                  }}
                />
              </div>
            </div>
            <FormAlert message={list.error?.message ?? null} />
            {list.isPending ? <p role="status">Loading invoices…</p> : null}
            {list.data ? <p role="status">{describeList(filter, list.data.count, list.data.totalCents)}</p> : null}
            {list.data && items.length === 0 ? (
              <p className="empty">
                {search.trim()
                  ? `No invoice of a company or number matching “${search.trim()}”.`
                  : filter === 'draft'
                    ? 'No drafts: when a title company’s job is completed, its charges appear here on the draft of the month.'
                    : 'Nothing here right now.'}
              </p>
            ) : null}
            {items.length > 0 ? <InvoiceTable caption={filterLabels[filter]} invoices={items} showCompany onOpen={(invoice) => setOpenId(invoice.id)} /> : null}
            {list.data ? (
              <Pager
                page={page}
                pageSize={list.data.pageSize}
                total={list.data.count}
                noun={{ one: 'invoice', many: 'invoices' }}
                label="Pages of invoices"
                onPage={setPage}
              />
            ) : null}
          </section>
          <GatherCharges onGathered={(message) => show(message)} />
          {openId ? (
            <InvoiceDialog
              invoiceId={openId}
              onClose={() => setOpenId(null)}
              onChanged={(status) => {
                // The list follows the invoice, so it stays in view once the dialog closes.
                setFilter(status === 'paid' ? 'paid' : status === 'void' ? 'void' : 'issued');
                setPage(1);
              }}
            />
          ) : null}
        </>
      ) : (
        <p className="alert error" role="alert">
          Only administrators, billing and finance staff see every company’s invoices.
        </p>
      )}
    </DashboardLayout>
  );
}
