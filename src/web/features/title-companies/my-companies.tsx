import { useQuery } from '@tanstack/react-query';
import { Link, Navigate } from 'react-router';
import { companyMemberRoleLabels } from '#shared/title-companies.ts';
import { myCompaniesQueryOptions } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { paths } from '#web/paths.ts';

/** The sidebar's Company link: straight to the person's company, or a short choice when they work for several. */
export function MyCompanies() {
  const mine = useQuery(myCompaniesQueryOptions());
  if (mine.isPending) return <p role="status">Loading your company…</p>;
  if (!mine.data) return <FormAlert message={mine.error?.message ?? 'Your companies could not be loaded.'} />;
  const items = mine.data.items;
  const only = items.length === 1 ? items[0] : undefined;
  if (only) return <Navigate to={paths.company(only.id)} replace />;
  return (
    <section className="card stack" aria-labelledby="my-companies-title">
      <h1 id="my-companies-title">{items.length ? 'Your title companies' : 'Company'}</h1>
      {items.length === 0 ? (
        <p className="empty">You do not work for a title company yet. The company’s title staff can invite you from its page; the invitation comes by email.</p>
      ) : (
        <>
          <p>You work for {items.length} companies. Choose one to open its page.</p>
          <ul className="review-list">
            {items.map((company) => (
              <li key={company.id} className="review-item">
                <Link to={paths.company(company.id)} className="strong">
                  {company.name}
                </Link>
                <p className="muted">Your role: {companyMemberRoleLabels[company.role]}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
