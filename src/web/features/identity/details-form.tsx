import { useState, type FormEvent } from 'react';
import { identityStartInputSchema, type IdentityCheck } from '#shared/identity.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { StateSelect } from '#web/components/state-select.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { identityCalls } from './api/identity-queries.ts';

/** Who the person says they are: matched against the ID, and the source of the questions. */
export function DetailsForm({ jobId, personName, onCheck }: { jobId: string; personName?: string; onCheck: (check: IdentityCheck) => void }) {
  const [legalName, setLegalName] = useState(personName ?? '');
  const [birthDate, setBirthDate] = useState('');
  const [street, setStreet] = useState('');
  const [city, setCity] = useState('');
  const [state, setState] = useState('');
  const [postalCode, setPostalCode] = useState('');
  const [isSending, setIsSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { formRef, errors, show } = useFieldErrors();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const parsed = identityStartInputSchema.safeParse({ legalName, birthDate, address: { street, city, state, postalCode } });
    if (!show(parsed.success ? {} : toFieldErrors(parsed.error.issues))) return setError(highlightedFieldsMessage);
    if (!parsed.success) return;
    setIsSending(true);
    try {
      onCheck(await identityCalls.start(jobId, parsed.data));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Your details could not be sent. Check your connection and try again.');
    } finally {
      setIsSending(false);
    }
  };

  return (
    <form ref={formRef} className="stack" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="identity-stage-title">Your details</h2>
      <p>Write them as they are on your ID. They are compared with your ID, and the questions later are about this address.</p>
      <Field
        label="Full legal name"
        autoComplete="name"
        value={legalName}
        onChange={(event) => setLegalName(event.target.value)}
        error={errors.legalName}
        required
      />
      <Field
        label="Date of birth"
        type="date"
        autoComplete="bday"
        value={birthDate}
        onChange={(event) => setBirthDate(event.target.value)}
        error={errors.birthDate ? 'Enter your date of birth.' : null}
        required
      />
      <fieldset className="stack">
        <legend>Home address</legend>
        <Field
          label="Street address"
          autoComplete="street-address"
          value={street}
          onChange={(event) => setStreet(event.target.value)}
          error={errors['address.street']}
          required
        />
        <Field
          label="City"
          autoComplete="address-level2"
          value={city}
          onChange={(event) => setCity(event.target.value)}
          error={errors['address.city']}
          required
        />
        <StateSelect label="State" value={state} onChange={setState} error={errors['address.state'] ? 'Choose your state.' : null} />
        <Field
          label="ZIP code"
          inputMode="numeric"
          autoComplete="postal-code"
          value={postalCode}
          onChange={(event) => setPostalCode(event.target.value)}
          error={errors['address.postalCode']}
          required
        />
      </fieldset>
      <FormAlert message={error} />
      <button type="submit" className="button primary" disabled={isSending}>
        {isSending ? 'Sending…' : 'Continue to your ID'}
      </button>
    </form>
  );
}
