import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { createJobInputSchema, participantRoles, type ParticipantRole } from '#shared/jobs.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { useCreateJob, useNotarizationTypes } from '#web/features/jobs/job-hooks.ts';
import { NotaryPicker, type NotaryOption } from '#web/features/jobs/notary-picker.tsx';
import { getStoredUser } from '#web/lib/browser-storage.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors, type FieldErrors } from '#web/lib/form-errors.ts';

interface SignerRow {
  key: number;
  name: string;
  email: string;
  role: ParticipantRole;
}

const creatorRoles = ['admin', 'title', 'title_agent', 'notary', 'signer'] as const;

/** The New Signing Request dialog: title, notarization type, signers, optional schedule and notary. */
export function NewSigningRequestDialog({ onClose }: { onClose: () => void }) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const navigate = useNavigate();
  const user = getStoredUser();
  const canCreate = hasAnyRole(user, creatorRoles) && user?.status !== 'pending';
  const types = useNotarizationTypes();
  const createJob = useCreateJob();
  const [title, setTitle] = useState('');
  const [notarizationType, setNotarizationType] = useState('acknowledgment');
  const [scheduledAt, setScheduledAt] = useState('');
  const [notary, setNotary] = useState<NotaryOption | null>(null);
  const [signers, setSigners] = useState<SignerRow[]>([{ key: 1, name: '', email: '', role: 'signer' }]);
  const [error, setError] = useState<string | null>(null);
  const { formRef, errors, show: showFieldErrors } = useFieldErrors();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const close = () => {
    dialogRef.current?.close();
    onClose();
  };

  const updateSigner = (key: number, changes: Partial<SignerRow>) => setSigners((rows) => rows.map((row) => (row.key === key ? { ...row, ...changes } : row)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Rows left empty are ignored; each message goes to the row it is about.
    const filled = signers.filter((row) => row.name.trim() || row.email.trim());
    const parsed = createJobInputSchema.safeParse({
      title,
      notarizationType,
      signers: filled.map(({ name, email, role }) => ({ name, email, role })),
      scheduledAt: scheduledAt ? new Date(scheduledAt).toISOString() : null,
      notaryId: notary?.userId ?? null,
    });
    const fieldErrors: FieldErrors = {};
    if (!parsed.success) {
      for (const [key, message] of Object.entries(toFieldErrors(parsed.error.issues))) {
        const [, index, field] = /^signers\.(\d+)\.(\w+)$/.exec(key) ?? [];
        const row = index === undefined ? undefined : filled[Number(index)];
        fieldErrors[row ? `participant-${row.key}-${field}` : key] = message;
      }
    }
    if (!showFieldErrors(fieldErrors) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    try {
      const job = await createJob.mutateAsync(parsed.data);
      dialogRef.current?.close();
      onClose();
      navigate('/dashboard?tab=jobs', { state: { notice: `Created "${job.title}".`, createdJobId: job.id } });
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'Could not create the signing request.');
    }
  };

  return (
    <dialog ref={dialogRef} className="dialog wide-dialog" aria-labelledby="new-request-title" onCancel={close}>
      <h2 id="new-request-title">New Signing Request</h2>
      {!canCreate ? (
        <>
          <p>Your account cannot create signing requests{user?.status === 'pending' ? ' until an administrator approves it' : ''}.</p>
          <div className="actions">
            <button type="button" className="button primary" onClick={close} autoFocus>
              Close
            </button>
          </div>
        </>
      ) : (
        <form ref={formRef} className="stack" onSubmit={submit} noValidate>
          <FormAlert message={error} />
          <Field label="Title" value={title} error={errors.title} onChange={(event) => setTitle(event.target.value)} autoFocus />
          <div className="field">
            <label htmlFor="notarization-type">Notarization type</label>
            <select
              id="notarization-type"
              value={notarizationType}
              aria-invalid={errors.notarizationType ? true : undefined}
              aria-describedby={errors.notarizationType ? 'notarization-type-error' : undefined}
              onChange={(event) => setNotarizationType(event.target.value)}
            >
              {(types.data?.items ?? []).map((type) => (
                <option key={type.key} value={type.key}>
                  {type.label}
                </option>
              ))}
            </select>
            {errors.notarizationType ? (
              <p className="field-error" id="notarization-type-error">
                {errors.notarizationType}
              </p>
            ) : null}
          </div>
          <fieldset className="stack" aria-describedby={errors.signers ? 'participants-error' : undefined}>
            <legend>Signers, witnesses and observers</legend>
            {errors.signers ? (
              <p className="field-error" id="participants-error">
                {errors.signers}
              </p>
            ) : null}
            {signers.map((row, index) => (
              <div key={row.key} className="signer-row">
                <Field
                  label={`Name ${index + 1}`}
                  value={row.name}
                  error={errors[`participant-${row.key}-name`]}
                  onChange={(event) => updateSigner(row.key, { name: event.target.value })}
                />
                <Field
                  label={`Email ${index + 1}`}
                  type="email"
                  value={row.email}
                  error={errors[`participant-${row.key}-email`]}
                  onChange={(event) => updateSigner(row.key, { email: event.target.value })}
                />
                <div className="field">
                  <label htmlFor={`role-${row.key}`}>Role {index + 1}</label>
                  <select id={`role-${row.key}`} value={row.role} onChange={(event) => updateSigner(row.key, { role: event.target.value as ParticipantRole })}>
                    {participantRoles.map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                </div>
                <button
                  type="button"
                  className="button link"
                  aria-label={`Remove participant ${index + 1}`}
                  onClick={() => setSigners((rows) => rows.filter((candidate) => candidate.key !== row.key))}
                >
                  Remove
                </button>
              </div>
            ))}
            <button
              type="button"
              className="button"
              disabled={signers.length >= 10}
              onClick={() => setSigners((rows) => [...rows, { key: Math.max(0, ...rows.map((candidate) => candidate.key)) + 1, name: '', email: '', role: 'signer' }])}
            >
              Add participant
            </button>
          </fieldset>
          <Field
            label="Scheduled for (optional)"
            type="datetime-local"
            value={scheduledAt}
            error={errors.scheduledAt}
            onChange={(event) => setScheduledAt(event.target.value)}
          />
          <NotaryPicker label="Notary (optional)" canSearch={canCreate} value={notary} onChange={setNotary} error={errors.notaryId} />
          <div className="actions">
            <button type="submit" className="button primary" disabled={createJob.isPending}>
              {createJob.isPending ? 'Creating…' : 'Create signing request'}
            </button>
            <button type="button" className="button" onClick={close}>
              Cancel
            </button>
          </div>
          <p className="muted">
            Each participant receives an email invitation. Documents are added on the job page. <Link to="/help">Help</Link>
          </p>
        </form>
      )}
    </dialog>
  );
}
