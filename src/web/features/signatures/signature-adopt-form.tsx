import './signatures.css';
import { useCallback, useId, useRef, useState, type FormEvent } from 'react';
import { saveSignatureInputSchema, signatureMessages, signatureMethods, type Signature, type SignatureKind, type SignatureMethod } from '#shared/signatures.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { useCurrentSignature, useSaveSignature } from './api/signature-queries.ts';
import { SignaturePad } from './signature-pad.tsx';
import { TypedSignature } from './typed-signature.tsx';
import { UploadedSignature } from './uploaded-signature.tsx';

const methodLabels: Record<SignatureMethod, string> = { draw: 'Draw', type: 'Type', upload: 'Upload' };

export const signatureWording: Record<
  SignatureKind,
  { title: string; adoptTitle: string; label: string; noun: string; intro: string; typeLabel: string; aspectRatio: number }
> = {
  signature: {
    title: 'Your signature',
    adoptTitle: 'Adopt your signature',
    label: 'Signature',
    noun: 'signature',
    intro: 'Draw, type or upload the signature you will place on documents.',
    typeLabel: 'Type your full name',
    aspectRatio: 3,
  },
  initials: {
    title: 'Your initials',
    adoptTitle: 'Adopt your initials',
    label: 'Initials',
    noun: 'initials',
    intro: 'Draw, type or upload the initials you will place on documents.',
    typeLabel: 'Type your initials',
    aspectRatio: 1.6,
  },
};

/** "Riley Q. Signer" -> "RQS" (at most three letters). */
export function toInitials(name: string): string {
  return name
    .split(/\s+/)
    .map((word) =>
      word
        .replace(/[^\p{L}]/gu, '')
        .charAt(0)
        .toUpperCase(),
    )
    .join('')
    .slice(0, 3);
}

interface SignatureAdoptFormProps {
  kind: SignatureKind;
  /** Text to start type mode with: the person's name or initials. */
  defaultText?: string;
  /** "Save signature" on its page, "Adopt and sign" in the signing workspace. */
  submitLabel: string;
  onAdopted: (saved: Signature, hadSaved: boolean) => void;
  /** A second button beside the submit one (the dialog's Cancel). */
  onCancel?: () => void;
}

/**
 * Draw, type or upload a signature or initials, preview it and save it. The first adoption of
 * all (no signature or initials saved yet) also asks for the consent to sign electronically, which
 * the server requires and records. The one form of the /signature and /initials pages and of the
 * dialog in the signing workspace and the session room.
 */
export function SignatureAdoptForm({ kind, defaultText, submitLabel, onAdopted, onCancel }: SignatureAdoptFormProps) {
  const words = signatureWording[kind];
  const current = useCurrentSignature(kind);
  const other = useCurrentSignature(kind === 'signature' ? 'initials' : 'signature');
  const save = useSaveSignature(kind);
  const [method, setMethod] = useState<SignatureMethod>('draw');
  const [candidate, setCandidate] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [hasAgreed, setHasAgreed] = useState(false);
  const baseId = useId();
  const modeName = useId();
  // Consent is asked once: before anything is adopted (the rule the server applies). The form waits
  // to know, so the question never flickers in or out.
  const isChecking = current.isPending || other.isPending;
  const needsConsent = !isChecking && current.data === null && other.data === null;

  const handleCandidate = useCallback((dataUrl: string | null) => {
    setCandidate(dataUrl);
    if (dataUrl) setError(null);
  }, []);
  // A typed name is drawn once its script font has arrived: a save pressed meanwhile waits for it.
  const renderingRef = useRef<Promise<string | null> | null>(null);
  const [isPreparing, setIsPreparing] = useState(false);
  const handleRendering = useCallback((pending: Promise<string | null>) => {
    renderingRef.current = pending;
    setIsPreparing(true);
    const settle = () => {
      if (renderingRef.current !== pending) return;
      renderingRef.current = null;
      setIsPreparing(false);
    };
    pending.then(settle, settle);
  }, []);
  const handleError = useCallback((message: string) => {
    setCandidate(null);
    setError(message);
  }, []);

  const chooseMethod = (next: SignatureMethod) => {
    setMethod(next);
    setCandidate(null);
    setError(null);
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const image = method === 'type' && renderingRef.current ? await renderingRef.current.catch(() => null) : candidate;
    if (!image) return setError(signatureMessages.empty);
    if (needsConsent && !hasAgreed) return setError(signatureMessages.consentRequired);
    const parsed = saveSignatureInputSchema.safeParse({ imageDataUrl: image, method, ...(needsConsent ? { hasAgreedToSignElectronically: true } : {}) });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'This image cannot be saved.');
    const hadSaved = Boolean(current.data);
    let saved: Signature;
    try {
      saved = await save.mutateAsync(parsed.data);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Saving failed. Please try again.');
      return;
    }
    setError(null);
    onAdopted(saved, hadSaved);
  };

  return (
    <form className="stack signature-adopt" noValidate onSubmit={(event) => void handleSubmit(event)}>
      <fieldset className="signature-modes">
        <legend>How do you want to make your {words.noun}?</legend>
        <div className="signature-choices">
          {signatureMethods.map((option) => (
            <label key={option} className="signature-choice signature-mode">
              <input type="radio" name={modeName} value={option} checked={method === option} onChange={() => chooseMethod(option)} />
              <span>{methodLabels[option]}</span>
            </label>
          ))}
        </div>
      </fieldset>

      {method === 'draw' ? <SignaturePad label={`${words.label} drawing area`} aspectRatio={words.aspectRatio} onChange={handleCandidate} /> : null}
      {method === 'type' ? (
        <TypedSignature label={words.typeLabel} defaultText={defaultText} onChange={handleCandidate} onError={handleError} onRendering={handleRendering} />
      ) : null}
      {method === 'upload' ? <UploadedSignature kind={kind} onChange={handleCandidate} onError={handleError} /> : null}

      <section className="signature-preview" aria-labelledby={`${baseId}-preview`}>
        <h2 id={`${baseId}-preview`}>Preview</h2>
        {candidate ? (
          <img className="signature-image" src={candidate} alt={`Preview of the ${words.noun} to save`} />
        ) : (
          <p className="empty" role="status">
            {method === 'type' && isPreparing ? 'Preparing the preview…' : 'Nothing to save yet.'}
          </p>
        )}
      </section>

      {needsConsent ? (
        <label className="checkbox signature-consent">
          <input type="checkbox" checked={hasAgreed} onChange={(event) => setHasAgreed(event.target.checked)} />
          <span>{signatureMessages.consentWording}</span>
        </label>
      ) : null}

      <FormAlert message={error} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={save.isPending || isChecking}>
          {save.isPending ? 'Saving…' : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
