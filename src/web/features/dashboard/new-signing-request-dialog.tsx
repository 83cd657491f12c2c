import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { createJobInputSchema, participantRoles, type ParticipantRole } from '#shared/jobs.ts';
import { hasAnyRole } from '#shared/roles.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { useCreateJob, useNotarizationTypes } from '#web/api/jobs.ts';
import { companyDefaultNotaryQueryOptions, companyJobTypesQueryOptions, myCompaniesQueryOptions } from '#web/api/title-companies.ts';
import { NotaryPicker, type NotaryOption } from '#web/components/notary-picker.tsx';
import { getStoredUser } from '#web/lib/browser-storage.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors, type FieldErrors } from '#web/lib/form-errors.ts';
import {
  applyWitnessCount,
  describeJobTypeChoice,
  describeNotaryOutcome,
  maximumParticipants,
  type ParticipantRow as SignerRow,
} from './signing-request-rows.ts';

const creatorRoles = ['admin', 'title', 'title_agent', 'notary', 'signer'] as const;

/**
 * The New Signing Request dialog: title, notarization type, signers, optional schedule and notary.
 * A title company's staff may start from one of the company's job types (its notarization type and
 * witness rows are filled in) and are told which notary the job gets when they choose none.
 */
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
  const isCompanyStaff = canCreate && hasAnyRole(user, ['title', 'title_agent']);
  const mine = useQuery(myCompaniesQueryOptions(isCompanyStaff));
  const companies = mine.data?.items ?? [];
  const [chosenCompanyId, setChosenCompanyId] = useState<string | null>(null);
  const company = companies.find((candidate) => candidate.id === chosenCompanyId) ?? companies[0] ?? null;
  const jobTypes = useQuery(companyJobTypesQueryOptions(company?.id ?? null));
  const defaultNotary = useQuery(companyDefaultNotaryQueryOptions(company?.id ?? null));
  const [jobTypeId, setJobTypeId] = useState('');
  const jobType = jobTypes.data?.items.find((candidate) => candidate.id === jobTypeId) ?? null;
  const notaryOutcome =
    company && defaultNotary.data ? describeNotaryOutcome(notary?.name ?? null, defaultNotary.data.notary?.name ?? null, company.name) : null;

  const chooseJobType = (id: string) => {
    const picked = jobTypes.data?.items.find((candidate) => candidate.id === id) ?? null;
    setJobTypeId(picked?.id ?? '');
    if (picked) setNotarizationType(picked.notarizationType);
    setSigners((rows) => applyWitnessCount(rows, picked?.witnessCount ?? 0));
  };

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
      // Company staff who choose no notary leave it out, so the job gets the company's default notary.
      notaryId: notary?.userId ?? (company ? undefined : null),
      jobTypeId: jobType?.id,
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
          {companies.length > 1 ? (
            <div className="field">
              <label htmlFor="request-company">Company</label>
              <select
                id="request-company"
                value={company?.id ?? ''}
                aria-describedby="request-company-hint"
                onChange={(event) => {
                  setChosenCompanyId(event.target.value);
                  chooseJobType('');
                }}
              >
                {companies.map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {candidate.name}
                  </option>
                ))}
              </select>
              <p className="field-hint" id="request-company-hint">
                Whose job types and default notary to use.
              </p>
            </div>
          ) : null}
          {jobTypes.data && jobTypes.data.items.length > 0 ? (
            <div className="field">
              <label htmlFor="request-job-type">Job type (optional)</label>
              <select
                id="request-job-type"
                value={jobTypeId}
                aria-invalid={errors.jobTypeId ? true : undefined}
                aria-describedby="request-job-type-hint"
                onChange={(event) => chooseJobType(event.target.value)}
              >
                <option value="">None: fill in everything yourself</option>
                {jobTypes.data.items.map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {candidate.name}
                  </option>
                ))}
              </select>
              <p className="field-hint" id="request-job-type-hint">
                {describeJobTypeChoice(jobType)}
              </p>
              {errors.jobTypeId ? <p className="field-error">{errors.jobTypeId}</p> : null}
            </div>
          ) : null}
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
              disabled={signers.length >= maximumParticipants}
              onClick={() =>
                setSigners((rows) => [...rows, { key: Math.max(0, ...rows.map((candidate) => candidate.key)) + 1, name: '', email: '', role: 'signer' }])
              }
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
          {notaryOutcome ? (
            <p className="field-hint" role="status">
              {notaryOutcome}
            </p>
          ) : null}
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
