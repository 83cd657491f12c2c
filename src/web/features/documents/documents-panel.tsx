import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import {
  documentListSchema,
  documentSchema,
  documentTagLabels,
  documentTags,
  pickDefaultDocumentTag,
  type DocumentTag,
  type JobDocument,
} from '#shared/documents.ts';
import { publicConfigQueryOptions } from '#web/api/system.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { DropZone } from '#web/components/drop-zone.tsx';
import type { FileRules } from '#web/components/drop-zone-rules.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useJobDocuments, useJobMutation } from '#web/api/jobs.ts';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { api } from '#web/lib/api.ts';
import { formatPageCount, formatSize } from '#web/lib/format-size.ts';
import { openSafeViewer, popupBlockedMessage } from './open-safe-viewer.ts';

const pdfRules: FileRules = { mimeTypes: ['application/pdf'], extensions: ['.pdf'], kind: 'a PDF', kindPlural: 'PDFs', maxBytes: null, isMultiple: true };

interface DocumentsPanelProps {
  jobId: string;
  canEdit: boolean;
  isSealed?: boolean;
  /** The job type the job was made from, and the document tags it lists now: the upload starts on the first (decision 043). */
  jobTypeName?: string | null;
  jobTypeDocumentTags?: readonly DocumentTag[];
}

/** What the tag choice says: what the job type usually carries, and what the tag changes. */
function describeUploadTag(jobTypeName: string | null, jobTypeDocumentTags: readonly DocumentTag[]): string {
  const carried = jobTypeDocumentTags.map((tag) => documentTagLabels[tag].toLowerCase()).join(', ');
  const fromType = jobTypeName && carried ? `Jobs of the type “${jobTypeName}” usually carry: ${carried}. ` : '';
  return `${fromType}Only documents to be signed are signed and sealed; the others stay with the job.`;
}

/**
 * Upload (with a progress bar and the tag the PDFs get), order, rename, delete and open a job's
 * PDFs. Once the job is sealed these are the unsigned originals, and say so: the signed outputs are
 * listed separately.
 */
export function DocumentsPanel({ jobId, canEdit, isSealed = false, jobTypeName = null, jobTypeDocumentTags = [] }: DocumentsPanelProps) {
  const documents = useJobDocuments(jobId);
  const tagId = useId();
  // The upload's tag follows the job type's first tag until someone picks one.
  const [chosenTag, setChosenTag] = useState<DocumentTag | null>(null);
  const uploadTag = chosenTag ?? pickDefaultDocumentTag(jobTypeDocumentTags);
  const config = useQuery(publicConfigQueryOptions());
  const [progress, setProgress] = useState<number | null>(null);
  const { error, run, setError } = useActionStatus();
  const { dialog, ask } = useConfirmDialog();
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);

  const upload = useJobMutation(async ({ files, tag }: { files: File[]; tag: DocumentTag }) => {
    const form = new FormData();
    form.append('tag', tag);
    for (const file of files) form.append('files', file, file.name);
    setProgress(0);
    try {
      return await api.upload(`/api/jobs/${jobId}/documents/batch`, form, setProgress, documentListSchema);
    } finally {
      setProgress(null);
    }
  });
  const reorder = useJobMutation((order: string[]) => api.patch(`/api/jobs/${jobId}/documents/reorder`, { order }, documentListSchema));
  const rename = useJobMutation(({ document, name }: { document: JobDocument; name: string }) =>
    api.request('PATCH', `/api/jobs/${jobId}/documents/${document.id}`, {
      body: { name, clientSnapshotVersion: document.version },
      headers: { 'if-match': `"${document.version}"` },
      schema: documentSchema,
    }),
  );
  const remove = useJobMutation((document: JobDocument) =>
    api.request('DELETE', `/api/jobs/${jobId}/documents/${document.id}`, { headers: { 'if-match': `"${document.version}"` } }),
  );

  const items = documents.data?.items ?? [];
  /** Sanitised copies in a sandboxed tab (decision 053): the whole job in order, or one document. */
  const openInSafeViewer = (documentId: string | null) =>
    void run(async () => {
      const linkPath = documentId ? `/api/jobs/${jobId}/documents/${documentId}/open-in-sandbox` : `/api/jobs/${jobId}/open-in-sandbox`;
      if ((await openSafeViewer(linkPath)) === 'blocked') setError(popupBlockedMessage);
    });
  const move = (index: number, offset: number) => {
    const order = items.map((item) => item.id);
    const [moved] = order.splice(index, 1);
    if (!moved) return;
    order.splice(index + offset, 0, moved);
    void run(() => reorder.mutateAsync(order));
  };

  return (
    <section className="card stack" aria-labelledby="documents-title">
      <h2 id="documents-title">{isSealed ? 'Original documents (unsigned)' : 'Documents'}</h2>
      {dialog}
      <FormAlert message={error ?? documents.error?.message ?? null} />
      {documents.isPending ? <p role="status">Loading documents…</p> : null}
      {documents.data && items.length === 0 ? <p className="empty">No documents yet.{canEdit ? ' Upload the PDFs to be signed.' : ''}</p> : null}
      {items.length > 0 ? (
        <div className="stack safe-viewer-open">
          <div>
            <button type="button" className="button" onClick={() => openInSafeViewer(null)}>
              Open in safe viewer
            </button>
          </div>
          <p className="muted small">All documents in order, in a new tab, with scripts, forms, links and attachments removed.</p>
        </div>
      ) : null}
      {items.length > 0 ? (
        <ol className="document-list" aria-label="Documents in signing order">
          {items.map((document, index) => (
            <li key={document.id} className="document-row">
              {renaming?.id === document.id ? (
                <form
                  className="row"
                  onSubmit={(event) => {
                    event.preventDefault();
                    void run(async () => {
                      await rename.mutateAsync({ document, name: renaming.name });
                      setRenaming(null);
                    });
                  }}
                >
                  <label className="visually-hidden" htmlFor={`rename-${document.id}`}>
                    New name for {document.name}
                  </label>
                  <input
                    id={`rename-${document.id}`}
                    value={renaming.name}
                    onChange={(event) => setRenaming({ id: document.id, name: event.target.value })}
                    autoFocus
                  />
                  <button type="submit" className="button primary">
                    Save
                  </button>
                  <button type="button" className="button" onClick={() => setRenaming(null)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <div className="grow">
                  {isSealed ? <span className="badge">Original (unsigned)</span> : null}{' '}
                  <a
                    href={`/api/jobs/${jobId}/documents/${document.id}/file`}
                    target="_blank"
                    rel="noreferrer"
                    aria-label={isSealed ? `Original (unsigned): ${document.name}` : undefined}
                  >
                    {document.name}
                  </a>
                  <span className="muted">
                    {' '}
                    · {formatPageCount(document.pageCount)} · {formatSize(document.sizeBytes)} · {documentTagLabels[document.tag]}
                    {document.status === 'completed' ? ' · completed' : ''}
                  </span>
                </div>
              )}
              {renaming?.id !== document.id ? (
                <button type="button" className="button" aria-label={`Open ${document.name} in safe viewer`} onClick={() => openInSafeViewer(document.id)}>
                  Safe viewer
                </button>
              ) : null}
              {canEdit && renaming?.id !== document.id ? (
                <div className="row">
                  <button type="button" className="button icon" aria-label={`Move ${document.name} up`} disabled={index === 0} onClick={() => move(index, -1)}>
                    ↑
                  </button>
                  <button
                    type="button"
                    className="button icon"
                    aria-label={`Move ${document.name} down`}
                    disabled={index === items.length - 1}
                    onClick={() => move(index, 1)}
                  >
                    ↓
                  </button>
                  <button type="button" className="button" onClick={() => setRenaming({ id: document.id, name: document.name })}>
                    Rename
                  </button>
                  <button
                    type="button"
                    className="button"
                    onClick={async () => {
                      if ((await ask({ title: `Delete ${document.name}?`, confirmLabel: 'Delete' })) !== null) void run(() => remove.mutateAsync(document));
                    }}
                  >
                    Delete
                  </button>
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      {canEdit ? (
        <div className="field">
          <label htmlFor={tagId}>Tag of the PDFs you add</label>
          <select
            id={tagId}
            value={uploadTag}
            aria-describedby={`${tagId}-hint`}
            disabled={progress !== null}
            onChange={(event) => setChosenTag(event.target.value as DocumentTag)}
          >
            {documentTags.map((tag) => (
              <option key={tag} value={tag}>
                {documentTagLabels[tag]}
              </option>
            ))}
          </select>
          <p className="field-hint" id={`${tagId}-hint`}>
            {describeUploadTag(jobTypeName, jobTypeDocumentTags)}
          </p>
        </div>
      ) : null}
      {canEdit ? (
        <DropZone
          label="Add PDFs"
          buttonLabel="Choose PDFs"
          rules={{ ...pdfRules, maxBytes: config.data?.documentMaxBytes ?? null }}
          disabled={progress !== null}
          hint="They are added in the order chosen; reorder them below."
          onFiles={(files) => void run(() => upload.mutateAsync({ files, tag: uploadTag }))}
        >
          {progress !== null ? (
            <div className="stack">
              <progress max={1} value={progress} aria-label="Upload progress" />
              <span role="status">{progress < 1 ? `Uploading… ${Math.round(progress * 100)}%` : 'Checking the PDFs…'}</span>
            </div>
          ) : null}
        </DropZone>
      ) : null}
    </section>
  );
}
