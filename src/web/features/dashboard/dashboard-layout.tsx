import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { hasAnyRole, sidebarNavigationRoles } from '#shared/roles.ts';
import { useLogOut } from '#web/features/auth/use-log-out.ts';
import type { StoredUser } from '#web/lib/browser-storage.ts';
import { NewSigningRequestDialog } from './new-signing-request-dialog.tsx';

interface DashboardLayoutProps {
  user: StoredUser;
  task: string;
  children: ReactNode;
}

/** The common layout: sidebar, header with greeting, task, bell and Logout (SPEC section 2). */
export function DashboardLayout({ user, task, children }: DashboardLayoutProps) {
  const logOut = useLogOut();
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
                <NavLink to="/help">Help</NavLink>
              </li>
            </ul>
          ) : null}
        </nav>
        <button type="button" className="button accent block" onClick={() => setIsDialogOpen(true)}>
          New Signing Request
        </button>
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
      </div>
      {isDialogOpen ? <NewSigningRequestDialog onClose={() => setIsDialogOpen(false)} /> : null}
    </div>
  );
}

function NotificationsBell() {
  const [isOpen, setIsOpen] = useState(false);
  const panelRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!isOpen) return;
    const close = (event: KeyboardEvent) => event.key === 'Escape' && setIsOpen(false);
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
  }, [isOpen]);
  return (
    <div className="bell">
      <button type="button" className="button icon" aria-label="Notifications" aria-expanded={isOpen} onClick={() => setIsOpen((value) => !value)}>
        <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
          <path fill="currentColor" d="M12 22a2 2 0 0 0 2-2h-4a2 2 0 0 0 2 2Zm6-6V11a6 6 0 0 0-5-5.91V4a1 1 0 0 0-2 0v1.09A6 6 0 0 0 6 11v5l-2 2v1h16v-1Z" />
        </svg>
      </button>
      {isOpen ? (
        <div className="popover" ref={panelRef} role="region" aria-label="Notifications">
          <p className="empty">Job notifications are not available in this version yet.</p>
        </div>
      ) : null}
    </div>
  );
}
