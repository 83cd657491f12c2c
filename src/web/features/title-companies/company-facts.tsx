import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { formatDate } from '#shared/dates.ts';
import { titleCompanyStatusLabels, updateTitleCompanyInputSchema, type TitleCompany } from '#shared/title-companies.ts';
import { isUsStateCode } from '#shared/us-states.ts';
import { titleCompanyKeys } from '#web/api/title-companies.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { readServerMessage } from '#web/lib/server-message.ts';
import { CompanyFactFields, toCompanyFactsInput, type CompanyFactValues } from './company-fact-fields.tsx';
import { describePlace } from './company-words.ts';

function describeStanding(company: TitleCompany): string {
  const label = titleCompanyStatusLabels[company.status];
  if (company.status === 'closed' && company.closedAt) return `${label} on ${formatDate(company.closedAt)}`;
  if (company.status === 'approved' && company.approvedAt) return `${label} on ${formatDate(company.approvedAt)}`;
  return `${label} (registered ${formatDate(company.createdAt)})`;
}

function toValues(company: TitleCompany): CompanyFactValues {
  return {
    name: company.name,
    city: company.city ?? '',
    state: company.state && isUsStateCode(company.state) ? company.state : '',
    addressLine: company.addressLine ?? '',
    phone: company.phone ?? '',
    contactEmail: company.contactEmail ?? '',
  };
}

/** The company's facts; those who may edit them (its title staff, administrators) change them in place. */
export function CompanyFacts({ company }: { company: TitleCompany }) {
  const [isEditing, setIsEditing] = useState(false);
  const editRef = useRef<HTMLButtonElement>(null);
  const { notice, show } = useNotice();
  const stopEditing = (message?: string) => {
    setIsEditing(false);
    if (message) show(message);
    else requestAnimationFrame(() => editRef.current?.focus());
  };
  return (
    <section className="card stack" aria-labelledby="company-facts-title">
      <h2 id="company-facts-title">Details</h2>
      {notice}
      {isEditing ? (
        <CompanyFactsForm company={company} onDone={stopEditing} />
      ) : (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd>{describeStanding(company)}</dd>
            <dt>Place</dt>
            <dd>{describePlace(company.city, company.state) ?? 'Not given'}</dd>
            <dt>Street address</dt>
            <dd>{company.addressLine ?? 'Not given'}</dd>
            <dt>Phone</dt>
            <dd>{company.phone ?? 'Not given'}</dd>
            <dt>Contact email</dt>
            <dd>{company.contactEmail ?? 'Not given'}</dd>
            <dt>People</dt>
            <dd>{company.memberCount === 1 ? '1 active member' : `${company.memberCount} active members`}</dd>
          </dl>
          {company.permissions.canEdit ? (
            <div>
              <button ref={editRef} type="button" className="button" onClick={() => setIsEditing(true)}>
                Edit details
              </button>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}

function CompanyFactsForm({ company, onDone }: { company: TitleCompany; onDone: (message?: string) => void }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState(() => toValues(company));
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();
  // The form replaces the facts where the Edit button was: the focus goes to its first field.
  useEffect(() => formRef.current?.querySelector('input')?.focus(), [formRef]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = updateTitleCompanyInputSchema.safeParse(toCompanyFactsInput(values));
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const answer = await api.put(`/api/title-companies/${encodeURIComponent(company.id)}`, parsed.data);
      await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.all });
      onDone(readServerMessage(answer, 'The company’s details were saved.'));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The details could not be saved. Please try again.');
      setIsSaving(false);
    }
  };

  return (
    <form ref={formRef} className="stack company-form" noValidate onSubmit={(event) => void submit(event)} aria-label="Edit the company’s details">
      <FormAlert message={error} />
      <CompanyFactFields values={values} errors={errors} onChange={setValues} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={isSaving}>
          {isSaving ? 'Saving…' : 'Save details'}
        </button>
        <button type="button" className="button" onClick={() => onDone()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
