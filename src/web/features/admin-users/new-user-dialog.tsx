import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { adminUserResponseSchema, assignableRoles, createAdminUserInputSchema, type AdminUser } from '#shared/admin-users.ts';
import { roleLabels, type Role } from '#shared/roles.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { adminUserKeys } from './api/admin-user-queries.ts';

/**
 * An administrator opens an account for someone: name, email and roles. The account is active at
 * once and its owner sets a password from the link emailed to them; the server's sentence says so.
 */
export function NewUserDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (user: AdminUser, message: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [chosenRoles, setChosenRoles] = useState<Role[]>(['signer']);
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();

  const toggleRole = (role: Role, isChecked: boolean) =>
    setChosenRoles((current) =>
      isChecked ? assignableRoles.filter((candidate) => candidate === role || current.includes(candidate)) : current.filter((candidate) => candidate !== role),
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = createAdminUserInputSchema.safeParse({ name, email, roles: chosenRoles });
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const result = await api.post('/api/admin/users', parsed.data, adminUserResponseSchema);
      await queryClient.invalidateQueries({ queryKey: adminUserKeys.lists() });
      onClose();
      onCreated(result.user, result.message);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The account could not be created. Please try again.');
    } finally {
      setIsSaving(false);
    }
  };

  return (
    <ModalDialog title="New user" onClose={onClose}>
      <form ref={formRef} className="stack" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={error} />
        <Field label="Full name" autoComplete="off" value={name} error={errors.name} onChange={(event) => setName(event.target.value)} autoFocus />
        <Field
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          error={errors.email}
          hint="They get an email there with a link to set their own password."
          onChange={(event) => setEmail(event.target.value)}
        />
        <fieldset className="stack" aria-describedby={errors.roles ? 'new-user-roles-error' : undefined}>
          <legend>Roles</legend>
          {assignableRoles.map((role) => (
            <label key={role} className="checkbox">
              <input
                type="checkbox"
                checked={chosenRoles.includes(role)}
                aria-invalid={errors.roles ? true : undefined}
                onChange={(event) => toggleRole(role, event.target.checked)}
              />
              {roleLabels[role]}
            </label>
          ))}
          {errors.roles ? (
            <p className="field-error" id="new-user-roles-error">
              {errors.roles}
            </p>
          ) : null}
        </fieldset>
        <div className="actions">
          <button type="submit" className="button primary" disabled={isSaving}>
            {isSaving ? 'Creating…' : 'Create the account'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
