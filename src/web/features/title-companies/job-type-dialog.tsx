import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { documentTagLabels, documentTags, type DocumentTag } from '#shared/documents.ts';
import { notarizationTypes, type NotarizationType } from '#shared/jobs.ts';
import { createJobTypeInputSchema, maximumDefaultWitnesses, updateJobTypeInputSchema, type JobType } from '#shared/title-companies.ts';
import { titleCompanyKeys } from '#web/api/title-companies.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { readServerMessage } from '#web/lib/server-message.ts';

interface JobTypeDialogProps {
  companyId: string;
  /** The job type to edit; none to create one. */
  jobType: JobType | null;
  onClose: () => void;
  onSaved: (message: string) => void;
}

/** A job type's name, notarization type, document tags, number of witnesses and instructions for the notary. */
export function JobTypeDialog({ companyId, jobType, onClose, onSaved }: JobTypeDialogProps) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(jobType?.name ?? '');
  const [notarizationType, setNotarizationType] = useState<NotarizationType>(jobType?.notarizationType ?? 'acknowledgment');
  const [tags, setTags] = useState<DocumentTag[]>(jobType?.documentTags ?? []);
  const [witnessCount, setWitnessCount] = useState(String(jobType?.witnessCount ?? 0));
  const [instructions, setInstructions] = useState(jobType?.instructions ?? '');
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();

  const toggleTag = (tag: DocumentTag, isChecked: boolean) =>
    setTags((current) =>
      isChecked ? documentTags.filter((candidate) => candidate === tag || current.includes(candidate)) : current.filter((candidate) => candidate !== tag),
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input = { name, notarizationType, documentTags: tags, witnessCount: witnessCount.trim() === '' ? Number.NaN : Number(witnessCount), instructions };
    const parsed = jobType ? updateJobTypeInputSchema.safeParse(input) : createJobTypeInputSchema.safeParse(input);
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const answer = jobType
        ? await api.put(`/api/title-companies/job-types/${encodeURIComponent(jobType.id)}`, parsed.data)
        : await api.post(`/api/title-companies/${encodeURIComponent(companyId)}/job-types`, parsed.data);
      await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.jobTypes(companyId) });
      onClose();
      onSaved(readServerMessage(answer, jobType ? `The job type “${name.trim()}” was saved.` : `The job type “${name.trim()}” was added.`));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The job type could not be saved. Please try again.');
      setIsSaving(false);
    }
  };

  return (
    <ModalDialog title={jobType ? `Edit the job type “${jobType.name}”` : 'New job type'} onClose={onClose} isWide>
      <form ref={formRef} className="stack" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={error} />
        <Field
          label="Name"
          value={name}
          error={errors.name}
          hint="What staff pick when they create a signing request, such as “Refinance closing”."
          onChange={(event) => setName(event.target.value)}
          autoFocus
        />
        <div className="field">
          <label htmlFor="job-type-act">Notarization type</label>
          <select
            id="job-type-act"
            value={notarizationType}
            aria-invalid={errors.notarizationType ? true : undefined}
            onChange={(event) => setNotarizationType(event.target.value as NotarizationType)}
          >
            {notarizationTypes.map((type) => (
              <option key={type.key} value={type.key}>
                {type.label}
              </option>
            ))}
          </select>
          <p className="field-hint">{notarizationTypes.find((type) => type.key === notarizationType)?.description}</p>
          {errors.notarizationType ? <p className="field-error">{errors.notarizationType}</p> : null}
        </div>
        <Field
          label="Witnesses"
          type="number"
          inputMode="numeric"
          min={0}
          max={maximumDefaultWitnesses}
          step={1}
          value={witnessCount}
          error={errors.witnessCount}
          hint={`New jobs of this type start with this many witness places to fill in (at most ${maximumDefaultWitnesses}).`}
          onChange={(event) => setWitnessCount(event.target.value)}
        />
        <fieldset className="stack">
          <legend>Document tags</legend>
          <p className="field-hint">
            The kinds of documents jobs of this type usually carry. Their uploads are tagged with the first one ticked unless the uploader picks another.
          </p>
          <div className="tag-choices">
            {documentTags.map((tag) => (
              <label key={tag} className="checkbox">
                <input type="checkbox" checked={tags.includes(tag)} onChange={(event) => toggleTag(tag, event.target.checked)} />
                {documentTagLabels[tag]}
              </label>
            ))}
          </div>
          {errors.documentTags ? <p className="field-error">{errors.documentTags}</p> : null}
        </fieldset>
        <div className="field">
          <label htmlFor="job-type-instructions">Instructions for the notary (optional)</label>
          <textarea
            id="job-type-instructions"
            rows={4}
            value={instructions}
            aria-invalid={errors.instructions ? true : undefined}
            aria-describedby={errors.instructions ? 'job-type-instructions-error' : 'job-type-instructions-hint'}
            onChange={(event) => setInstructions(event.target.value)}
          />
          <p className="field-hint" id="job-type-instructions-hint">
            Sent with every job of this type, such as which pages need initials.
          </p>
          {errors.instructions ? (
            <p className="field-error" id="job-type-instructions-error">
              {errors.instructions}
            </p>
          ) : null}
        </div>
        <div className="actions">
          <button type="submit" className="button primary" disabled={isSaving}>
            {isSaving ? 'Saving…' : jobType ? 'Save job type' : 'Add job type'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
