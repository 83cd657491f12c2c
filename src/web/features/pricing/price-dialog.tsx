import { useState, type FormEvent } from 'react';
import {
  createPriceItemInputSchema,
  feeKindLabels,
  feeKinds,
  formatCents,
  parseDollarsToCents,
  priceUnitLabels,
  priceUnits,
  updatePriceItemInputSchema,
  type FeeKind,
  type PriceItem,
  type PriceUnit,
} from '#shared/pricing.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { ModalDialog } from '#web/components/modal-dialog.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { highlightedFieldsMessage, toFieldErrors, useFieldErrors } from '#web/lib/form-errors.ts';

interface PriceDialogProps {
  /** The item to change; none to add a default price. */
  item: PriceItem | null;
  /** Whose price this is, for the heading: "the defaults" or a company's name. */
  owner: string;
  /** Only the amount may change (a company's own amount for a default item). */
  isAmountOnly?: boolean;
  /** Sends the checked input; answers with the sentence to show, or throws the server's refusal. */
  save: (input: { key?: string; label?: string; amountCents?: number; unit?: PriceUnit; feeKind?: FeeKind }) => Promise<string>;
  onClose: () => void;
  onSaved: (message: string) => void;
}

/** A key from a label: "First seal" → first_seal. */
const keyFromLabel = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '')
    .slice(0, 48);

/** A price's label, key, amount in dollars and cents, what it is counted by, and whether it is the notary's fee. */
export function PriceDialog({ item, owner, isAmountOnly = false, save, onClose, onSaved }: PriceDialogProps) {
  const [label, setLabel] = useState(item?.label ?? '');
  const [key, setKey] = useState(item?.key ?? '');
  const [isKeyTouched, setIsKeyTouched] = useState(false);
  const [amount, setAmount] = useState(item ? formatCents(item.amountCents).replace(/^\$/, '') : '');
  const [unit, setUnit] = useState<PriceUnit>(item?.unit ?? 'job');
  const [feeKind, setFeeKind] = useState<FeeKind>(item?.feeKind ?? 'platform');
  const [error, setError] = useState<string | null>(null);
  const [isSaving, setIsSaving] = useState(false);
  const { formRef, errors, show } = useFieldErrors();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const amountCents = parseDollarsToCents(amount);
    const input = isAmountOnly ? { amountCents: amountCents ?? Number.NaN } : { key, label, amountCents: amountCents ?? Number.NaN, unit, feeKind };
    const parsed = item ? updatePriceItemInputSchema.safeParse(input) : createPriceItemInputSchema.safeParse(input);
    const fieldErrors = parsed.success ? {} : toFieldErrors(parsed.error.issues);
    if (amountCents === null) fieldErrors.amountCents = 'Enter an amount in dollars and cents, like 25.00.';
    if (!show(fieldErrors) || !parsed.success) {
      setError(highlightedFieldsMessage);
      return;
    }
    setError(null);
    setIsSaving(true);
    try {
      const message = await save(parsed.data);
      onClose();
      onSaved(message);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The price could not be saved. Please try again.');
      setIsSaving(false);
    }
  };

  const title = item ? `Change “${item.label}” for ${owner}` : `Add a price to ${owner}`;
  return (
    <ModalDialog title={title} onClose={onClose}>
      <form ref={formRef} className="stack" noValidate onSubmit={(event) => void submit(event)}>
        <FormAlert message={error} />
        {isAmountOnly ? null : (
          <>
            <Field
              label="Label"
              value={label}
              error={errors.label}
              hint="What invoices call it, such as “First seal”."
              onChange={(event) => {
                setLabel(event.target.value);
                if (!item && !isKeyTouched) setKey(keyFromLabel(event.target.value));
              }}
              autoFocus
            />
            {item ? null : (
              <Field
                label="Key"
                value={key}
                error={errors.key}
                hint="How exports and integrations name it: lower-case letters, digits and underscores. It cannot change later."
                onChange={(event) => {
                  setIsKeyTouched(true);
                  setKey(event.target.value);
                }}
              />
            )}
          </>
        )}
        <Field
          label="Amount in dollars"
          inputMode="decimal"
          value={amount}
          error={errors.amountCents}
          hint="Dollars and cents, such as 25.00."
          onChange={(event) => setAmount(event.target.value)}
          autoFocus={isAmountOnly}
        />
        {isAmountOnly ? null : (
          <>
            <div className="field">
              <label htmlFor="price-unit">Counted</label>
              <select id="price-unit" value={unit} aria-invalid={errors.unit ? true : undefined} onChange={(event) => setUnit(event.target.value as PriceUnit)}>
                {priceUnits.map((option) => (
                  <option key={option} value={option}>
                    {priceUnitLabels[option]}
                  </option>
                ))}
              </select>
              {errors.unit ? <p className="field-error">{errors.unit}</p> : null}
            </div>
            <fieldset className="stack">
              <legend>Kind of fee</legend>
              {feeKinds.map((option) => (
                <label key={option} className="checkbox">
                  <input type="radio" name="fee-kind" value={option} checked={feeKind === option} onChange={() => setFeeKind(option)} />
                  {feeKindLabels[option]}
                </label>
              ))}
              <p className="field-hint">A notarial fee is counted per notarial act, and the notarial fees of one act together may not pass any state’s cap.</p>
            </fieldset>
          </>
        )}
        <div className="actions">
          <button type="submit" className="button primary" disabled={isSaving}>
            {isSaving ? 'Saving…' : item ? 'Save price' : 'Add price'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}
