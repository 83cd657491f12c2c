import { useState } from 'react';
import { Link } from 'react-router';
import { jobStatusLabels, jobStatuses, type JobStatus } from '#shared/jobs.ts';
import { formatDateTime } from '#shared/dates.ts';
import { FormAlert } from '#web/components/field.tsx';
import { StatusBadge } from '#web/components/status-badge.tsx';
import { paths } from '#web/paths.ts';
import { useJobs } from '#web/api/jobs.ts';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';

const pageSize = 20;

/**
 * The dashboard's jobs tab: the jobs the viewer may see, with search, a status filter and paging.
 * The page may hold the status filter (`status`, `onStatusChange`) so other controls can set it.
 */
export function JobsTable({
  status: heldStatus,
  onStatusChange,
  canCreate = true,
}: { status?: JobStatus | ''; onStatusChange?: (status: JobStatus | '') => void; canCreate?: boolean } = {}) {
  const [search, setSearch] = useState('');
  const [ownStatus, setOwnStatus] = useState<JobStatus | ''>('');
  const status = heldStatus ?? ownStatus;
  const setStatus = onStatusChange ?? setOwnStatus;
  const [page, setPage] = useState(1);
  // A status chosen elsewhere starts the list at its first page.
  const [listedStatus, setListedStatus] = useState(status);
  if (listedStatus !== status) {
    setListedStatus(status);
    setPage(1);
  }
  const jobs = useJobs({ q: search.trim() || undefined, status: status || undefined, page, pageSize });
  const total = jobs.data?.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / pageSize));
  return (
    <section className="card stack" aria-labelledby="jobs-title">
      <h2 id="jobs-title">Signing jobs</h2>
      <div className="row wrap">
        <div className="field grow">
          <label htmlFor="job-search">Search by title</label>
          <input
            id="job-search"
            type="search"
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
              setPage(1);
            }}
          />
        </div>
        <div className="field">
          <label htmlFor="job-status">Status</label>
          <select
            id="job-status"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as JobStatus | '');
              setPage(1);
            }}
          >
            <option value="">All</option>
            {jobStatuses.map((value) => (
              <option key={value} value={value}>
                {jobStatusLabels[value]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <FormAlert message={jobs.error?.message ?? null} />
      {jobs.isPending ? <p role="status">Loading jobs…</p> : null}
      {jobs.data && jobs.data.items.length === 0 ? (
        <p className="empty">
          {search || status
            ? 'No jobs match this search.'
            : canCreate
              ? 'No signing jobs yet. Use New Signing Request to create one; jobs you are invited to appear here too.'
              : 'No signing jobs yet: jobs you are invited to or asked to look after appear here.'}
        </p>
      ) : null}
      {jobs.data && jobs.data.items.length > 0 ? (
        <>
          <table className="table" ref={labelCellsByHeaders}>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Scheduled</th>
                <th scope="col">Notary</th>
                <th scope="col">People</th>
                <th scope="col">Documents</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.items.map((job) => (
                <tr key={job.id}>
                  <td>
                    <Link to={paths.jobDetail(job.id)}>{job.title}</Link>
                    {job.isInvitation ? (
                      <>
                        {' '}
                        <span className="badge invitation">Invitation: open to accept</span>
                      </>
                    ) : null}
                  </td>
                  <td>
                    <StatusBadge status={job.status} />
                  </td>
                  <td>{job.scheduledAt ? formatDateTime(job.scheduledAt) : '—'}</td>
                  <td>{job.notaryName ?? 'Not assigned'}</td>
                  <td>{job.participantCount}</td>
                  <td>{job.documentCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav className="row between" aria-label="Pages">
            <button type="button" className="button" disabled={page <= 1} onClick={() => setPage((value) => value - 1)}>
              Previous
            </button>
            <span>
              Page {page} of {pageCount} · {total} job{total === 1 ? '' : 's'}
            </span>
            <button type="button" className="button" disabled={page >= pageCount} onClick={() => setPage((value) => value + 1)}>
              Next
            </button>
          </nav>
        </>
      ) : null}
    </section>
  );
}
