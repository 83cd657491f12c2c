import './signatures.css';
import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { SignatureKind } from '#shared/signatures.ts';
import { FormAlert } from '#web/components/field.tsx';
import { SignatureAdoptForm, signatureWording } from './signature-adopt-form.tsx';
import { useCurrentSignature } from './api/signature-queries.ts';

interface SignatureCaptureProps {
  kind: SignatureKind;
  /** A safe internal path to return to after saving (`?next=` of the /signature and /initials pages). */
  nextPath: string | null;
  /** Text to start type mode with: the person's name or initials. */
  defaultText?: string;
}

/** The /signature and /initials pages: the saved image, and the adopt form to make a new one. */
export function SignatureCapture({ kind, nextPath, defaultText }: SignatureCaptureProps) {
  const words = signatureWording[kind];
  const navigate = useNavigate();
  const current = useCurrentSignature(kind);
  const [savedMessage, setSavedMessage] = useState<string | null>(null);
  // A new form after each save: it starts empty again.
  const [formKey, setFormKey] = useState(0);
  const titleId = useId();

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

      <SignatureAdoptForm
        key={formKey}
        kind={kind}
        defaultText={defaultText}
        submitLabel={`Save ${words.noun}`}
        onAdopted={(_saved, hadSaved) => {
          if (nextPath) {
            navigate(nextPath);
            return;
          }
          setFormKey((value) => value + 1);
          setSavedMessage(hadSaved ? `New ${words.noun} saved. Documents you already signed keep the earlier one.` : `${words.label} saved.`);
        }}
      />
      <FormAlert tone="success" message={savedMessage} />
    </section>
  );
}
