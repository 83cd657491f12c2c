import './title-companies.css';
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { createTitleCompanyInputSchema } from '#shared/title-companies.ts';
import { titleCompanyKeys } from '#web/api/title-companies.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { paths } from '#web/paths.ts';
import { CompanyFactFields, emptyCompanyFacts, toCompanyFactsInput, type CompanyFactValues } from './company-fact-fields.tsx';

/** What the page needs of the answer: the new company's id, to open its page. */
const createdCompanySchema = z.object({ id: z.string(), name: z.string() });

/**
 * An administrator adds a title company, approved at once, and may invite its first title staff
 * member by email; then the company's page opens with a notice saying what was done.
 */
export function NewTitleCompanyForm() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [facts, setFacts] = useState<CompanyFactValues>(emptyCompanyFacts);
  const [ownerName, setOwnerName] = useState('');
  const [ownerEmail, setOwnerEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const hasOwner = Boolean(ownerName.trim() || ownerEmail.trim());
    const parsed = createTitleCompanyInputSchema.safeParse({ ...toCompanyFactsInput(facts), owner: hasOwner ? { name: ownerName, email: ownerEmail } : null });
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues)) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const company = await api.post('/api/title-companies', parsed.data, createdCompanySchema);
      await queryClient.invalidateQueries({ queryKey: titleCompanyKeys.all });
      const owner = parsed.data.owner;
      const notice = owner
        ? `${company.name} was created and approved. ${owner.name} was emailed an invitation to manage it as title staff.`
        : `${company.name} was created and approved. Invite its title staff under Agents.`;
      navigate(paths.company(company.id), { state: { notice } });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The company could not be created. Please try again.');
      setIsSaving(false);
    }
  };

  return (
    <form ref={formRef} className="card stack company-form" noValidate onSubmit={(event) => void submit(event)} aria-labelledby="new-company-title">
      <h1 id="new-company-title">New title company</h1>
      <p className="muted">The company is approved at once. Its title staff can then invite agents, set up job types and create signing requests.</p>
      <FormAlert message={error} />
      <CompanyFactFields values={facts} errors={errors} onChange={setFacts} />
      <fieldset className="stack">
        <legend>First title staff member (optional)</legend>
        <p className="field-hint">They get an email invitation to set a password and manage the company.</p>
        <div className="field-pair">
          <Field
            label="Their full name"
            autoComplete="off"
            value={ownerName}
            error={errors['owner.name']}
            onChange={(event) => setOwnerName(event.target.value)}
          />
          <Field
            label="Their email"
            type="email"
            autoComplete="off"
            value={ownerEmail}
            error={errors['owner.email']}
            onChange={(event) => setOwnerEmail(event.target.value)}
          />
        </div>
      </fieldset>
      <div className="actions">
        <button type="submit" className="button primary" disabled={isSaving}>
          {isSaving ? 'Creating…' : 'Create the company'}
        </button>
      </div>
    </form>
  );
}
