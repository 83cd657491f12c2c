import './admin-users.css';
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { adminUserResponseSchema, assignableRoles, updateAdminUserInputSchema, userRolesResponseSchema, type AdminUser } from '#shared/admin-users.ts';
import { roleLabels, type Role } from '#shared/roles.ts';
import { companyMemberRoleLabels } from '#shared/title-companies.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { NotaryArchives } from '#web/components/notary-archives.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { useDecision } from '#web/components/use-decision.tsx';
import { api } from '#web/lib/api.ts';
import { toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { paths } from '#web/paths.ts';
import { adminUserKeys } from './api/admin-user-queries.ts';
import { AccountHistory } from './account-history.tsx';
import { NotaryCertificates } from './notary-certificates.tsx';
import { describeRoleChange, describeSignatureReset, describeStatusChange } from './admin-user-words.ts';

interface PanelProps {
  user: AdminUser;
  /** The account as the server answered after a change, so the panel shows it before the list refreshes. */
  onUserChanged: (user: AdminUser) => void;
}

/** One account for an administrator: its name and email, roles, access, saved signature, companies and history. */
export function AdminUserPanel({ user, onUserChanged }: PanelProps) {
  const queryClient = useQueryClient();
  const { dialog, outcome, busyId, decide } = useDecision();
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminUserKeys.all });
  const base = `/api/admin/users/${encodeURIComponent(user.id)}`;
  const [roleToAdd, setRoleToAdd] = useState<Role | ''>('');
  const missingRoles = assignableRoles.filter((role) => !user.roles.includes(role));

  const changeRole = (change: 'add' | 'remove', role: Role, opener: HTMLElement) => {
    const words = describeRoleChange(change, role, user.name);
    return decide(`role-${role}`, opener, { ...words, cancelLabel: 'Not now', confirmTone: change === 'remove' ? 'danger' : 'primary' }, async () => {
      const result =
        change === 'add'
          ? await api.post(`${base}/roles`, { role }, userRolesResponseSchema)
          : await api.delete(`${base}/roles/${encodeURIComponent(role)}`, userRolesResponseSchema);
      onUserChanged({ ...user, roles: result.roles });
      if (change === 'add') setRoleToAdd('');
      await refresh();
      return result;
    });
  };

  const changeStatus = (next: 'active' | 'disabled', opener: HTMLElement) =>
    decide(
      'status',
      opener,
      { ...describeStatusChange(next, user.name), cancelLabel: 'Not now', confirmTone: next === 'disabled' ? 'danger' : 'primary' },
      async () => {
        const result = await api.put(base, { status: next }, adminUserResponseSchema);
        onUserChanged(result.user);
        await refresh();
        return result;
      },
    );

  const resetSignature = (opener: HTMLElement) =>
    decide('signature', opener, { ...describeSignatureReset(user.name), cancelLabel: 'Not now', confirmTone: 'danger' }, async () => {
      const answer = await api.post(`${base}/reset-signature`);
      onUserChanged({ ...user, hasSignature: false, hasInitials: false });
      await refresh();
      return { message: readServerMessage(answer, `${user.name}’s saved signature and initials were removed.`) };
    });

  const headingId = (part: string) => `user-${user.id}-${part}`;
  return (
    <div className="stack user-panel">
      {dialog}
      {outcome}
      <AccountDetailsForm key={user.id} user={user} onSaved={onUserChanged} />

      <section className="stack" aria-labelledby={headingId('roles')}>
        <h4 id={headingId('roles')}>Roles</h4>
        <ul className="plain">
          {user.roles.map((role) => (
            <li key={role} className="row wrap">
              <span className="badge">{roleLabels[role]}</span>
              <button
                type="button"
                className="button link"
                disabled={busyId !== null}
                onClick={(event) => void changeRole('remove', role, event.currentTarget)}
              >
                Remove
                <span className="visually-hidden">
                  {' '}
                  the {roleLabels[role]} role from {user.name}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {missingRoles.length > 0 ? (
          <div className="row wrap align-end">
            <div className="field">
              <label htmlFor={headingId('add-role')}>Give another role</label>
              <select id={headingId('add-role')} value={roleToAdd} onChange={(event) => setRoleToAdd(event.target.value as Role | '')}>
                <option value="">Choose a role</option>
                {missingRoles.map((role) => (
                  <option key={role} value={role}>
                    {roleLabels[role]}
                  </option>
                ))}
              </select>
            </div>
            <button
              type="button"
              className="button"
              disabled={!roleToAdd || busyId !== null}
              onClick={(event) => roleToAdd && void changeRole('add', roleToAdd, event.currentTarget)}
            >
              Give role
            </button>
          </div>
        ) : null}
      </section>

      <section className="stack" aria-labelledby={headingId('access')}>
        <h4 id={headingId('access')}>Access and saved signature</h4>
        <p>
          {user.hasSignature || user.hasInitials
            ? `${user.name} has ${[user.hasSignature ? 'a saved signature' : null, user.hasInitials ? 'saved initials' : null].filter(Boolean).join(' and ')}.`
            : `${user.name} has no saved signature or initials.`}
        </p>
        <div className="actions">
          {user.status === 'disabled' ? (
            <button type="button" className="button primary" disabled={busyId !== null} onClick={(event) => void changeStatus('active', event.currentTarget)}>
              Reactivate<span className="visually-hidden"> {user.name}</span>
            </button>
          ) : (
            <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void changeStatus('disabled', event.currentTarget)}>
              Deactivate<span className="visually-hidden"> {user.name}</span>
            </button>
          )}
          {user.hasSignature || user.hasInitials ? (
            <button type="button" className="button" disabled={busyId !== null} onClick={(event) => void resetSignature(event.currentTarget)}>
              Reset signature and initials<span className="visually-hidden"> of {user.name}</span>
            </button>
          ) : null}
        </div>
      </section>

      {user.companies.length > 0 ? (
        <section className="stack" aria-labelledby={headingId('companies')}>
          <h4 id={headingId('companies')}>Title companies</h4>
          <ul className="plain">
            {user.companies.map((company) => (
              <li key={company.id}>
                <Link to={paths.company(company.id)}>{company.name}</Link> ({companyMemberRoleLabels[company.role]})
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {user.roles.includes('notary') ? <NotaryArchives notaryId={user.id} notaryName={user.name} /> : null}
      {user.roles.includes('notary') ? <NotaryCertificates userId={user.id} name={user.name} /> : null}

      <AccountHistory userId={user.id} name={user.name} />
    </div>
  );
}

/** The account's name and email; a new email must be confirmed again by its owner. */
function AccountDetailsForm({ user, onSaved }: { user: AdminUser; onSaved: (user: AdminUser) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [isSaving, setIsSaving] = useState(false);
  const { error, notice, run, setError } = useActionStatus();
  const { formRef, errors, show } = useFieldErrors();
  const [serverNotice, setServerNotice] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setServerNotice(null);
    // Only what changed is sent: an unchanged email must not ask its owner to confirm it again.
    const changes = {
      name: name.trim() !== user.name ? name : undefined,
      email: email.trim().toLowerCase() !== user.email.toLowerCase() ? email : undefined,
    };
    const parsed = updateAdminUserInputSchema.safeParse(changes);
    const fieldErrors = parsed.success ? {} : toFieldErrors(parsed.error.issues);
    const { form: formMessage, ...perField } = fieldErrors;
    if (!show(perField) || !parsed.success) {
      setError(formMessage ?? 'Please correct the highlighted fields.');
      return;
    }
    setIsSaving(true);
    await run(async () => {
      const result = await api.put(`/api/admin/users/${encodeURIComponent(user.id)}`, parsed.data, adminUserResponseSchema);
      setServerNotice(result.message);
      onSaved(result.user);
      await queryClient.invalidateQueries({ queryKey: adminUserKeys.all });
    });
    setIsSaving(false);
  };

  return (
    <form ref={formRef} className="stack" noValidate onSubmit={(event) => void submit(event)} aria-label={`Name and email of ${user.name}`}>
      <FormAlert message={error} />
      <FormAlert message={serverNotice ?? notice} tone="success" />
      <div className="field-pair">
        <Field label="Full name" autoComplete="off" value={name} error={errors.name} onChange={(event) => setName(event.target.value)} />
        <Field
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          error={errors.email}
          hint="A new email address must be confirmed again: its owner gets a link at the new address."
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <div>
        <button type="submit" className="button" disabled={isSaving}>
          {isSaving ? 'Saving…' : 'Save name and email'}
        </button>
      </div>
    </form>
  );
}
