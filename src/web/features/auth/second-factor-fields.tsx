import { normalizeDigitsInput } from '#shared/mfa.ts';
import { Field } from '#web/components/field.tsx';

/** A 6-digit code input (authenticator or email code) that keeps digits only. */
export function DigitsCodeField({ label, name, value, onChange }: { label: string; name: string; value: string; onChange: (value: string) => void }) {
  return (
    <Field
      label={label}
      name={name}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      value={value}
      onChange={(event) => onChange(normalizeDigitsInput(event.target.value))}
    />
  );
}

/** The "Remember this device" checkbox of every second-factor step (the steps start it checked). */
export function RememberDeviceField({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label className="checkbox">
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      Remember this device
    </label>
  );
}
