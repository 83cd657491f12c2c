import { useCallback, useEffect, useRef, useState } from 'react';

/** A form's messages by field, keyed by the field's path in the schema ("title", "signers.0.email"). */
export type FieldErrors = Record<string, string>;

export const highlightedFieldsMessage = 'Please correct the highlighted fields.';

/** The first message for each field of a failed parse (zod issues); issues of the whole form go under "form". */
export function toFieldErrors(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.') || 'form';
    errors[key] ??= issue.message;
  }
  return errors;
}

/** Moves the focus to the first field marked invalid in the form, in page order. */
export function focusFirstInvalid(form: HTMLElement | null): void {
  form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}

/**
 * The field errors of a form: each field shows its own message (Field's `error`, which marks it
 * aria-invalid) and, after a submit that found any, the first highlighted field takes the focus.
 * Put `formRef` on the form; `show` returns whether the form is free of errors.
 */
export function useFieldErrors() {
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failedSubmits, setFailedSubmits] = useState(0);
  useEffect(() => {
    if (failedSubmits > 0) focusFirstInvalid(formRef.current);
  }, [failedSubmits]);
  const show = useCallback((next: FieldErrors): boolean => {
    setErrors(next);
    const isValid = Object.keys(next).length === 0;
    if (!isValid) setFailedSubmits((count) => count + 1);
    return isValid;
  }, []);
  return { formRef, errors, show };
}
