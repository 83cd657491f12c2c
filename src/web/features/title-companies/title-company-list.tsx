import './title-companies.css';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { formatDate } from '#shared/dates.ts';
import { titleCompanyStatuses, titleCompanyStatusLabels, type TitleCompanyStatus } from '#shared/title-companies.ts';
import { titleCompanyPageQueryOptions } from '#web/api/title-companies.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { Pager } from '#web/components/pager.tsx';
import { readListAddress } from '#web/lib/query-string.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';
import { paths } from '#web/paths.ts';
import { describePlace } from './company-words.ts';

const pageSize = 20;

/**
 * Administrators find any title company by name and status, a page at a time, and open its page. The
 * list opens with the search its address names (?q, ?status, ?page), so a link or a reload keeps it.
 */
export function TitleCompanyList() {
  const [searchParams] = useSearchParams();
  const [opening] = useState(() => readListAddress(searchParams, { status: titleCompanyStatuses }));
  const [search, setSearch] = useState(opening.q);
  const [status, setStatus] = useState<TitleCompanyStatus | ''>(opening.choices.status as TitleCompanyStatus | '');
  const [page, setPage] = useState(opening.page);
  const query = useQuery(titleCompanyPageQueryOptions({ q: search.trim() || undefined, status: status || undefined, page, pageSize }));
  const items = query.data?.items ?? [];
  return (
    <section className="card stack" aria-labelledby="company-list-title">
      <h2 id="company-list-title">All title companies</h2>
      <div className="company-filters" role="search" aria-label="Find title companies">
        <Field
          label="Search"
          type="search"
          value={search}
          hint="A company name."
          onChange={(event) => {
            setSearch(event.target.value);
            setPage(1);
          }}
        />
        <div className="field">
          <label htmlFor="company-status-filter">Status</label>
          <select
            id="company-status-filter"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as TitleCompanyStatus | '');
              setPage(1);
            }}
          >
            <option value="">Any status</option>
            {titleCompanyStatuses.map((value) => (
              <option key={value} value={value}>
                {titleCompanyStatusLabels[value]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <FormAlert message={query.error?.message ?? null} />
      {query.isPending ? <p role="status">Loading title companies…</p> : null}
      {query.data && items.length === 0 ? (
        <p className="empty">
          {search.trim() || status ? 'No title company matches this search.' : 'No title companies yet. Use New title company to add the first one.'}
        </p>
      ) : null}
      {items.length > 0 ? (
        <table className="table" ref={labelCellsByHeaders}>
          <thead>
            <tr>
              <th scope="col">Company</th>
              <th scope="col">Place</th>
              <th scope="col">Status</th>
              <th scope="col">Members</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {items.map((company) => (
              <tr key={company.id}>
                <td>
                  <Link to={paths.company(company.id)}>{company.name}</Link>
                </td>
                <td>{describePlace(company.city, company.state) ?? 'Not given'}</td>
                <td>
                  <span className={`badge company-${company.status}`}>{titleCompanyStatusLabels[company.status]}</span>
                </td>
                <td>{company.memberCount}</td>
                <td>{formatDate(company.approvedAt ?? company.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {query.data ? (
        <Pager
          page={page}
          pageSize={pageSize}
          total={query.data.total}
          noun={{ one: 'company', many: 'companies' }}
          label="Pages of title companies"
          onPage={setPage}
        />
      ) : null}
    </section>
  );
}
