import { useRef, useState, type CSSProperties } from 'react';
import { formatFieldValue } from '#shared/dates.ts';
import { fieldLabels, isCalendarDay, type DocumentField, type NotaryStamp } from '#shared/fields.ts';
import { CertificatePreview, NotarySeal } from './notary-stamp.tsx';

/**
 * What sits inside a field: the control its owner fills it with, in place (a text box, a date, a
 * checkbox, or a button for signatures and the notary's marks), and once filled, what will be
 * printed. Every control carries `data-field-control` so the list of remaining fields can focus it.
 */

interface FillControlProps {
  field: DocumentField;
  /** "Text for Pat Signer" */
  label: string;
  /** Font size in CSS pixels that matches what the PDF prints in this box. */
  fontSize: number;
  onFill: (field: DocumentField, value?: string) => void;
}

/** A text or date field edited in place: Enter or leaving the box saves a value. */
function InlineInput({ field, label, fontSize, onFill, type }: FillControlProps & { type: 'text' | 'date' }) {
  const [value, setValue] = useState('');
  const isSent = useRef(false);
  const save = () => {
    const trimmed = value.trim();
    if (isSent.current || !trimmed || (type === 'date' && !isCalendarDay(trimmed))) return;
    isSent.current = true;
    onFill(field, trimmed);
    // A refused value (a stale version, say) may be typed again.
    window.setTimeout(() => {
      isSent.current = false;
    }, 1500);
  };
  return (
    <input
      className="field-input"
      data-field-control=""
      type={type}
      aria-label={label}
      value={value}
      maxLength={type === 'text' ? 500 : undefined}
      placeholder={type === 'text' ? 'Type here' : undefined}
      style={{ fontSize }}
      onPointerDown={(event) => event.stopPropagation()}
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          save();
        }
      }}
      onBlur={save}
    />
  );
}

export function FillControl(props: FillControlProps) {
  const { field, label, onFill } = props;
  if (field.type === 'text') return <InlineInput {...props} type="text" />;
  if (field.type === 'date') return <InlineInput {...props} type="date" />;
  if (field.type === 'checkbox') {
    return (
      <input
        className="field-checkbox"
        data-field-control=""
        type="checkbox"
        aria-label={label}
        checked={false}
        onPointerDown={(event) => event.stopPropagation()}
        onChange={(event) => {
          if (event.target.checked) onFill(field, 'true');
        }}
      />
    );
  }
  const words =
    field.type === 'signature' || field.type === 'notary_signature'
      ? 'Sign here'
      : field.type === 'initials'
        ? 'Initial here'
        : `Fill ${fieldLabels[field.type].toLowerCase()}`;
  return (
    // The words show whole at every zoom: they wrap in a narrow field (signing.css).
    <button
      type="button"
      className="fill-button"
      data-field-control=""
      title={words}
      onPointerDown={(event) => event.stopPropagation()}
      onClick={() => onFill(field)}
    >
      {words}
    </button>
  );
}

/** A filled field shows what the notarized PDF will print there. */
export function FilledValue({
  field,
  name,
  fontSize,
  pointScale,
  stamp,
}: {
  field: DocumentField;
  name: string;
  fontSize: number;
  pointScale: number;
  stamp: NotaryStamp | null;
}) {
  if (field.imageUrl) return <img src={field.imageUrl} alt={`${name}, signed`} draggable={false} />;
  switch (field.type) {
    case 'notary_seal':
      return stamp ? <NotarySeal stamp={stamp} /> : <span className="field-value">Notary seal</span>;
    case 'notarial_certificate':
      return stamp ? <CertificatePreview text={stamp.certificateText} pointScale={pointScale} /> : <span className="field-value">Notarial certificate</span>;
    case 'checkbox':
      return (
        <span className="field-value checkmark" aria-label={field.value === 'true' ? 'checked' : 'not checked'}>
          {field.value === 'true' ? '✔' : ''}
        </span>
      );
    default: {
      const style: CSSProperties = { fontSize };
      // Dates as the notarized PDF prints them: the way the notary's commission state writes dates.
      return (
        <span className="field-value" style={style}>
          {formatFieldValue(field, stamp?.commissionState)}
        </span>
      );
    }
  }
}
