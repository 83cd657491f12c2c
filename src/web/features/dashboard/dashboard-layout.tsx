import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { pendingJobsSchema } from '#shared/notifications.ts';
import { canCreateJobs, hasAnyRole, onlineRoles, sidebarNavigationRoles } from '#shared/roles.ts';
import { PageChatOpener } from '#web/components/chat-opener.tsx';
import { api } from '#web/lib/api.ts';
import { paths } from '#web/paths.ts';
import { useLogOut } from '#web/lib/use-log-out.ts';
import { notificationKeys } from '#web/api/notifications.ts';
import { useUserChannel } from '#web/api/user-channel.ts';
import type { StoredUser } from '#web/lib/browser-storage.ts';
import { NewSigningRequestDialog } from './new-signing-request-dialog.tsx';
import { AvailabilityToggle } from './availability-toggle.tsx';
import { TestOffersSwitch } from './test-offers-switch.tsx';
import { getNotificationHref } from './role-home.ts';

interface DashboardLayoutProps {
  user: StoredUser;
  task: string;
  children: ReactNode;
}

/**
 * The common layout: sidebar, header with greeting, task, bell and Logout. On a
 * phone the sidebar becomes a bar above the header: the brand and New Signing Request, then the links.
 */
export function DashboardLayout({ user, task, children }: DashboardLayoutProps) {
  const logOut = useLogOut();
  // A company that removes this person, a role given or taken, a sign-out everywhere: every open tab follows at once.
  useUserChannel(true);
  const [isDialogOpen, setIsDialogOpen] = useState(false);
  const showNavigation = hasAnyRole(user, sidebarNavigationRoles);
  const name = user.name ?? user.fullName ?? user.email ?? 'there';
  return (
    <div className="layout">
      <a className="skip-link" href="#main-content">
        Skip to content
      </a>
      <aside className="sidebar" aria-label="Main navigation">
        <Link to="/dashboard" className="brand">
          Open RON
        </Link>
        <nav>
          {showNavigation ? (
            <ul>
              <li>
                <NavLink to="/dashboard" end>
                  Dashboard Home
                </NavLink>
              </li>
              <li>
                <NavLink to={paths.calendar}>Calendar</NavLink>
              </li>
              <li>
                <NavLink to="/help">Help</NavLink>
              </li>
              {hasAnyRole(user, ['admin']) ? (
                <>
                  <li>
                    <NavLink to={paths.adminUsers}>Users</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.adminTitleCompanies}>Title companies</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.adminPricing}>Prices</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.billingPending}>Invoices</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.adminMail}>Mail</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.adminNotaryLoopTest}>Notary loop</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.apiReference}>API reference</NavLink>
                  </li>
                </>
              ) : hasAnyRole(user, ['title', 'title_agent']) ? (
                <>
                  <li>
                    <NavLink to={paths.myCompany}>Company</NavLink>
                  </li>
                  {hasAnyRole(user, ['title']) ? (
                    <>
                      <li>
                        <NavLink to={paths.billingOwnCompany}>Invoices</NavLink>
                      </li>
                      <li>
                        <NavLink to={paths.apiReference}>API reference</NavLink>
                      </li>
                    </>
                  ) : null}
                </>
              ) : hasAnyRole(user, ['billing', 'finance']) ? (
                <>
                  <li>
                    <NavLink to={paths.billingPending}>Invoices</NavLink>
                  </li>
                  <li>
                    <NavLink to={paths.adminPricing}>Prices</NavLink>
                  </li>
                </>
              ) : null}
            </ul>
          ) : null}
        </nav>
        {canCreateJobs(user) ? (
          <button type="button" className="button accent block" onClick={() => setIsDialogOpen(true)}>
            New Signing Request
          </button>
        ) : null}
        {hasAnyRole(user, onlineRoles) ? <AvailabilityToggle isWitnessOnly={!hasAnyRole(user, ['notary'])} /> : null}
        {hasAnyRole(user, ['notary']) ? <TestOffersSwitch /> : null}
      </aside>
      <div className="main-column">
        <header className="topbar">
          <div>
            <p className="welcome">Welcome, {name}</p>
            <p className="task">Viewing: {task}</p>
          </div>
          <div className="row">
            <NotificationsBell />
            <button type="button" className="button" onClick={() => void logOut()}>
              Logout
            </button>
          </div>
        </header>
        <main id="main-content" className="content" tabIndex={-1}>
          {children}
        </main>
        <footer className="page-footer">
          <PageChatOpener />
        </footer>
      </div>
      {isDialogOpen ? <NewSigningRequestDialog onClose={() => setIsDialogOpen(false)} /> : null}
    </div>
  );
}

function NotificationsBell() {
  const [isOpen, setIsOpen] = useState(false);
  const queryClient = useQueryClient();
  const pending = useQuery({
    queryKey: notificationKeys.pendingJobs(),
    queryFn: () => api.get('/api/notifications/users/me/pending-jobs', pendingJobsSchema),
    refetchInterval: 60_000,
  });
  const dismiss = useMutation({
    mutationFn: (item: { jobId: string; kind: string }) => api.post('/api/notifications/dismiss', item),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
  useEffect(() => {
    if (!isOpen) return;
    const close = (event: KeyboardEvent) => event.key === 'Escape' && setIsOpen(false);
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
  }, [isOpen]);
  const items = pending.data?.items ?? [];
  return (
    <div className="bell">
      <button
        type="button"
        className={pending.data?.has_blocking ? 'button icon urgent' : 'button icon'}
        aria-label={`Notifications${items.length ? ` (${items.length})` : ''}`}
        aria-expanded={isOpen}
        onClick={() => setIsOpen((value) => !value)}
      >
        <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
          <path fill="currentColor" d="M12 22a2 2 0 0 0 2-2h-4a2 2 0 0 0 2 2Zm6-6V11a6 6 0 0 0-5-5.91V4a1 1 0 0 0-2 0v1.09A6 6 0 0 0 6 11v5l-2 2v1h16v-1Z" />
        </svg>
        {items.length ? <span className="count">{items.length}</span> : null}
      </button>
      {isOpen ? (
        <div className="popover" role="region" aria-label="Notifications">
          {pending.isError ? <p className="empty">Notifications could not be loaded.</p> : null}
          {pending.data && items.length === 0 ? <p className="empty">Nothing needs your attention.</p> : null}
          <ul className="notification-list">
            {items.map((item) => (
              <li key={`${item.jobId}:${item.kind}`} className={item.isBlocking ? 'urgent' : undefined}>
                <Link to={getNotificationHref(item)} onClick={() => setIsOpen(false)}>
                  <strong>{item.title}</strong>
                </Link>
                <span>{item.message}</span>
                <button type="button" className="button link" onClick={() => dismiss.mutate({ jobId: item.jobId, kind: item.kind })}>
                  Dismiss
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
