import { FormAlert } from '#web/components/field.tsx';

interface WorkspaceNoticesProps {
  error: string | null;
  notice: string | null;
  info: string | null;
  /** What placing a field says, step by step (always in the page for screen readers). */
  announcement: string;
  /** Shown when nothing else is: where the reader is. */
  position: string | null;
}

/**
 * The workspace's notice slot: a strip of fixed height between the bar and the pages, so a message
 * never moves the work area and never covers it. It shows the most pressing message (an error, then
 * a success, then information, then the placement step), else where the reader is.
 */
export function WorkspaceNotices({ error, notice, info, announcement, position }: WorkspaceNoticesProps) {
  const alert = error ? (
    <FormAlert message={error} />
  ) : notice ? (
    <FormAlert message={notice} tone="success" />
  ) : info ? (
    <p className="alert info">{info}</p>
  ) : null;
  return (
    <div className="workspace-notices">
      {alert}
      <p className={alert || !announcement ? 'visually-hidden' : 'placement-banner'} role="status" data-testid="placement-announcer">
        {announcement}
      </p>
      {!alert && !announcement && position ? <p className="workspace-position">{position}</p> : null}
    </div>
  );
}
