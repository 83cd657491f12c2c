import './signatures.css';
import { useCallback, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { saveSignatureInputSchema, signatureMessages, signatureMethods, type SignatureKind, type SignatureMethod } from '#shared/signatures.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { useCurrentSignature, useSaveSignature } from './signature-hooks.ts';
import { SignaturePad } from './signature-pad.tsx';
import { TypedSignature } from './typed-signature.tsx';
import { UploadedSignature } from './uploaded-signature.tsx';

const methodLabels: Record<SignatureMethod, string> = { draw: 'Draw', type: 'Type', upload: 'Upload' };

const wording: Record<SignatureKind, { title: string; label: string; noun: string; intro: string; typeLabel: string; aspectRatio: number }> = {
  signature: {
    title: 'Your signature',
    label: 'Signature',
    noun: 'signature',
    intro: 'Draw, type or upload the signature you will place on documents.',
    typeLabel: 'Type your full name',
    aspectRatio: 3,
  },
  initials: {
    title: 'Your initials',
    label: 'Initials',
    noun: 'initials',
    intro: 'Draw, type or upload the initials you will place on documents.',
    typeLabel: 'Type your initials',
    aspectRatio: 1.6,
  },
};

interface SignatureCaptureProps {
  kind: SignatureKind;
  /** A safe internal path to return to after saving (the signing workspace links here with ?next=). */
  nextPath: string | null;
  /** Text to start type mode with: the person's name or initials. */
  defaultText?: string;
}

/** Capture, preview and save a signature or initials image; shows the one saved now. */
export function SignatureCapture({ kind, nextPath, defaultText }: SignatureCaptureProps) {
  const words = wording[kind];
  const navigate = useNavigate();
  const current = useCurrentSignature(kind);
  const save = useSaveSignature(kind);
  const [method, setMethod] = useState<SignatureMethod>('draw');
  const [candidate, setCandidate] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [savedMessage, setSavedMessage] = useState<string | null>(null);
  const titleId = useId();
  const modeName = useId();

  const handleCandidate = useCallback((dataUrl: string | null) => {
    setCandidate(dataUrl);
    setSavedMessage(null);
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
    setSavedMessage(null);
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSavedMessage(null);
    const image = method === 'type' && renderingRef.current ? await renderingRef.current.catch(() => null) : candidate;
    if (!image) return setError(signatureMessages.empty);
    const parsed = saveSignatureInputSchema.safeParse({ imageDataUrl: image, method });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? 'This image cannot be saved.');
    const hadSaved = Boolean(current.data);
    try {
      await save.mutateAsync(parsed.data);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Saving failed. Please try again.');
      return;
    }
    setError(null);
    if (nextPath) {
      navigate(nextPath);
      return;
    }
    setSavedMessage(hadSaved ? `New ${words.noun} saved. Documents you already signed keep the earlier one.` : `${words.label} saved.`);
  };

  return (
    <section className="card wide stack signature-capture" aria-labelledby={titleId}>
      <div className="row between wrap">
        <h1 id={titleId}>{words.title}</h1>
        <Link to={nextPath ?? '/dashboard'}>{nextPath ? 'Back' : 'Back to dashboard'}</Link>
      </div>
      <p className="muted">{words.intro} Saving a new one does not change documents you have already signed.</p>

      <section className="signature-current" aria-labelledby={`${titleId}-current`}>
        <h2 id={`${titleId}-current`}>Saved {words.noun}</h2>
        {current.isPending ? <p role="status">Loading your saved {words.noun}…</p> : null}
        {current.error ? <FormAlert message={current.error.message} /> : null}
        {current.data === null ? <p className="empty">No {words.noun} saved yet</p> : null}
        {current.data ? <img className="signature-image" src={current.data.imageUrl} alt={`Your saved ${words.noun}`} /> : null}
      </section>

      <form className="stack" noValidate onSubmit={(event) => void handleSubmit(event)}>
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
        {method === 'type' ? <TypedSignature label={words.typeLabel} defaultText={defaultText} onChange={handleCandidate} onError={handleError} onRendering={handleRendering} /> : null}
        {method === 'upload' ? <UploadedSignature kind={kind} onChange={handleCandidate} onError={handleError} /> : null}

        <section className="signature-preview" aria-labelledby={`${titleId}-preview`}>
          <h2 id={`${titleId}-preview`}>Preview</h2>
          {candidate ? (
            <img className="signature-image" src={candidate} alt={`Preview of the ${words.noun} to save`} />
          ) : (
            <p className="empty" role="status">
              {method === 'type' && isPreparing ? 'Preparing the preview…' : 'Nothing to save yet.'}
            </p>
          )}
        </section>

        <FormAlert message={error} />
        <FormAlert tone="success" message={savedMessage} />
        <div className="actions">
          <button type="submit" className="button primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : `Save ${words.noun}`}
          </button>
        </div>
      </form>
    </section>
  );
}
