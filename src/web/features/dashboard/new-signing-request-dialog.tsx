import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';

/**
 * The New Signing Request dialog. Creating signing jobs is not built in this version, so the dialog
 * says so rather than pretending; closing it routes to the dashboard as SPEC describes.
 */
export function NewSigningRequestDialog({ onClose }: { onClose: () => void }) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const navigate = useNavigate();
  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const close = () => {
    dialogRef.current?.close();
    onClose();
    navigate('/dashboard');
  };
  return (
    <dialog ref={dialogRef} className="dialog" aria-labelledby="new-request-title" onCancel={close}>
      <h2 id="new-request-title">New Signing Request</h2>
      <p>Creating signing requests (jobs, signers and documents) is not available in this version yet.</p>
      <div className="actions">
        <button type="button" className="button primary" onClick={close} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
