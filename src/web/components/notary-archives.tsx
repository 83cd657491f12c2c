import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { z } from 'zod';
import { formatDate, formatDateTime } from '#shared/dates.ts';
import { notaryArchiveListSchema, notaryArchiveSchema, type NotaryArchive, type NotaryCommission } from '#shared/journal-archives.ts';
import { api } from '#web/lib/api.ts';
import { formatSize } from '#web/lib/format-size.ts';
import { useConfirmDialog } from './confirm-dialog.tsx';
import { FormAlert } from './field.tsx';

/** Query keys of a notary's archives (decision 059): the notary's own list, or one an administrator reads by id. */
export const notaryArchiveKeys = {
  all: ['notary-archives'] as const,
  list: (notaryId: string | null) => [...notaryArchiveKeys.all, notaryId ?? 'mine'] as const,
};

const commissionLabel = (commission: Pick<NotaryCommission, 'state' | 'number'>) => `${commission.number} (${commission.state})`;
const commissionKey = (commission: Pick<NotaryCommission, 'state' | 'number'>) => JSON.stringify([commission.state, commission.number]);

function describeStatus(archive: NotaryArchive): string {
  switch (archive.status) {
    case 'queued':
      return 'Waiting to be built';
    case 'building':
      return 'Being built';
    case 'ready':
      return 'Ready to download';
    case 'failed':
      return 'Could not be built';
    case 'expired':
      return 'Expired: its file was deleted';
  }
}

function BuildProgress({ archive }: { archive: NotaryArchive }) {
  const total = archive.filesTotal;
  const labelId = useId();
  if (total === null) return <p role="status">Waiting for its turn to be built…</p>;
  return (
    <div className="stack">
      <p id={labelId} role="status">
        {archive.filesDone} of {total} files
        {archive.bytesTotal ? `, ${formatSize(archive.bytesDone)} of ${formatSize(archive.bytesTotal)}` : ''}
      </p>
      <progress aria-labelledby={labelId} max={total} value={archive.filesDone} />
    </div>
  );
}

/**
 * "Export my records": the notary's own archive of one commission (every finalized journal entry,
 * notarized document, session recording, audit trail and certificate, with a signed manifest),
 * built on the server, then downloaded. With `notaryId`, an administrator exports it on the notary's behalf.
 */
export function NotaryArchives({ notaryId = null, notaryName = null }: { notaryId?: string | null; notaryName?: string | null }) {
  const queryClient = useQueryClient();
  const headingId = useId();
  const selectId = useId();
  const { dialog, ask } = useConfirmDialog();
  const query = notaryId ? `?notaryId=${encodeURIComponent(notaryId)}` : '';
  const list = useQuery({
    queryKey: notaryArchiveKeys.list(notaryId),
    queryFn: () => api.get(`/api/notary-log/archives${query}`, notaryArchiveListSchema),
    // While one is being built, its progress is asked for every two seconds.
    refetchInterval: (current) => (current.state.data?.items.some((item) => item.status === 'queued' || item.status === 'building') ? 2000 : false),
  });
  const commissions = list.data?.commissions ?? [];
  const [chosen, setChosen] = useState('');
  const commission =
    commissions.find((candidate) => commissionKey(candidate) === chosen) ?? commissions.find((candidate) => candidate.isCurrent) ?? commissions[0];
  const refresh = () => queryClient.invalidateQueries({ queryKey: notaryArchiveKeys.all });
  const request = useMutation({
    mutationFn: () =>
      api.post(
        '/api/notary-log/archives',
        { ...(notaryId ? { notaryId } : {}), ...(commission ? { commissionState: commission.state, commissionNumber: commission.number } : {}) },
        notaryArchiveSchema,
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (archiveId: string) => api.delete(`/api/notary-log/archives/${archiveId}`, z.object({ deleted: z.literal(true) })),
    onSuccess: refresh,
  });
  const items = list.data?.items ?? [];
  const active = items.find((item) => item.status === 'queued' || item.status === 'building');
  const whose = notaryName ? `${notaryName}’s` : 'your';

  return (
    <section className="card stack" aria-labelledby={headingId}>
      {dialog}
      <h3 id={headingId}>{notaryId ? 'Export this notary’s records' : 'Export my records'}</h3>
      <p>
        One file with {whose} records of a commission: every finalized journal entry with its addenda, each notarized document, each session recording, the
        audit trails and the signing certificates, with a manifest of SHA-256 hashes signed by the platform. Keep it when a storage arrangement ends (Texas: 1
        TAC 87.51(b)); it can be checked offline.
      </p>
      <FormAlert message={list.error?.message ?? null} />
      {list.isPending ? <p role="status">Loading the archives…</p> : null}
      {list.data && commissions.length === 0 ? <p className="empty">There is no commission on file, so there are no records to export yet.</p> : null}
      {commissions.length > 0 ? (
        <form
          className="row wrap align-end"
          onSubmit={(event) => {
            event.preventDefault();
            request.mutate();
          }}
        >
          {commissions.length > 1 ? (
            <div className="field">
              <label htmlFor={selectId}>Commission</label>
              <select id={selectId} value={commission ? commissionKey(commission) : ''} onChange={(event) => setChosen(event.target.value)}>
                {commissions.map((candidate) => (
                  <option key={commissionKey(candidate)} value={commissionKey(candidate)}>
                    {commissionLabel(candidate)}
                    {candidate.isCurrent ? ', current' : ''}: {candidate.entryCount} {candidate.entryCount === 1 ? 'entry' : 'entries'}
                  </option>
                ))}
              </select>
            </div>
          ) : commission ? (
            <p>
              Commission {commissionLabel(commission)}: {commission.entryCount} finalized {commission.entryCount === 1 ? 'entry' : 'entries'}.
            </p>
          ) : null}
          <button type="submit" className="button primary" disabled={request.isPending || Boolean(active)}>
            {request.isPending ? 'Asking…' : 'Build the archive'}
          </button>
        </form>
      ) : null}
      {active ? <p className="muted">An archive is being built; you can ask for another once it is done.</p> : null}
      <FormAlert message={request.error?.message ?? null} />
      <FormAlert message={remove.error?.message ?? null} />

      <h4>Archives</h4>
      {list.data && items.length === 0 ? <p className="empty">No archive yet. Build one above; it is kept for seven days to download.</p> : null}
      <ul className="plain stack">
        {items.map((archive) => (
          <li key={archive.id} className="stack">
            <p>
              <strong>Commission {commissionLabel({ state: archive.commissionState, number: archive.commissionNumber })}</strong>, asked for{' '}
              {formatDateTime(archive.createdAt)}. {describeStatus(archive)}.
            </p>
            {archive.status === 'queued' || archive.status === 'building' ? <BuildProgress archive={archive} /> : null}
            {archive.status === 'failed' && archive.failureReason ? <p role="alert">{archive.failureReason}</p> : null}
            {archive.status === 'ready' && archive.downloadUrl ? (
              <>
                <p className="row wrap">
                  <a className="button primary" href={archive.downloadUrl} download>
                    Download ({archive.sizeBytes === null ? '' : formatSize(archive.sizeBytes)})
                  </a>
                  {archive.expiresAt ? <span className="muted">Deleted from the server on {formatDate(archive.expiresAt)}.</span> : null}
                </p>
                <p className="muted">
                  SHA-256 of the file, to compare with your copy: <code style={{ overflowWrap: 'anywhere' }}>{archive.sha256}</code>
                </p>
                <p className="muted">
                  Anyone can check the downloaded file, offline and without uploading it, on <a href="/verify-archive">Check a notary archive</a>.
                </p>
              </>
            ) : null}
            {archive.status !== 'building' ? (
              <p>
                <button
                  type="button"
                  className="button link"
                  disabled={remove.isPending}
                  onClick={async () => {
                    const answer = await ask({
                      title: 'Delete this archive?',
                      description: 'Its file is deleted from the server. The records themselves stay; you can build a new archive at any time.',
                      confirmLabel: 'Delete the archive',
                      cancelLabel: 'Keep it',
                      confirmTone: 'danger',
                    });
                    if (answer !== null) remove.mutate(archive.id);
                  }}
                >
                  Delete<span className="visually-hidden"> the archive asked for {formatDateTime(archive.createdAt)}</span>
                </button>
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
