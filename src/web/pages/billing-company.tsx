import '#web/features/billing/billing.css';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { formatCents } from '#shared/pricing.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { companyInvoicesQueryOptions, ownBillingCompaniesQueryOptions } from '#web/api/billing.ts';
import { FormAlert } from '#web/components/field.tsx';
import { Pager } from '#web/components/pager.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { InvoiceDialog } from '#web/features/billing/invoice-dialog.tsx';
import { InvoiceTable } from '#web/features/billing/invoice-table.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { paths } from '#web/paths.ts';

/** One company's invoices: billing staff see its drafts too; its own title staff what was issued to them, read-only. */
function CompanyInvoices({ companyId, isStaff }: { companyId: string; isStaff: boolean }) {
  const [page, setPage] = useState(1);
  const [openId, setOpenId] = useState<string | null>(null);
  const query = useQuery(companyInvoicesQueryOptions(companyId, page));
  const data = query.data;
  return (
    <>
      <FormAlert message={query.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading invoices…</p> : null}
      {data ? (
        <>
          <h1>Billing of {data.company.name}</h1>
          {isStaff ? (
            <p>
              <Link to={paths.billingPending}>Back to the pending invoices</Link>
            </p>
          ) : null}
          <section className="card stack" aria-labelledby="company-invoices-title">
            <h2 id="company-invoices-title">Invoices</h2>
            <p role="status">
              {data.owedCents > 0 ? `${formatCents(data.owedCents)} is awaiting payment. ` : 'Nothing is awaiting payment. '}
              {data.count === 1 ? 'One invoice' : `${data.count} invoices`} in all.
            </p>
            {data.items.length === 0 ? (
              <p className="empty">
                {isStaff
                  ? 'No invoices yet: when one of its jobs is completed, its charges go on a draft here.'
                  : 'No invoices yet. When the platform issues one, it appears here, with its PDF.'}
              </p>
            ) : (
              <InvoiceTable
                caption={`Invoices of ${data.company.name}`}
                invoices={data.items}
                showCompany={false}
                onOpen={(invoice) => setOpenId(invoice.id)}
              />
            )}
            <Pager
              page={page}
              pageSize={data.pageSize}
              total={data.count}
              noun={{ one: 'invoice', many: 'invoices' }}
              label="Pages of invoices"
              onPage={setPage}
            />
          </section>
        </>
      ) : null}
      {openId ? <InvoiceDialog invoiceId={openId} onClose={() => setOpenId(null)} /> : null}
    </>
  );
}

/** /billing/company: the signed-in title staff member's own company (a choice when they have several). */
function OwnCompanyBilling() {
  const own = useQuery(ownBillingCompaniesQueryOptions());
  const [chosen, setChosen] = useState<string | null>(null);
  const companies = own.data?.companies ?? [];
  const companyId = chosen ?? (companies.length === 1 ? companies[0]!.id : null);
  if (companyId) return <CompanyInvoices companyId={companyId} isStaff={false} />;
  return (
    <>
      <h1>Title company billing</h1>
      <FormAlert message={own.error?.message ?? null} />
      {own.isPending ? <p role="status">Loading your companies…</p> : null}
      {own.data && companies.length === 0 ? (
        <p className="empty">
          No invoices to show: your title company shows its prices and invoices to its title staff, and to its agents only when its staff allow it on the
          company’s page.
        </p>
      ) : null}
      {companies.length > 1 ? (
        <ul className="choice-list" aria-label="Your title companies">
          {companies.map((company) => (
            <li key={company.id}>
              <button type="button" className="button" onClick={() => setChosen(company.id)}>
                {company.name}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

export default function BillingCompanyPage() {
  const user = useCurrentUser();
  const location = useLocation();
  const { companyId } = useParams();
  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname)}`} replace />;
  const isStaff = hasAnyRole(user, ['admin', 'billing', 'finance']);
  const isCompanyStaff = hasAnyRole(user, ['title', 'title_agent']);
  return (
    <DashboardLayout user={user} task="Title company billing">
      {!isStaff && !isCompanyStaff ? (
        <>
          <h1>Title company billing</h1>
          <p className="alert error" role="alert">
            Only a title company’s own people and the platform’s billing staff see invoices.
          </p>
        </>
      ) : companyId ? (
        <CompanyInvoices companyId={companyId} isStaff={isStaff} />
      ) : isCompanyStaff ? (
        <OwnCompanyBilling />
      ) : (
        <Navigate to={paths.billingPending} replace />
      )}
    </DashboardLayout>
  );
}
