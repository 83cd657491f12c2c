import './signing.css';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { fieldLabels, isNotaryField, signingAssetsSchema, type DocumentField, type FieldType, type Placement } from '#shared/fields.ts';
import type { SignatureKind } from '#shared/signatures.ts';
import { PageChatOpener } from '#web/components/chat-opener.tsx';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { useActionStatus } from '#web/components/use-action-status.ts';
import { jobKeys, useJob, useJobDocuments } from '#web/api/jobs.ts';
import { ApiError } from '#web/lib/api-client.ts';
import { api } from '#web/lib/api.ts';
import { FieldBox, describeField } from './field-box.tsx';
import { FieldPalette } from './field-palette.tsx';
import { PdfPage } from './pdf-page.tsx';
import { PlacementSurface } from './placement-surface.tsx';
import { RemainingFields } from './remaining-fields.tsx';
import { scrollIntoPane } from './scroll-pane.ts';
import { useFieldActions } from './use-field-actions.ts';
import { useFieldFocus } from './use-field-focus.ts';
import { useJobFields } from './use-job-fields.ts';
import { useLiveChannel } from '#web/api/live-channel.ts';
import { usePdfDocument } from './use-pdf-document.ts';
import { usePlacement } from './use-placement.ts';
import { keepThumbnailInSight, measureVisiblePage, useVisiblePage } from './use-visible-page.ts';
import { useRememberedZoom } from './use-zoom.ts';
import { WorkspaceBar } from './workspace-bar.tsx';
import { WorkspaceNotices } from './workspace-notices.tsx';

/** CSS pixels per PDF point at zoom 1 on a wide screen; narrower columns fit the page's width. */
const widestPointScale = 1.3;

/** What the workspace asks its page for when someone must adopt a signature or initials first. */
export interface AdoptRequest {
  kind: SignatureKind;
  onAdopted: () => void;
  onClose: () => void;
}

/**
 * The unified signing workspace: everyone sees the same document, page and fields, live. `outputs`
 * is what the page shows under the controls once the job is sealed (its signed documents).
 * `routeBase` is the path its documents open under: /signing, or /session in the session room.
 * `renderAdoptDialog` draws the signatures feature's dialog (pages compose features): signing
 * never leaves the page, so nobody leaves the call or the recording to make a signature.
 */
export function SigningWorkspace({
  jobId,
  documentId,
  userId,
  outputs,
  routeBase = '/signing',
  renderAdoptDialog,
}: {
  jobId: string;
  documentId: string | null;
  userId: string | null;
  outputs?: ReactNode;
  routeBase?: string;
  renderAdoptDialog: (request: AdoptRequest) => ReactNode;
}) {
  const navigate = useNavigate();
  const job = useJob(jobId);
  const documents = useJobDocuments(jobId);
  const assets = useQuery({ queryKey: jobKeys.signingAssets(jobId), queryFn: () => api.get(`/api/jobs/${jobId}/signing-assets`, signingAssetsSchema) });
  const items = documents.data?.items ?? [];
  const current = items.find((item) => item.id === documentId) ?? items.find((item) => item.tag === 'signing') ?? items[0] ?? null;
  const jobFields = useJobFields(jobId, items);
  const allFields = jobFields.filter(({ field }) => field.documentId === current?.id).map(({ field }) => field);
  const { pdf, error: pdfError, pageWidth } = usePdfDocument(jobId, current?.id ?? null);
  const zoom = useRememberedZoom(userId);
  const [columnWidth, setColumnWidth] = useState(0);
  const [pageState, setPageState] = useState<{ documentId: string | null; page: number }>({ documentId: null, page: 1 });
  const currentPage = pageState.documentId === current?.id ? pageState.page : 1;
  const setCurrentPage = useCallback((page: number) => setPageState({ documentId: current?.id ?? null, page }), [current?.id]);
  const [isFollowing, setIsFollowing] = useState(true);
  const [assignee, setAssignee] = useState('');
  const [isOnEveryPage, setIsOnEveryPage] = useState(false);
  const [isSheetOpen, setIsSheetOpen] = useState(false);
  const pagesRef = useRef<HTMLElement>(null);
  const thumbnailsRef = useRef<HTMLElement>(null);
  const role = assets.data?.role;
  const isLeader = Boolean(assets.data?.canPlaceFields);
  const isSessionLive = job.data?.status === 'in_session';
  const isSealed = job.data?.status === 'completed';
  const canFollow = isSessionLive && !isLeader && role !== 'notary' && Boolean(assets.data?.participantId);
  const pageCount = pdf?.numPages ?? 0;

  const goToPage = useCallback(
    (page: number) => {
      setCurrentPage(page);
      // The pages pane alone scrolls: never the window or the session room around it.
      scrollIntoPane(document.querySelector(`.pages .pdf-page[data-page="${page}"]`), 'start');
    },
    [setCurrentPage],
  );

  const live = useLiveChannel(jobId, (view) => {
    if (!canFollow || !isFollowing) return;
    if (view.documentId !== current?.id) navigate(`${routeBase}/${jobId}/${view.documentId}`, { replace: true });
    window.setTimeout(() => goToPage(view.page), 50);
  });

  const currentId = current?.id ?? null;
  useEffect(() => {
    const column = pagesRef.current;
    if (!column || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => setColumnWidth(entry?.contentRect.width ?? 0));
    observer.observe(column);
    return () => observer.disconnect();
  }, []);

  useVisiblePage(pagesRef, pageCount, setCurrentPage);
  useEffect(() => keepThumbnailInSight(thumbnailsRef.current, currentPage), [currentPage]);

  // Whoever leads announces the page they settle on; participants who follow go there too.
  useEffect(() => {
    if (!isLeader || !current) return;
    const timer = window.setTimeout(() => live.sendView(current.id, currentPage), 300);
    return () => window.clearTimeout(timer);
    // Only a page or document change is announced.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isLeader, current?.id, currentPage, live.state]);

  const focusField = useFieldFocus(currentId, pdf);

  const actions = useFieldActions(jobId, currentId);
  const refreshWhenStale = useCallback(
    async (caught: unknown) => {
      if (caught instanceof ApiError && caught.code === 'stale_version') await actions.refresh();
    },
    [actions],
  );
  const { error, notice, run } = useActionStatus(refreshWhenStale);
  const confirm = useConfirmDialog();
  // Someone without a saved signature (or initials) who clicked a field: the field waits for the adoption.
  const [adopting, setAdopting] = useState<{ kind: SignatureKind; field: DocumentField | null } | null>(null);

  const participants = assets.data?.participants ?? [];
  const fillable = participants.filter((participant) => participant.role !== 'observer');
  const chosenAssignee = assignee || fillable[0]?.id || '';
  const ownerName = (field: { type: FieldType; participantId: string | null }) =>
    isNotaryField(field.type) ? 'the notary' : (participants.find((participant) => participant.id === field.participantId)?.name ?? null);
  const canFill = (field: DocumentField) =>
    isSessionLive && (isNotaryField(field.type) ? role === 'notary' : field.participantId !== null && field.participantId === assets.data?.participantId);
  const assigneeName = participants.find((participant) => participant.id === chosenAssignee)?.name ?? null;
  const describeType = useCallback((type: FieldType) => describeField(type, isNotaryField(type) ? 'the notary' : assigneeName), [assigneeName]);

  const readPage = useCallback(() => {
    const page = pagesRef.current ? measureVisiblePage(pagesRef.current) : 0;
    if (page === 0) return currentPage;
    setCurrentPage(page);
    return page;
  }, [currentPage, setCurrentPage]);
  const placement = usePlacement({
    pageCount,
    readPage,
    placementsOn: (page) => allFields.filter((field) => field.page === page || field.isOnEveryPage),
    describe: describeType,
    onPlace: async (type: FieldType, page: number, box: Placement) => {
      let isPlaced = false;
      await run(async () => {
        await actions.addField.mutateAsync({ type, page, ...box, participantId: isNotaryField(type) ? null : chosenAssignee || null, isOnEveryPage });
        isPlaced = true;
      });
      return isPlaced;
    },
  });

  /** The image a field takes from the person's saved ones: known before asking, so the dialog opens at once. */
  const missingImageOf = (field: DocumentField): SignatureKind | null => {
    if (!assets.data) return null;
    if ((field.type === 'signature' || field.type === 'notary_signature') && !assets.data.signature) return 'signature';
    if (field.type === 'initials' && !assets.data.initials) return 'initials';
    return null;
  };
  const fill = (field: DocumentField, value?: string, options: { isJustAdopted?: boolean } = {}) => {
    // Just adopted: the saved image is on the server, though the assets read here may not show it yet.
    const missing = options.isJustAdopted ? null : missingImageOf(field);
    if (missing) {
      setAdopting({ kind: missing, field });
      return;
    }
    void run(async () => {
      try {
        await actions.fillField.mutateAsync({ field, value });
      } catch (caught) {
        const needs = caught instanceof ApiError ? (caught.data as { detail?: { needs?: string } } | null)?.detail?.needs : undefined;
        if (needs === 'signature' || needs === 'initials') {
          setAdopting({ kind: needs, field });
          return;
        }
        throw caught;
      }
    });
  };
  // Once adopted, the field that was clicked is signed without another click.
  const finishAdoption = () => {
    const field = adopting?.field ?? null;
    setAdopting(null);
    if (field) fill(field, undefined, { isJustAdopted: true });
  };

  const completeDocument = async (name: string) => {
    const answer = await confirm.ask({
      title: `Complete ${name}?`,
      description: 'Its fields are frozen as they are now: nothing on it can be placed, moved, filled or changed afterwards. This cannot be undone.',
      confirmLabel: 'Complete the document',
      cancelLabel: 'Not yet',
    });
    if (answer === null) return;
    await run(() => actions.completeDocument.mutateAsync(), `${name} is complete.`);
  };

  const sealJob = async () => {
    const answer = await confirm.ask({
      title: 'Seal and complete the job?',
      description:
        'Every document is stamped with your seal and the notarial certificate and digitally signed with your certificate. Nothing on them can be changed afterwards, and the job is completed: this cannot be undone.',
      confirmLabel: 'Seal and sign',
      cancelLabel: 'Not yet',
    });
    if (answer === null) return;
    await run(() => actions.completeJob.mutateAsync(), 'The job is sealed and digitally signed.');
  };

  const jumpTo = (field: DocumentField) => {
    setIsSheetOpen(false);
    const isHere = field.documentId === currentId;
    if (!isHere) navigate(`${routeBase}/${jobId}/${field.documentId}`);
    // A field on every page is filled once: the copy on the page in view will do.
    focusField({ id: field.id, documentId: field.documentId, page: field.isOnEveryPage && isHere ? currentPage : field.page });
  };

  const pointScale = Math.min(widestPointScale, columnWidth > 0 ? (columnWidth - 16) / pageWidth : widestPointScale) * zoom.zoom;
  const pageNumbers = Array.from({ length: pageCount }, (_, index) => index + 1);
  const myOpenCount = jobFields.filter(({ field }) => canFill(field) && !field.filledAt).length;
  const signingDocuments = items.filter((item) => item.tag === 'signing');
  const isPlacementOpen = isLeader && current !== null && current.status !== 'completed' && !isSealed;

  return (
    <div className="workspace">
      <WorkspaceBar
        jobId={jobId}
        routeBase={routeBase}
        job={job.data}
        liveState={live.state}
        documents={items}
        currentDocumentId={currentId}
        zoom={zoom}
        canFollow={canFollow}
        isFollowing={isFollowing}
        onFollowChange={setIsFollowing}
      />
      <WorkspaceNotices
        error={error ?? pdfError ?? job.error?.message ?? documents.error?.message ?? null}
        notice={notice}
        info={documents.data && items.length === 0 ? 'This job has no documents yet.' : null}
        announcement={placement.announcement}
        position={
          pageCount > 0
            ? `Page ${currentPage} of ${pageCount}${myOpenCount > 0 ? ` · ${myOpenCount} field${myOpenCount === 1 ? '' : 's'} left for you` : ''}`
            : null
        }
      />
      <div className="workspace-body">
        {/* Each pane scrolls by itself and takes the keyboard focus, so it can be read by keyboard
            even when nothing in it is focusable (frozen fields, a completed document). */}
        <nav ref={thumbnailsRef} className="thumbnails" aria-label="Pages" tabIndex={0}>
          {pdf
            ? pageNumbers.map((page) => (
                <button
                  key={page}
                  type="button"
                  data-thumb={page}
                  className={page === currentPage ? 'thumb active' : 'thumb'}
                  aria-label={`Page ${page}`}
                  aria-current={page === currentPage ? 'page' : undefined}
                  onClick={() => goToPage(page)}
                >
                  <PdfPage pdf={pdf} pageNumber={page} scale={0.18} />
                  <span aria-hidden="true">Page {page}</span>
                </button>
              ))
            : null}
        </nav>
        <main ref={pagesRef} className={`pages${placement.placing ? ' placing' : ''}`} aria-label="Document pages" tabIndex={0}>
          {documents.isPending || (!pdf && !pdfError && current) ? <p role="status">Loading the document…</p> : null}
          {pdf
            ? pageNumbers.map((page) => (
                <PdfPage key={page} pdf={pdf} pageNumber={page} scale={pointScale} label={`${current?.name ?? 'Document'}, page ${page}`}>
                  {(size) => (
                    <>
                      {allFields
                        .filter((field) => field.page === page || field.isOnEveryPage)
                        .map((field) => (
                          <FieldBox
                            key={field.id}
                            field={field}
                            pageSize={size}
                            pointScale={pointScale}
                            ownerName={ownerName(field)}
                            canMove={isPlacementOpen}
                            canFill={canFill(field)}
                            stamp={assets.data?.notaryStamp ?? null}
                            onMove={(target, box) => void run(() => actions.moveField.mutateAsync({ field: target, placement: box }))}
                            onDelete={(target) => void run(() => actions.deleteField.mutateAsync(target))}
                            onFill={fill}
                          />
                        ))}
                      {placement.placing ? (
                        <PlacementSurface
                          page={page}
                          placing={placement.placing}
                          description={describeType(placement.placing.type)}
                          typeLabel={fieldLabels[placement.placing.type]}
                          onPoint={placement.moveTo}
                          onPlace={(target, x, y) => placement.placing && void placement.placeAt(placement.placing.type, target, x, y)}
                          onKeyDown={placement.handleKey}
                        />
                      ) : null}
                    </>
                  )}
                </PdfPage>
              ))
            : null}
        </main>
        <aside className={`palette${isSheetOpen ? ' open' : ''}`} aria-label="Session tools" tabIndex={0}>
          <button type="button" className="button sheet-toggle" aria-expanded={isSheetOpen} onClick={() => setIsSheetOpen((value) => !value)}>
            {isSheetOpen ? 'Hide tools' : `Tools and your fields${myOpenCount > 0 ? ` (${myOpenCount} left)` : ''}`}
          </button>
          <div className="sheet-content stack">
            {isPlacementOpen ? (
              <FieldPalette
                currentPage={currentPage}
                participants={fillable}
                assignee={chosenAssignee}
                onAssigneeChange={setAssignee}
                isOnEveryPage={isOnEveryPage}
                onEveryPageChange={setIsOnEveryPage}
                chosenType={placement.placing?.type ?? null}
                onChoose={(type, isKeyboard) => {
                  setIsSheetOpen(false);
                  placement.arm(type, isKeyboard);
                }}
                onDragStart={placement.cancel}
                onDrop={placement.dropAt}
              />
            ) : null}
            {isSessionLive ? (
              <RemainingFields
                fields={jobFields}
                currentDocumentId={currentId}
                participants={participants}
                isNotary={role === 'notary'}
                areDocumentsComplete={signingDocuments.length > 0 && signingDocuments.every((item) => item.status === 'completed')}
                canFill={canFill}
                onJump={jumpTo}
              />
            ) : null}
            {isSessionLive &&
            !assets.data?.signature &&
            jobFields.some(({ field }) => canFill(field) && !field.filledAt && (field.type === 'signature' || field.type === 'notary_signature')) ? (
              <button
                type="button"
                className="button primary"
                // Adopting from here signs the person's first open signature field too, as the dialog's "Adopt and sign" says.
                onClick={() =>
                  setAdopting({
                    kind: 'signature',
                    field:
                      jobFields
                        .map(({ field }) => field)
                        .find((field) => canFill(field) && !field.filledAt && (field.type === 'signature' || field.type === 'notary_signature')) ?? null,
                  })
                }
              >
                Adopt your signature
              </button>
            ) : null}
            {!isSessionLive && !isSealed ? <p className="notice">Fields are filled once the notary starts the notarization.</p> : null}
            {assets.data?.canCompleteDocuments && current && current.status !== 'completed' && isSessionLive ? (
              <button
                type="button"
                className="button primary block"
                disabled={actions.completeDocument.isPending}
                onClick={() => void completeDocument(current.name)}
              >
                Complete this document
              </button>
            ) : null}
            {role === 'notary' && isSessionLive ? (
              <button type="button" className="button accent block" disabled={actions.completeJob.isPending} onClick={() => void sealJob()}>
                {actions.completeJob.isPending ? 'Sealing and signing…' : 'Seal and complete the job'}
              </button>
            ) : null}
            {isSealed && role === 'notary' ? (
              <section className="alert success stack" aria-label="What comes next">
                <p className="strong">The job is sealed and digitally signed.</p>
                {routeBase === '/session' ? (
                  <p>Now end the session for everyone with End the session under the call: the recording stops and everyone is told the session has ended.</p>
                ) : null}
                <p>Then finish the journal entry drafted from this act, on the job page.</p>
                <Link to={`/jobs/detail?jobId=${encodeURIComponent(jobId)}`}>Finish the journal entry on the job page</Link>
              </section>
            ) : null}
            {isSealed ? outputs : null}
            {/* A refused seal names who was out of the recorded call, when, and the rule: more than the notice strip's two lines show, so the whole sentence stays here (the strip's alert is what is announced). */}
            {role === 'notary' && isSessionLive && actions.completeJob.error instanceof ApiError ? (
              <p className="alert error">{actions.completeJob.error.message}</p>
            ) : null}
            <div className="tools-footer">
              <PageChatOpener />
            </div>
          </div>
        </aside>
      </div>
      {confirm.dialog}
      {adopting ? renderAdoptDialog({ kind: adopting.kind, onAdopted: finishAdoption, onClose: () => setAdopting(null) }) : null}
    </div>
  );
}
