import './admin-users.css';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { AdminUser } from '#shared/admin-users.ts';
import { approvalStatusSchema, type ApprovalStatus } from '#shared/auth.ts';
import { roleLabels, roles, type Role } from '#shared/roles.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { Pager } from '#web/components/pager.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { readListAddress } from '#web/lib/query-string.ts';
import { adminUserPageSize, adminUsersQueryOptions } from './api/admin-user-queries.ts';
import { AdminUserPanel } from './admin-user-panel.tsx';
import { accountStatusLabels, describeAccountStatus, describeLastSignIn } from './admin-user-words.ts';
import { NewUserDialog } from './new-user-dialog.tsx';

/**
 * Administrators find any account by name or email, role and status, a page at a time, open one to
 * manage it under its row, and open new accounts. An open account stays on screen after a change
 * that takes it out of the filtered list (a role removed), until it is closed. The directory opens
 * with the search its address names (?q, ?role, ?status, ?page), so a link or a reload keeps it.
 */
export function AdminUsersDirectory() {
  const [searchParams] = useSearchParams();
  const [opening] = useState(() => readListAddress(searchParams, { role: roles, status: approvalStatusSchema.options }));
  const [search, setSearch] = useState(opening.q);
  const [role, setRole] = useState<Role | ''>(opening.choices.role as Role | '');
  const [status, setStatus] = useState<ApprovalStatus | ''>(opening.choices.status as ApprovalStatus | '');
  const [page, setPage] = useState(opening.page);
  const [openUser, setOpenUser] = useState<AdminUser | null>(null);
  const [isCreating, setIsCreating] = useState(false);
  const { notice, show } = useNotice();
  const query = useQuery(adminUsersQueryOptions({ q: search, role: role || undefined, status: status || undefined, page }));
  const items = query.data?.items ?? [];
  const isOpenUserListed = openUser !== null && items.some((user) => user.id === openUser.id);
  const isFiltered = Boolean(search.trim() || role || status);
  // Another search or page closes the open account: the pinned copy below is only for one a change took out of this list.
  const filtersChanged = () => {
    setPage(1);
    setOpenUser(null);
  };

  return (
    <>
      <div className="row wrap between">
        <h1>Users</h1>
        <button type="button" className="button primary" onClick={() => setIsCreating(true)}>
          New user
        </button>
      </div>
      {notice}
      <section className="card stack" aria-labelledby="users-list-title">
        <h2 id="users-list-title">Accounts</h2>
        <div className="user-filters" role="search" aria-label="Find accounts">
          <Field
            label="Search"
            type="search"
            value={search}
            hint="A name or an email address."
            onChange={(event) => {
              setSearch(event.target.value);
              filtersChanged();
            }}
          />
          <div className="field">
            <label htmlFor="user-role-filter">Role</label>
            <select
              id="user-role-filter"
              value={role}
              onChange={(event) => {
                setRole(event.target.value as Role | '');
                filtersChanged();
              }}
            >
              <option value="">Any role</option>
              {roles.map((value) => (
                <option key={value} value={value}>
                  {roleLabels[value]}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="user-status-filter">Status</label>
            <select
              id="user-status-filter"
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as ApprovalStatus | '');
                filtersChanged();
              }}
            >
              <option value="">Any status</option>
              {approvalStatusSchema.options.map((value) => (
                <option key={value} value={value}>
                  {accountStatusLabels[value]}
                </option>
              ))}
            </select>
          </div>
        </div>
        <FormAlert message={query.error?.message ?? null} />
        {query.isPending ? <p role="status">Loading accounts…</p> : null}
        {query.data && items.length === 0 && !openUser ? (
          <p className="empty">{isFiltered ? 'No account matches this search.' : 'No accounts yet. Use New user to open one.'}</p>
        ) : null}
        {openUser && !isOpenUserListed ? (
          <ul className="review-list" aria-label="Open account">
            <UserRow
              user={openUser}
              isOpen
              note={`${openUser.name} no longer matches the search; shown until you close it.`}
              onToggle={() => setOpenUser(null)}
              onUserChanged={setOpenUser}
            />
          </ul>
        ) : null}
        {items.length > 0 ? (
          <ul className="review-list" aria-label="Accounts">
            {items.map((user) => (
              <UserRow
                key={user.id}
                user={user}
                isOpen={openUser?.id === user.id}
                onToggle={() => setOpenUser(openUser?.id === user.id ? null : user)}
                onUserChanged={setOpenUser}
              />
            ))}
          </ul>
        ) : null}
        {query.data ? (
          <Pager
            page={page}
            pageSize={adminUserPageSize}
            total={query.data.total}
            noun={{ one: 'account', many: 'accounts' }}
            label="Pages of accounts"
            onPage={(next) => {
              setPage(next);
              setOpenUser(null);
            }}
          />
        ) : null}
      </section>
      {isCreating ? (
        <NewUserDialog
          onClose={() => setIsCreating(false)}
          onCreated={(user, message) => {
            // The new account is shown open, whatever the search was: the next step is on it.
            setSearch('');
            setRole('');
            setStatus('');
            setPage(1);
            setOpenUser(user);
            show(message);
          }}
        />
      ) : null}
    </>
  );
}

interface UserRowProps {
  user: AdminUser;
  isOpen: boolean;
  note?: string;
  onToggle: () => void;
  onUserChanged: (user: AdminUser) => void;
}

function UserRow({ user, isOpen, note, onToggle, onUserChanged }: UserRowProps) {
  const panelId = `user-panel-${user.id}`;
  return (
    <li className="review-item">
      {note ? <p className="pinned-note muted">{note}</p> : null}
      <h3>{user.name}</h3>
      <dl className="review-facts">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Roles</dt>
        <dd className="user-roles">
          {user.roles.map((role) => (
            <span key={role} className="badge">
              {roleLabels[role]}
            </span>
          ))}
        </dd>
        <dt>Status</dt>
        <dd>{describeAccountStatus(user)}</dd>
        <dt>Last sign-in</dt>
        <dd>{describeLastSignIn(user.lastLoginAt)}</dd>
      </dl>
      <div className="actions">
        <button type="button" className="button" aria-expanded={isOpen} aria-controls={panelId} onClick={onToggle}>
          {isOpen ? 'Close' : 'Manage'}
          <span className="visually-hidden"> {user.name}</span>
        </button>
      </div>
      {isOpen ? (
        <div id={panelId}>
          <AdminUserPanel user={user} onUserChanged={onUserChanged} />
        </div>
      ) : null}
    </li>
  );
}
