import { useState, type FormEvent } from 'react';
import { documentTypeNames, documentTypes, type DocumentType, type IdentityCheck } from '#shared/identity.ts';
import { FormAlert } from '#web/components/field.tsx';
import { ApiError } from '#web/lib/api-client.ts';
import { PhotoSlot, UploadProgress } from './camera-capture.tsx';
import { identityCalls, type CredentialPhotos, type IdentityAccess } from './api/identity-queries.ts';
import { getDocumentSides, sideNames } from './identity-words.ts';

interface StepProps {
  check: IdentityCheck;
  access: IdentityAccess;
  onCheck: (check: IdentityCheck) => void;
}

const errorText = (caught: unknown) => (caught instanceof ApiError ? caught.message : 'The photos could not be sent. Check your connection and try again.');

/** What the last ID photos failed on: each failed check's sentence. */
function FailedChecks({ check }: { check: IdentityCheck }) {
  const failed = check.credential.checks.filter((item) => !item.passed);
  if (check.credential.status !== 'failed') return null;
  return (
    <div className="alert error" role="alert">
      <p className="strong">Your ID photos did not pass. Take new photos:</p>
      {failed.length > 0 ? (
        <ul>
          {failed.map((item) => (
            <li key={item.id}>{item.sentence}</li>
          ))}
        </ul>
      ) : (
        <p>{check.nextStep}</p>
      )}
    </div>
  );
}

/** The ID: its type, then the front and back (or the passport's photo page), checked by the server. */
export function CredentialStep({ check, access, onCheck }: StepProps) {
  const [documentType, setDocumentType] = useState<DocumentType | null>(check.credential.documentType);
  const [photos, setPhotos] = useState<CredentialPhotos>({});
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const sides = documentType ? getDocumentSides(documentType) : [];
  const isSending = progress !== null;
  const missing = sides.filter((side) => !photos[side]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!documentType) return setError('Choose the kind of ID you have.');
    if (missing.length > 0) return setError(`Add a photo of: ${missing.map((side) => sideNames[side].toLowerCase()).join(' and ')}.`);
    setProgress(0);
    try {
      const next = await identityCalls.sendCredential(check.checkId, documentType, photos, setProgress, access);
      // A failed check keeps this step: new photos are asked for, with the sentences of what failed.
      if (next.credential.status === 'failed') setPhotos({});
      onCheck(next);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setProgress(null);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void send(event)} noValidate>
      <h2 id="identity-stage-title">Photograph your ID</h2>
      <p>Use a driver’s licence, a state ID card or a passport that has not expired. The photos are checked here and shown to your notary.</p>
      <FailedChecks check={check} />
      <fieldset className="stack">
        <legend>Which ID do you have?</legend>
        {documentTypes.map((type) => (
          <label key={type} className="checkbox radio-choice">
            <input
              type="radio"
              name="documentType"
              value={type}
              checked={documentType === type}
              disabled={isSending}
              onChange={() => {
                setDocumentType(type);
                setPhotos({});
              }}
            />
            {documentTypeNames[type]}
          </label>
        ))}
      </fieldset>
      {sides.map((side) => (
        <PhotoSlot
          key={`${documentType}-${side}`}
          label={sideNames[side]}
          guide={side === 'passport' ? 'passport' : 'card'}
          photo={photos[side] ?? null}
          disabled={isSending}
          onPhoto={(photo) => setPhotos((current) => ({ ...current, [side]: photo ?? undefined }))}
        />
      ))}
      <UploadProgress fraction={progress} what="Your ID photos" />
      <FormAlert message={error} />
      {documentType ? (
        <button type="submit" className="button primary" disabled={isSending}>
          {isSending ? 'Sending…' : sides.length > 1 ? 'Send both photos' : 'Send the photo'}
        </button>
      ) : null}
    </form>
  );
}

/** A photograph of the person's face, for the notary to compare with the ID photo. */
export function SelfieStep({ check, access, onCheck }: StepProps) {
  const [photo, setPhoto] = useState<Blob | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const isSending = progress !== null;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!photo) return setError('Take a selfie first, or choose a photo of your face.');
    setProgress(0);
    try {
      onCheck(await identityCalls.sendSelfie(check.checkId, photo, setProgress, access));
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'The selfie could not be sent. Check your connection and try again.');
    } finally {
      setProgress(null);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void send(event)} noValidate>
      <h2 id="identity-stage-title">Take a selfie</h2>
      <p>Your notary compares this photo with the photo on your ID.</p>
      <PhotoSlot
        label={sideNames.selfie}
        guide="face"
        photo={photo}
        disabled={isSending}
        onPhoto={(taken) => {
          // A "take a selfie first" from a tap before the photo was ready is answered by the photo itself.
          if (taken) setError(null);
          setPhoto(taken);
        }}
      />
      <UploadProgress fraction={progress} what="Your selfie" />
      <FormAlert message={error} />
      <button type="submit" className="button primary" disabled={isSending}>
        {isSending ? 'Sending…' : 'Send the selfie'}
      </button>
    </form>
  );
}
