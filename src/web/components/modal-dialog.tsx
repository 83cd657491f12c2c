import { useEffect, useId, useRef, type ReactNode } from 'react';

interface ModalDialogProps {
  /** The dialog's heading and name. */
  title: string;
  /** Escape was pressed: the owner closes the dialog by no longer rendering it, as its Cancel button does. */
  onClose: () => void;
  children: ReactNode;
  isWide?: boolean;
}

/**
 * A modal form in the page (native <dialog>): opens on mount with the focus inside, closes on
 * Escape, and gives the focus back to the control that opened it when its owner stops rendering
 * it. A form that succeeds may then move the focus to its notice (useNotice), whose effect runs
 * after this one's cleanup.
 */
export function ModalDialog({ title, onClose, children, isWide = false }: ModalDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog
      ref={dialogRef}
      className={isWide ? 'dialog wide-dialog' : 'dialog'}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
