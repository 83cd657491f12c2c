import { canCreateJobs } from '#shared/roles.ts';
import { useEffect } from 'react';
import { Link, Navigate, useLocation, useSearchParams } from 'react-router';
import { jobStatusSchema, type JobStatus } from '#shared/jobs.ts';
import { getEffectiveRole, roleLabels } from '#shared/roles.ts';
import { FormAlert } from '#web/components/field.tsx';
import { DashboardLayout } from '#web/features/dashboard/dashboard-layout.tsx';
import { RoleHome } from '#web/features/dashboard/role-home.tsx';
import { JobsTable } from '#web/features/jobs/jobs-table.tsx';
import { EmailVerificationBanner } from '#web/features/auth/email-verification-banner.tsx';
import { SecuritySettings } from '#web/features/auth/security-settings.tsx';
import { JournalPanel } from '#web/features/journal/journal-panel.tsx';
import { AvailabilityPanel } from '#web/features/availability/availability-panel.tsx';
import { NotaryDirectory } from '#web/features/notaries/notary-directory.tsx';
import { NotaryProfilePanel } from '#web/features/notaries/notary-profile-panel.tsx';
import { PendingNotaries } from '#web/features/notaries/pending-notaries.tsx';
import { PendingTitleCompanies } from '#web/features/title-companies/pending-title-companies.tsx';
import { useCurrentUser } from '#web/features/auth/use-current-user.ts';
import { paths } from '#web/paths.ts';

const tabLabels: Record<string, string> = {
  jobs: 'Jobs',
  profile: 'Profile',
  journal: 'Journal',
  availability: 'Availability',
  security: 'Security',
  approvals: 'Approvals',
};

export default function DashboardPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const location = useLocation();
  const user = useCurrentUser();
  const tab = searchParams.get('tab');

  useEffect(() => {
    if (!tab) {
      const next = new URLSearchParams(searchParams);
      next.set('tab', 'jobs');
      setSearchParams(next, { replace: true, state: location.state });
    }
  }, [tab, searchParams, setSearchParams, location.state]);

  if (!user) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  const role = getEffectiveRole(user);
  const isAdmin = role === 'admin';
  const isNotary = role === 'notary';
  // The journal, the commission profile and availability are a notary's own; approvals are the administrators'.
  const isTabShown = (key: string) => (key !== 'approvals' || isAdmin) && (!['journal', 'profile', 'availability'].includes(key) || isNotary);
  const activeTab = tab && tabLabels[tab] && isTabShown(tab) ? tab : 'jobs';
  const created = location.state as { notice?: string; createdJobId?: string } | null;
  const notice = created?.notice ?? null;
  // The jobs list's status filter lives in the address, so the status tiles and the list share it.
  const parsedStatus = jobStatusSchema.safeParse(searchParams.get('status'));
  const status: JobStatus | '' = parsedStatus.success ? parsedStatus.data : '';
  const setStatus = (next: JobStatus | '') => {
    const params = new URLSearchParams(searchParams);
    if (next) params.set('status', next);
    else params.delete('status');
    setSearchParams(params, { replace: true });
  };

  return (
    <DashboardLayout user={user} task={tabLabels[activeTab] ?? 'Jobs'}>
      {notice && created?.createdJobId ? (
        // A job just created: its page (documents, fields, mark ready) is the next step, one click away.
        <div className="alert success row wrap between" role="status">
          <span>{notice}</span>
          <Link className="button primary" to={paths.jobDetail(created.createdJobId)}>
            Open the new job
          </Link>
        </div>
      ) : (
        <FormAlert message={notice} tone="success" />
      )}
      <h1 className="visually-hidden">Dashboard: {tabLabels[activeTab] ?? 'Jobs'}</h1>
      <EmailVerificationBanner user={user} />
      {user.status === 'pending' ? (
        <div className="alert info" role="status">
          Your {user.pendingApproval === 'title_company' ? 'title company' : 'notary'} account is pending approval. An administrator reviews new{' '}
          {user.pendingApproval === 'title_company' ? 'title companies' : 'notary commissions'}; you will be able to take part in notarizations once approved.
          {user.pendingApproval === 'notary' ? ' Complete your commission details, documents, signature and initials under Profile first.' : null}
        </div>
      ) : null}
      <p className="muted">Signed in as {roleLabels[role]}.</p>
      <nav className="tabs" aria-label="Dashboard sections">
        {Object.entries(tabLabels)
          .filter(([key]) => isTabShown(key))
          .map(([key, label]) => (
            <button
              key={key}
              type="button"
              className={key === activeTab ? 'tab active' : 'tab'}
              aria-current={key === activeTab ? 'page' : undefined}
              onClick={() => {
                const next = new URLSearchParams(searchParams);
                next.set('tab', key);
                setSearchParams(next);
              }}
            >
              {label}
            </button>
          ))}
      </nav>
      {activeTab === 'security' ? <SecuritySettings /> : null}
      {activeTab === 'profile' ? <NotaryProfilePanel /> : null}
      {activeTab === 'journal' ? <JournalPanel /> : null}
      {activeTab === 'availability' ? <AvailabilityPanel /> : null}
      {activeTab === 'approvals' ? (
        <div className="stack">
          <PendingNotaries />
          <NotaryDirectory />
          <PendingTitleCompanies />
        </div>
      ) : null}
      {activeTab === 'jobs' ? (
        <>
          <RoleHome user={user} status={status} onStatusChange={setStatus} />
          <JobsTable status={status} onStatusChange={setStatus} canCreate={canCreateJobs(user)} />
        </>
      ) : null}
    </DashboardLayout>
  );
}
