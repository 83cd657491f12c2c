import type { UsStateCode } from '#shared/us-states.ts';
import { Field } from '#web/components/field.tsx';
import { StateSelect } from '#web/components/state-select.tsx';
import type { FieldErrors } from '#web/lib/form-errors.ts';

export interface CompanyFactValues {
  name: string;
  city: string;
  state: UsStateCode | '';
  addressLine: string;
  phone: string;
  contactEmail: string;
}

export const emptyCompanyFacts: CompanyFactValues = { name: '', city: '', state: '', addressLine: '', phone: '', contactEmail: '' };

/** The facts as the API takes them: a blank optional field is sent as null (no value), a state not chosen is left for the schema to name. */
export function toCompanyFactsInput(values: CompanyFactValues) {
  const orNull = (text: string) => (text.trim() ? text : null);
  return {
    name: values.name,
    city: values.city,
    state: values.state || undefined,
    addressLine: orNull(values.addressLine),
    phone: orNull(values.phone),
    contactEmail: orNull(values.contactEmail),
  };
}

/** A company's name, place and contact details: the same fields when an administrator creates a company and when its staff edit it. */
export function CompanyFactFields({
  values,
  errors,
  onChange,
}: {
  values: CompanyFactValues;
  errors: FieldErrors;
  onChange: (values: CompanyFactValues) => void;
}) {
  const set = (changes: Partial<CompanyFactValues>) => onChange({ ...values, ...changes });
  return (
    <>
      <Field label="Company name" autoComplete="organization" value={values.name} error={errors.name} onChange={(event) => set({ name: event.target.value })} />
      <div className="field-pair">
        <Field label="City" autoComplete="address-level2" value={values.city} error={errors.city} onChange={(event) => set({ city: event.target.value })} />
        <StateSelect label="State" value={values.state} error={errors.state} onChange={(state) => set({ state })} />
      </div>
      <Field
        label="Street address (optional)"
        autoComplete="street-address"
        value={values.addressLine}
        error={errors.addressLine}
        onChange={(event) => set({ addressLine: event.target.value })}
      />
      <div className="field-pair">
        <Field
          label="Phone (optional)"
          type="tel"
          autoComplete="tel"
          value={values.phone}
          error={errors.phone}
          onChange={(event) => set({ phone: event.target.value })}
        />
        <Field
          label="Contact email (optional)"
          type="email"
          autoComplete="email"
          value={values.contactEmail}
          error={errors.contactEmail}
          onChange={(event) => set({ contactEmail: event.target.value })}
        />
      </div>
    </>
  );
}
