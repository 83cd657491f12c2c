import { useId } from 'react';
import { usStateCodes, usStates, type UsStateCode } from '#shared/us-states.ts';
import { describedByOf, FieldNotes } from './field.tsx';

interface StateSelectProps {
  label: string;
  /** A state code ("TX"), or '' for none chosen yet. */
  value: string;
  onChange: (code: UsStateCode | '') => void;
  name?: string;
  error?: string | null;
  hint?: string;
  /** The first, empty choice. */
  placeholder?: string;
}

/**
 * Every US state picker: full names to choose from ("Texas"), the two-letter code as the value the
 * API takes. One list for every form (us-states.ts).
 */
export function StateSelect({ label, value, onChange, name, error, hint, placeholder = 'Choose a state' }: StateSelectProps) {
  const id = useId();
  const describedBy = describedByOf(id, hint, error);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        name={name}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value as UsStateCode | '')}
      >
        <option value="">{placeholder}</option>
        {usStateCodes.map((code) => (
          <option key={code} value={code}>
            {usStates[code].name}
          </option>
        ))}
      </select>
      <FieldNotes id={id} hint={hint} error={error} />
    </div>
  );
}
