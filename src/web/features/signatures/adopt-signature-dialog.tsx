import './signatures.css';
import { useEffect, useId, useRef } from 'react';
import type { SignatureKind } from '#shared/signatures.ts';
import { SignatureAdoptForm, signatureWording, toInitials } from './signature-adopt-form.tsx';

interface AdoptSignatureDialogProps {
  kind: SignatureKind;
  /** The person's name: type mode starts with it (or its initials). */
  personName: string;
  /** Called once the image is saved; the workspace then fills the field that asked for it. */
  onAdopted: () => void;
  onClose: () => void;
}

/**
 * Adopting a signature or initials where the person is signing (the workspace, the session room):
 * a modal dialog, so nobody leaves the page, the call or the recording to make one. The browser's
 * modal keeps the focus inside it; Escape and Cancel close it and give the focus back.
 */
export function AdoptSignatureDialog({ kind, personName, onAdopted, onClose }: AdoptSignatureDialogProps) {
  const words = signatureWording[kind];
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = dialogRef.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (opener?.isConnected) opener.focus({ preventScroll: true });
    };
  }, []);

  return (
    <dialog
      ref={dialogRef}
      className="dialog adopt-signature stack"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{words.adoptTitle}</h2>
      <p className="muted">{words.intro} It is kept for your next documents; making a new one later does not change what you signed.</p>
      <SignatureAdoptForm
        kind={kind}
        defaultText={kind === 'initials' ? toInitials(personName) : personName}
        submitLabel="Adopt and sign"
        onAdopted={onAdopted}
        onCancel={onClose}
      />
    </dialog>
  );
}
