import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod';
import { authMessages, registerNotaryInputSchema, registerResponseSchema, registerTitleCompanyInputSchema, registerUserInputSchema } from '#shared/auth.ts';
import { Field, FormAlert, PasswordField } from '#web/components/field.tsx';
import { StateSelect } from '#web/components/state-select.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';
import { startNewAccountSession } from './finish-sign-in.ts';

export type RegistrationKind = 'user' | 'notary' | 'title-company';

const schemas: Record<RegistrationKind, z.ZodType> = {
  user: registerUserInputSchema,
  notary: registerNotaryInputSchema,
  'title-company': registerTitleCompanyInputSchema,
};

type Values = Record<string, string>;

const initialValues: Values = {
  name: '',
  email: '',
  password: '',
  confirmPassword: '',
  companyName: '',
  commissionState: '',
  commissionNumber: '',
  commissionExpiresOn: '',
  county: '',
};

/** Self-service registration for the three account kinds, validated with the route's own schema. */
export function RegisterForm({ kind }: { kind: RegistrationKind }) {
  const navigate = useNavigate();
  const [values, setValues] = useState<Values>(initialValues);
  const { formRef, errors: fieldErrors, show: showFieldErrors } = useFieldErrors();
  const [error, setError] = useState<string | null>(null);
  const [isSubmitting, setIsSubmitting] = useState(false);

  const bind = (name: string) => ({
    name,
    value: values[name] ?? '',
    error: fieldErrors[name] ?? null,
    onChange: (event: { target: { value: string } }) => setValues((current) => ({ ...current, [name]: event.target.value })),
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const { confirmPassword, ...rest } = values;
    const payload: Values = { name: rest.name ?? '', email: rest.email ?? '', password: rest.password ?? '' };
    if (kind === 'notary') {
      for (const key of ['commissionState', 'commissionNumber', 'commissionExpiresOn', 'county']) payload[key] = rest[key] ?? '';
    }
    if (kind === 'title-company') payload.companyName = rest.companyName ?? '';
    const parsed = schemas[kind].safeParse(payload);
    const errors = parsed.success ? {} : toFieldErrors(parsed.error.issues);
    if (!errors.password && payload.password !== confirmPassword) errors.confirmPassword = authMessages.passwordsDoNotMatch;
    if (!showFieldErrors(errors)) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSubmitting(true);
    try {
      const response = await api.post(`/api/auth/register/${kind}`, parsed.data, registerResponseSchema);
      const secondFactorPath = startNewAccountSession(response, { email: payload.email ?? '', safeNext: null, jobId: null });
      navigate(secondFactorPath ?? '/dashboard?tab=jobs', { replace: true, state: { notice: response.message } });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Registration failed. Please try again.');
    } finally {
      setIsSubmitting(false);
    }
  };

  return (
    <form ref={formRef} className="stack" onSubmit={submit} noValidate>
      <FormAlert message={error} />
      {kind === 'title-company' ? <Field label="Company name" autoComplete="organization" {...bind('companyName')} /> : null}
      <Field label={kind === 'title-company' ? 'Your full name' : 'Full name'} autoComplete="name" {...bind('name')} />
      <Field label="Email" type="email" autoComplete="email" {...bind('email')} />
      {kind === 'notary' ? (
        <fieldset className="stack">
          <legend>Commission</legend>
          <StateSelect
            label="Commission state"
            name="commissionState"
            value={values.commissionState ?? ''}
            error={fieldErrors.commissionState ?? null}
            onChange={(code) => setValues((current) => ({ ...current, commissionState: code }))}
          />
          <Field label="County" {...bind('county')} />
          <Field label="Commission number" {...bind('commissionNumber')} />
          <Field label="Commission expires on" type="date" {...bind('commissionExpiresOn')} />
        </fieldset>
      ) : null}
      <PasswordField label="Password" autoComplete="new-password" hint="At least 8 characters." {...bind('password')} />
      <PasswordField label="Confirm password" autoComplete="new-password" {...bind('confirmPassword')} />
      {kind !== 'user' ? (
        <p className="notice">
          {kind === 'notary' ? 'Notary accounts' : 'Title company accounts'} start pending approval: an administrator reviews them before they can take part in
          notarizations.
        </p>
      ) : null}
      <button type="submit" className="button primary block" disabled={isSubmitting}>
        {isSubmitting ? 'Creating account…' : 'Create account'}
      </button>
      <p className="muted center">
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </form>
  );
}
