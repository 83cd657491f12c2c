import { fieldLabels, type DocumentField } from '#shared/fields.ts';
import type { JobField } from './use-job-fields.ts';

interface RemainingFieldsProps {
  fields: JobField[];
  currentDocumentId: string | null;
  participants: Array<{ id: string; name: string; role: string }>;
  isNotary: boolean;
  /** Every signing document is complete (the job may be sealed). */
  areDocumentsComplete: boolean;
  canFill: (field: DocumentField) => boolean;
  onJump: (field: DocumentField) => void;
}

function describePlace({ field, documentName }: JobField, currentDocumentId: string | null): string {
  const where = field.isOnEveryPage ? 'on every page' : `on page ${field.page}`;
  return `${fieldLabels[field.type]} ${where}${field.documentId === currentDocumentId ? '' : ` of ${documentName}`}`;
}

/**
 * During the session: each person's remaining fields as a list that jumps to and focuses the field,
 * what is done and what happens next once they are all filled, and for the notary who is still
 * filling.
 */
export function RemainingFields({ fields, currentDocumentId, participants, isNotary, areDocumentsComplete, canFill, onJump }: RemainingFieldsProps) {
  const mine = fields.filter(({ field }) => canFill(field));
  const open = mine.filter(({ field }) => !field.filledAt);
  const isEverythingFilled = fields.length > 0 && fields.every(({ field }) => field.filledAt);
  let message: string | null = null;
  if (isNotary && isEverythingFilled) {
    message = areDocumentsComplete ? 'Every document is complete. Seal the job to finish.' : 'Every field is filled. Complete the document, then seal the job.';
  } else if (mine.length > 0 && open.length === 0) {
    message = isNotary ? 'You have filled all your fields.' : 'You have filled all your fields. The notary will complete the document.';
  } else if (!isNotary && mine.length === 0) {
    message = 'There are no fields for you to fill in this job.';
  }
  const progress = isNotary
    ? participants
        .map((participant) => ({ participant, own: fields.filter(({ field }) => field.participantId === participant.id) }))
        .filter(({ own }) => own.length > 0)
        .map(({ participant, own }) => {
          const left = own.filter(({ field }) => !field.filledAt).length;
          return left === 0 ? `${participant.name} has filled all their fields.` : `${participant.name}: ${left} field${left === 1 ? '' : 's'} left to fill.`;
        })
    : [];

  return (
    <section className="stack" aria-labelledby="todo-title">
      <h2 id="todo-title">Your fields</h2>
      {open.length > 0 ? (
        <ul className="plain" aria-label="Your remaining fields">
          {open.map((item) => (
            <li key={item.field.id}>
              <button type="button" className="button link" onClick={() => onJump(item.field)}>
                {describePlace(item, currentDocumentId)}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <p className={message ? 'notice' : 'visually-hidden'} role="status">
        {message}
      </p>
      {progress.length > 0 ? (
        <ul className="plain small" aria-label="Who is still filling">
          {progress.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
