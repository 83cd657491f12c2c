import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { documentListSchema, documentSchema } from '#shared/documents.ts';
import { defaultFieldSizes, fieldLabels, findFreeSpot, fieldListSchema, fieldSchema, fieldTypes, isNotaryField, notarizedListSchema, signingAssetsSchema, type DocumentField, type FieldType } from '#shared/fields.ts';
import { jobStatusLabels } from '#shared/jobs.ts';
import { FormAlert } from '#web/components/field.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { useJob } from '#web/features/jobs/job-hooks.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { FieldBox } from './field-box.tsx';
import { loadPdf, type PDFDocumentProxy } from './pdf.ts';
import { PdfPage } from './pdf-page.tsx';
import { useLiveChannel } from './use-live-channel.ts';

const zoomSteps = [0.6, 0.8, 1, 1.25, 1.5, 2];

/** The unified signing workspace: everyone sees the same document, page and fields, live. */
export function SigningWorkspace({ jobId, documentId }: { jobId: string; documentId: string | null }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const job = useJob(jobId);
  const documents = useQuery({ queryKey: ['jobs', jobId, 'documents'], queryFn: () => api.get(`/api/jobs/${jobId}/documents`, documentListSchema) });
  const assets = useQuery({ queryKey: ['jobs', jobId, 'signing-assets'], queryFn: () => api.get(`/api/jobs/${jobId}/signing-assets`, signingAssetsSchema) });
  const notarized = useQuery({ queryKey: ['jobs', jobId, 'notarized'], queryFn: () => api.get(`/api/jobs/${jobId}/notarized`, notarizedListSchema) });
  const items = documents.data?.items ?? [];
  const current = items.find((item) => item.id === documentId) ?? items.find((item) => item.tag === 'signing') ?? items[0] ?? null;
  const fields = useQuery({
    queryKey: ['jobs', jobId, 'fields', current?.id],
    queryFn: () => api.get(`/api/jobs/${jobId}/documents/${current?.id}/fields`, fieldListSchema),
    enabled: Boolean(current),
  });
  const [loaded, setLoaded] = useState<{ documentId: string; pdf: PDFDocumentProxy | null; error: string | null } | null>(null);
  const pdf = loaded && loaded.documentId === current?.id ? loaded.pdf : null;
  const pdfError = loaded && loaded.documentId === current?.id ? loaded.error : null;
  const [zoomIndex, setZoomIndex] = useState(2);
  const [pageState, setPageState] = useState<{ documentId: string | null; page: number }>({ documentId: null, page: 1 });
  const currentPage = pageState.documentId === current?.id ? pageState.page : 1;
  const setCurrentPage = useCallback((page: number) => setPageState({ documentId: current?.id ?? null, page }), [current?.id]);
  const [isFollowing, setIsFollowing] = useState(true);
  const [assignee, setAssignee] = useState('');
  const role = assets.data?.role;
  const isLeader = Boolean(assets.data?.canPlaceFields);

  const goToPage = useCallback(
    (page: number) => {
      setCurrentPage(page);
      document.querySelector(`.pages .pdf-page[data-page="${page}"]`)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    },
    [setCurrentPage],
  );

  const live = useLiveChannel(jobId, (view) => {
    if (isLeader || !isFollowing) return;
    if (view.documentId !== current?.id) navigate(`/signing/${jobId}/${view.documentId}`, { replace: true });
    window.setTimeout(() => goToPage(view.page), 50);
  });

  const currentId = current?.id ?? null;
  useEffect(() => {
    if (!currentId) return;
    const controller = new AbortController();
    const documentKey = currentId;
    loadPdf(`/api/jobs/${jobId}/documents/${documentKey}/file`, controller.signal)
      .then((opened) => setLoaded({ documentId: documentKey, pdf: opened, error: null }))
      .catch((caught: unknown) => {
        if (!controller.signal.aborted) setLoaded({ documentId: documentKey, pdf: null, error: caught instanceof Error ? caught.message : 'The document could not be shown.' });
      });
    return () => controller.abort();
  }, [jobId, currentId]);

  useEffect(() => {
    if (isLeader && current) live.sendView(current.id, currentPage);
    // Only a page or document change is announced.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isLeader, current?.id, currentPage, live.state]);

  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: ['jobs', jobId] }), [queryClient, jobId]);
  const refreshWhenStale = useCallback(
    async (caught: unknown) => {
      if (caught instanceof ApiError && (caught.data as { error?: string } | null)?.error === 'stale_version') await refresh();
    },
    [refresh],
  );
  const { error, notice, run } = useActionStatus(refreshWhenStale);

  const addField = useMutation({
    mutationFn: (type: FieldType) => {
      const spot = findFreeSpot(
        allFields.filter((field) => field.page === currentPage),
        defaultFieldSizes[type],
      );
      return api.post(
        `/api/jobs/${jobId}/documents/${current?.id}/fields`,
        { type, page: currentPage, ...spot, participantId: isNotaryField(type) ? null : chosenAssignee || null },
        fieldSchema,
      );
    },
    onSettled: refresh,
  });
  const moveField = useMutation({
    mutationFn: ({ field, placement }: { field: DocumentField; placement: { x: number; y: number; width: number; height: number } }) =>
      api.patch(`/api/jobs/${jobId}/documents/${field.documentId}/fields/${field.id}`, { ...placement, version: field.version }, fieldSchema),
    onSettled: refresh,
  });
  const deleteField = useMutation({
    mutationFn: (field: DocumentField) => api.delete(`/api/jobs/${jobId}/documents/${field.documentId}/fields/${field.id}`),
    onSettled: refresh,
  });
  const fillField = useMutation({
    mutationFn: ({ field, value }: { field: DocumentField; value?: string }) =>
      api.post(`/api/jobs/${jobId}/documents/${field.documentId}/fields/${field.id}/fill`, { value, version: field.version }, fieldSchema),
    onSettled: refresh,
  });
  const completeDocument = useMutation({
    mutationFn: () => api.post(`/api/jobs/${jobId}/documents/${current?.id}/complete`, undefined, documentSchema),
    onSettled: refresh,
  });
  const completeJob = useMutation({
    mutationFn: async () => {
      try {
        return await api.post(`/api/jobs/${jobId}/complete-job`, undefined, notarizedListSchema);
      } catch (caught) {
        if (caught instanceof ApiError && caught.status === 404) return api.post(`/api/jobs/${jobId}/merge-documents`, undefined, notarizedListSchema);
        throw caught;
      }
    },
    onSettled: refresh,
  });

  const participants = assets.data?.participants ?? [];
  const fillable = participants.filter((participant) => participant.role !== 'observer');
  const chosenAssignee = assignee || fillable[0]?.id || '';

  const ownerName = (field: DocumentField) => (isNotaryField(field.type) ? 'the notary' : (participants.find((participant) => participant.id === field.participantId)?.name ?? null));
  const canFill = (field: DocumentField) =>
    job.data?.status === 'in_session' && (isNotaryField(field.type) ? role === 'notary' : field.participantId !== null && field.participantId === assets.data?.participantId);

  const fill = (field: DocumentField) => {
    let value: string | undefined;
    if (field.type === 'text') {
      value = window.prompt(`Text for this field (${fieldLabels[field.type]})`) ?? undefined;
      if (!value) return;
    }
    void run(async () => {
      try {
        await fillField.mutateAsync({ field, value });
      } catch (caught) {
        const needs = caught instanceof ApiError ? (caught.data as { detail?: { needs?: string } } | null)?.detail?.needs : undefined;
        if (needs) {
          const back = `/signing/${jobId}/${field.documentId}`;
          navigate(`/${needs}?next=${encodeURIComponent(back)}`);
          return;
        }
        throw caught;
      }
    });
  };

  const allFields = fields.data?.items ?? [];
  const myOpenFields = allFields.filter((field) => canFill(field) && !field.filledAt);
  const scale = zoomSteps[zoomIndex] ?? 1;
  const pageNumbers = pdf ? Array.from({ length: pdf.numPages }, (_, index) => index + 1) : [];
  const isSealed = job.data?.status === 'completed';

  return (
    <div className="workspace">
      <header className="workspace-bar">
        <Link to={`/jobs/detail?jobId=${jobId}`} className="button link">
          ← Job
        </Link>
        <h1>{job.data?.title ?? 'Signing session'}</h1>
        {job.data ? <span className={`badge status-${job.data.status}`}>{jobStatusLabels[job.data.status]}</span> : null}
        <span className={`live-dot ${live.state}`} role="status">
          {live.state === 'live' ? 'Live' : live.state === 'connecting' ? 'Connecting…' : 'Offline: reconnecting'}
        </span>
        <div className="field inline">
          <label htmlFor="document-switcher">Document</label>
          <select id="document-switcher" value={current?.id ?? ''} onChange={(event) => navigate(`/signing/${jobId}/${event.target.value}`)}>
            {items.map((item) => (
              <option key={item.id} value={item.id}>
                {item.name}
                {item.status === 'completed' ? ' (complete)' : ''}
              </option>
            ))}
          </select>
        </div>
        <div className="row" role="group" aria-label="Zoom">
          <button type="button" className="button icon" aria-label="Zoom out" disabled={zoomIndex === 0} onClick={() => setZoomIndex((value) => value - 1)}>
            −
          </button>
          <span>{Math.round(scale * 100)}%</span>
          <button type="button" className="button icon" aria-label="Zoom in" disabled={zoomIndex === zoomSteps.length - 1} onClick={() => setZoomIndex((value) => value + 1)}>
            +
          </button>
        </div>
        {!isLeader ? (
          <label className="checkbox">
            <input type="checkbox" checked={isFollowing} onChange={(event) => setIsFollowing(event.target.checked)} />
            Follow the notary
          </label>
        ) : null}
      </header>
      <FormAlert message={error ?? pdfError ?? job.error?.message ?? documents.error?.message ?? null} />
      <FormAlert message={notice} tone="success" />
      {documents.data && items.length === 0 ? <p className="empty">This job has no documents yet.</p> : null}
      <div className="workspace-body">
        <nav className="thumbnails" aria-label="Pages">
          {pdf
            ? pageNumbers.map((page) => (
                <button key={page} type="button" className={page === currentPage ? 'thumb active' : 'thumb'} aria-current={page === currentPage ? 'page' : undefined} onClick={() => goToPage(page)}>
                  <PdfPage pdf={pdf} pageNumber={page} scale={0.18} label={`Page ${page} thumbnail`} />
                  <span>Page {page}</span>
                </button>
              ))
            : null}
        </nav>
        <main className="pages" aria-label="Document pages">
          {!pdf && !pdfError && current ? <p role="status">Loading the document…</p> : null}
          {pdf
            ? pageNumbers.map((page) => (
                <div key={page} onPointerEnter={() => isLeader && setCurrentPage(page)}>
                  <PdfPage pdf={pdf} pageNumber={page} scale={scale * 1.3} label={`${current?.name ?? 'Document'}, page ${page}`}>
                    {(size) =>
                      allFields
                        .filter((field) => field.page === page)
                        .map((field) => (
                          <FieldBox
                            key={field.id}
                            field={field}
                            pageSize={size}
                            ownerName={ownerName(field)}
                            canMove={isLeader && current?.status !== 'completed'}
                            canFill={canFill(field)}
                            onMove={(target, placement) => void run(() => moveField.mutateAsync({ field: target, placement }))}
                            onDelete={(target) => void run(() => deleteField.mutateAsync(target))}
                            onFill={fill}
                          />
                        ))
                    }
                  </PdfPage>
                </div>
              ))
            : null}
        </main>
        <aside className="palette" aria-label="Session tools">
          {isLeader && current && current.status !== 'completed' && !isSealed ? (
            <section className="stack" aria-labelledby="palette-title">
              <h2 id="palette-title">Place fields on page {currentPage}</h2>
              <div className="field">
                <label htmlFor="field-assignee">For</label>
                <select id="field-assignee" value={chosenAssignee} onChange={(event) => setAssignee(event.target.value)}>
                  {fillable.map((participant) => (
                    <option key={participant.id} value={participant.id}>
                      {participant.name} ({participant.role})
                    </option>
                  ))}
                </select>
              </div>
              <div className="palette-grid">
                {fieldTypes.map((type) => (
                  <button
                    key={type}
                    type="button"
                    className="button"
                    disabled={addField.isPending || (!isNotaryField(type) && !chosenAssignee)}
                    onClick={() => void run(() => addField.mutateAsync(type))}
                  >
                    {fieldLabels[type]}
                  </button>
                ))}
              </div>
              <p className="muted">Drag a field to move it, its corner to resize; arrow keys nudge the focused field, Delete removes it.</p>
            </section>
          ) : null}
          {myOpenFields.length > 0 ? (
            <section className="stack" aria-labelledby="todo-title">
              <h2 id="todo-title">Your fields</h2>
              <ul className="plain">
                {myOpenFields.map((field) => (
                  <li key={field.id}>
                    <button type="button" className="button link" onClick={() => goToPage(field.page)}>
                      {fieldLabels[field.type]} on page {field.page}
                    </button>
                  </li>
                ))}
              </ul>
              {!assets.data?.signature && myOpenFields.some((field) => field.type === 'signature' || field.type === 'notary_signature') ? (
                <Link className="button primary" to={`/signature?next=${encodeURIComponent(`/signing/${jobId}/${current?.id ?? ''}`)}`}>
                  Create your signature
                </Link>
              ) : null}
            </section>
          ) : null}
          {job.data?.status !== 'in_session' && !isSealed ? <p className="notice">Fields are filled once the notary starts the session.</p> : null}
          {assets.data?.canCompleteDocuments && current && current.status !== 'completed' && job.data?.status === 'in_session' ? (
            <button type="button" className="button primary block" onClick={() => void run(() => completeDocument.mutateAsync(), `${current.name} is complete.`)}>
              Complete this document
            </button>
          ) : null}
          {role === 'notary' && job.data?.status === 'in_session' ? (
            <button
              type="button"
              className="button accent block"
              disabled={completeJob.isPending}
              onClick={() => void run(() => completeJob.mutateAsync(), 'The job is notarized and digitally signed.')}
            >
              {completeJob.isPending ? 'Sealing and signing…' : 'Seal and complete the job'}
            </button>
          ) : null}
          {(notarized.data?.items.length ?? 0) > 0 ? (
            <section className="stack" aria-labelledby="notarized-title">
              <h2 id="notarized-title">Notarized documents</h2>
              <ul className="plain">
                {notarized.data?.items.map((item) => (
                  <li key={item.id}>
                    <a href={item.downloadUrl} download>
                      {item.name}
                    </a>
                    <br />
                    <span className="muted small">SHA-256 {item.sha256.slice(0, 16)}…</span>
                  </li>
                ))}
              </ul>
              <Link to="/verify">Verify a notarized document</Link>
            </section>
          ) : null}
        </aside>
      </div>
    </div>
  );
}
