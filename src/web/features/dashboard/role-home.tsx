import './role-home.css';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatDateTime, formatTime } from '#shared/dates.ts';
import { jobStatusLabels, jobStatuses, type JobListItem, type JobStatus } from '#shared/jobs.ts';
import { formatCents } from '#shared/pricing.ts';
import { paths } from '#web/paths.ts';
import { FormAlert } from '#web/components/field.tsx';
import { invoiceListQueryOptions } from '#web/api/billing.ts';
import { useJobs } from '#web/api/jobs.ts';
import { pendingNotariesQueryOptions } from '#web/api/notaries.ts';
import { pendingTitleCompaniesQueryOptions } from '#web/api/title-companies.ts';
import { StatusBadge } from '#web/components/status-badge.tsx';
import {
  describeNotaryJob,
  describeWaitingJob,
  getDayWindow,
  getHomeKind,
  summarizePendingApprovals,
  summarizeStatusCounts,
  type HomeKind,
  type JobLine,
} from './role-home.ts';

interface RoleHomeProps {
  user: Parameters<typeof getHomeKind>[0];
  /** The status the jobs list below is filtered by ('' for all); the status tiles set it. */
  status: JobStatus | '';
  onStatusChange: (status: JobStatus | '') => void;
}

/** What this role needs next, above the jobs list: a signer's waiting jobs, a notary's day, a company's jobs by status, an admin's approvals. */
export function RoleHome({ user, status, onStatusChange }: RoleHomeProps) {
  const kind: HomeKind | null = getHomeKind(user);
  if (kind === 'signer') return <SignerHome />;
  if (kind === 'notary') return <NotaryHome />;
  if (kind === 'title') return <StatusTiles status={status} onStatusChange={onStatusChange} />;
  if (kind === 'billing') return <BillingHome />;
  if (kind === 'admin') {
    return (
      <>
        <PendingApprovals />
        <StatusTiles status={status} onStatusChange={onStatusChange} />
      </>
    );
  }
  return null;
}

/** A short list of jobs, each with what it waits for and the one thing to do. */
function JobLines({ label, jobs, describe }: { label: string; jobs: readonly JobListItem[]; describe: (job: JobListItem) => JobLine }) {
  return (
    <ul className="home-list" aria-label={label}>
      {jobs.map((job) => {
        const line = describe(job);
        return (
          <li key={job.id} className="home-item">
            <div className="home-item-text">
              <p className="home-item-title">
                <strong>{job.title}</strong> <StatusBadge status={job.status} />
              </p>
              <p>{line.sentence}</p>
            </div>
            <Link className={job.status === 'in_session' || job.isInvitation ? 'button primary' : 'button'} to={line.action.href} aria-label={line.action.name}>
              {line.action.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

/** Billing and finance staff: the drafts to issue and the invoices overdue, and the way to them. */
function BillingHome() {
  const drafts = useQuery(invoiceListQueryOptions('draft', '', 1));
  const awaiting = useQuery(invoiceListQueryOptions('issued', '', 1));
  const overdue = useQuery(invoiceListQueryOptions('overdue', '', 1));
  const error = drafts.error?.message ?? awaiting.error?.message ?? overdue.error?.message ?? null;
  const awaitingCount = awaiting.data?.count ?? 0;
  const draftCount = drafts.data?.count ?? 0;
  const overdueCount = overdue.data?.count ?? 0;
  return (
    <section className="card stack role-home" aria-labelledby="home-title">
      <h2 id="home-title">Invoices</h2>
      <FormAlert message={error} />
      {drafts.isPending || awaiting.isPending || overdue.isPending ? <p role="status">Loading invoices…</p> : null}
      {drafts.data && awaiting.data && overdue.data ? (
        <p>
          {draftCount === 0
            ? 'No draft is waiting to be issued.'
            : `${draftCount === 1 ? 'One draft is' : `${draftCount} drafts are`} ready to issue (${formatCents(drafts.data.totalCents)}).`}{' '}
          {awaitingCount === 0
            ? 'No invoice is awaiting payment.'
            : `${awaitingCount === 1 ? 'One invoice is' : `${awaitingCount} invoices are`} awaiting payment (${formatCents(awaiting.data.totalCents)}), ${
                overdueCount === 0 ? 'none overdue' : `${overdueCount} overdue (${formatCents(overdue.data.totalCents)})`
              }.`}
        </p>
      ) : null}
      <p>
        <Link className="button primary" to={paths.billingPending}>
          Open the pending invoices
        </Link>
      </p>
    </section>
  );
}

function SignerHome() {
  const waiting = useJobs({ waitingFor: 'me', pageSize: 10 });
  const items = waiting.data?.items ?? [];
  return (
    <section className="card stack role-home" aria-labelledby="home-title">
      <h2 id="home-title">Waiting for you</h2>
      <FormAlert message={waiting.error?.message ?? null} />
      {waiting.isPending ? <p role="status">Loading what is waiting for you…</p> : null}
      {waiting.data && items.length === 0 ? (
        <p className="empty">Nothing is waiting for your signature. When someone invites you to sign or witness, the job appears here.</p>
      ) : null}
      {items.length > 0 ? <JobLines label="Jobs waiting for you" jobs={items} describe={(job) => describeWaitingJob(job, formatDateTime)} /> : null}
      {waiting.data && waiting.data.total > items.length ? <p className="muted">{waiting.data.total - items.length} more are in the list below.</p> : null}
    </section>
  );
}

function NotaryHome() {
  // The day is the viewer's, fixed when the page opens.
  const [today] = useState(() => getDayWindow(new Date()));
  const sessionsToday = useJobs({ notary: 'me', ...today, pageSize: 20 });
  const inSession = useJobs({ notary: 'me', status: 'in_session', pageSize: 10 });
  const toReview = useJobs({ notary: 'me', status: 'ready', pageSize: 10 });
  const byTime = [...(sessionsToday.data?.items ?? [])]
    .filter((job) => job.status !== 'cancelled')
    .sort((a, b) => (a.scheduledAt ?? '').localeCompare(b.scheduledAt ?? ''));
  const sections = [
    {
      id: 'today',
      title: 'Today’s sessions',
      query: sessionsToday,
      items: byTime,
      empty: 'You have no sessions scheduled today.',
      describe: (job: JobListItem) => describeNotaryJob(job, formatTime),
    },
    {
      id: 'in-session',
      title: 'In session',
      query: inSession,
      items: inSession.data?.items ?? [],
      empty: 'No session of yours is in progress.',
      describe: (job: JobListItem) => describeNotaryJob(job, formatDateTime),
    },
    {
      id: 'to-review',
      title: 'Ready for you to review',
      query: toReview,
      items: toReview.data?.items ?? [],
      empty: 'No job is waiting for your review.',
      describe: (job: JobListItem) => describeNotaryJob(job, formatDateTime),
    },
  ];
  return (
    <div className="role-home notary-home">
      {sections.map((section) => (
        <section key={section.id} className="card stack" aria-labelledby={`home-${section.id}`}>
          <h2 id={`home-${section.id}`}>{section.title}</h2>
          <FormAlert message={section.query.error?.message ?? null} />
          {section.query.isPending ? <p role="status">Loading…</p> : null}
          {section.query.data && section.items.length === 0 ? <p className="empty">{section.empty}</p> : null}
          {section.items.length > 0 ? <JobLines label={section.title} jobs={section.items} describe={section.describe} /> : null}
        </section>
      ))}
    </div>
  );
}

/** The jobs counted by status; each count filters the jobs list below. */
function StatusTiles({ status, onStatusChange }: { status: JobStatus | ''; onStatusChange: (status: JobStatus | '') => void }) {
  const counts = useJobs({ withStatusCounts: 'true', pageSize: 1 });
  const statusCounts = counts.data?.statusCounts;
  return (
    <section className="card stack role-home" aria-labelledby="home-title">
      <h2 id="home-title">Your jobs by status</h2>
      <FormAlert message={counts.error?.message ?? null} />
      {counts.isPending ? <p role="status">Counting your jobs…</p> : null}
      {statusCounts ? (
        <>
          <p>{summarizeStatusCounts(statusCounts)}</p>
          <ul className="status-tiles" aria-label="Jobs by status">
            {jobStatuses.map((value) => (
              <li key={value}>
                <button
                  type="button"
                  className={`status-tile status-${value}`}
                  aria-pressed={status === value}
                  onClick={() => onStatusChange(status === value ? '' : value)}
                >
                  <span className="tile-label">{jobStatusLabels[value]}</span>{' '}
                  <span className="tile-count">
                    {statusCounts[value]}
                    <span className="visually-hidden"> {statusCounts[value] === 1 ? 'job' : 'jobs'}</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
          <p className="muted">
            {status
              ? `The list below shows the ${jobStatusLabels[status].toLowerCase()} jobs; choose ${jobStatusLabels[status]} again to show all.`
              : 'Choose a status to list only its jobs below.'}
          </p>
        </>
      ) : null}
    </section>
  );
}

function PendingApprovals() {
  // The same queries as the Approvals tab, so an approval there updates this count.
  const notaries = useQuery(pendingNotariesQueryOptions());
  const companies = useQuery(pendingTitleCompaniesQueryOptions());
  const isLoaded = notaries.data !== undefined && companies.data !== undefined;
  const waiting = (notaries.data?.items.length ?? 0) + (companies.data?.items.length ?? 0);
  return (
    <section className="card stack role-home" aria-labelledby="approvals-home-title">
      <h2 id="approvals-home-title">Approvals</h2>
      <FormAlert message={notaries.error?.message ?? companies.error?.message ?? null} />
      {!isLoaded && !notaries.error && !companies.error ? <p role="status">Counting the accounts waiting for approval…</p> : null}
      {isLoaded ? (
        <div className="row wrap between">
          <p className={waiting === 0 ? 'empty' : undefined}>{summarizePendingApprovals(notaries.data.items.length, companies.data.items.length)}</p>
          {waiting > 0 ? (
            <Link className="button primary" to="/dashboard?tab=approvals">
              Review approvals
            </Link>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
