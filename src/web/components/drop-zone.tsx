import './controls.css';
import { useId, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { describeFileRules, sortFiles, toAcceptAttribute, type FileRules } from './drop-zone-rules.ts';

export interface DropZoneProps {
  /** Names the file input: "Add PDFs". */
  label: string;
  /** The button that opens the file picker: "Choose PDFs". */
  buttonLabel: string;
  rules: FileRules;
  /** Called with the files taken (never empty). */
  onFiles: (files: File[]) => void;
  /** While true (an upload running), nothing is taken. */
  disabled?: boolean;
  /** Said after the rules: what happens to the files. */
  hint?: ReactNode;
  /** A message from the caller about the files (the server refused them); shown like a refusal. */
  error?: string | null;
  /** Below the zone: the progress of an upload, the file chosen. */
  children?: ReactNode;
}

/**
 * Where files are given: dropped on the zone, or chosen with a real button that opens the file
 * picker (keyboard and touch). It says what it takes (types, size limit) and why a file is refused.
 */
export function DropZone({ label, buttonLabel, rules, onFiles, disabled = false, hint, error, children }: DropZoneProps) {
  const inputId = useId();
  const rulesId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [isOver, setIsOver] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  // dragenter/dragleave fire for every child crossed: count them to know when the drag left the zone.
  const depth = useRef(0);

  const take = (files: File[]) => {
    if (files.length === 0) return;
    if (disabled) return setRefusal('Wait for the upload in progress to finish, then add the files again.');
    const { accepted, refusals } = sortFiles(files, rules);
    setRefusal(refusals.length > 0 ? refusals.join(' ') : null);
    if (accepted.length > 0) onFiles(accepted);
  };

  const onDrag = (event: DragEvent<HTMLDivElement>, change: 1 | -1 | 0) => {
    if (!event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    if (change === 0) {
      event.dataTransfer.dropEffect = disabled ? 'none' : 'copy';
      return;
    }
    depth.current = Math.max(0, depth.current + change);
    setIsOver(depth.current > 0);
  };

  const message = refusal ?? error ?? null;
  const className = ['drop-zone', isOver ? 'is-over' : '', disabled ? 'is-disabled' : '', message ? 'has-error' : ''].filter(Boolean).join(' ');
  return (
    <div
      className={className}
      data-testid="drop-zone"
      onDragEnter={(event) => onDrag(event, 1)}
      onDragLeave={(event) => onDrag(event, -1)}
      onDragOver={(event) => onDrag(event, 0)}
      onDrop={(event) => {
        if (!event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        depth.current = 0;
        setIsOver(false);
        take([...event.dataTransfer.files]);
      }}
    >
      <label className="drop-zone-title" htmlFor={inputId}>
        {label}
      </label>
      <p aria-hidden="true">{isOver ? 'Drop to add.' : `Drag ${rules.isMultiple ? 'files' : 'a file'} here, or`}</p>
      <button type="button" className="button" disabled={disabled} aria-describedby={rulesId} onClick={() => inputRef.current?.click()}>
        {buttonLabel}
      </button>
      <p className="field-hint" id={rulesId}>
        {describeFileRules(rules)}
        {hint ? <> {hint}</> : null}
      </p>
      <input
        ref={inputRef}
        id={inputId}
        type="file"
        hidden
        accept={toAcceptAttribute(rules)}
        multiple={rules.isMultiple}
        disabled={disabled}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          // The same file may be chosen again after a refusal or an upload.
          event.target.value = '';
          take(files);
        }}
      />
      {message ? (
        <p className="drop-zone-error" role="alert">
          {message}
        </p>
      ) : null}
      {children}
    </div>
  );
}
