import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';
import { notarizationTypes } from '#shared/jobs.ts';
import { journalEntryListSchema, journalEntrySchema, journalPdfMaxEntries, type JournalEntry } from '#shared/journal.ts';
import { describeIdDocument, formatJournalTime } from '#shared/journal-words.ts';
import { Field, FormAlert } from '#web/components/field.tsx';
import { NotaryArchives } from '#web/components/notary-archives.tsx';
import { api } from '#web/lib/api.ts';
import { journalKeys } from './api/journal-queries.ts';

/** The viewer's zone: the journal is the notary's, read in their own time. */
const viewerTimeZone = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
})();
const when = (iso: string | null) => formatJournalTime(iso, viewerTimeZone);

/** A finalized entry: what it says, its addenda, and a form to add one. */
function EntryDetail({ entry }: { entry: JournalEntry }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const add = useMutation({
    mutationFn: () => api.post(`/api/notary-log/entries/${entry.id}/addenda`, { text }, journalEntrySchema),
    onSuccess: () => {
      setText('');
      void queryClient.invalidateQueries({ queryKey: journalKeys.all });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.delete(`/api/notary-log/entries/${entry.id}`, z.object({ deleted: z.literal(true), addenda: z.number() })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: journalKeys.all }),
  });
  const { content } = entry;
  const evidence = content.identityEvidence;
  // The time the entry was opened: its retention is judged against it (the server decides in the end).
  const [openedAt] = useState(() => Date.now());
  const isPastRetention = entry.keptUntil !== null && Date.parse(entry.keptUntil) <= openedAt;
  return (
    <details className="card stack">
      <summary>
        {content.signerName}: {content.documentName}, {content.actType}, {when(entry.finalizedAt)}
        {entry.isTest ? ' (test entry)' : ''}
      </summary>
      <dl className="review-facts">
        <dt>Notarized</dt>
        <dd>{content.notarizedAt ? when(content.notarizedAt) : '—'}</dd>
        <dt>Document</dt>
        <dd>{[content.documentName, content.documentType, content.documentDate ? `dated ${content.documentDate}` : null].filter(Boolean).join(', ')}</dd>
        <dt>Signer</dt>
        <dd>
          {content.signerName}, {content.signerEmail}, {content.signerAddress}
        </dd>
        <dt>Identity</dt>
        <dd>
          {content.isIdentityProven ? '' : 'Not proven. '}
          {content.identityMethod}
        </dd>
        {content.credibleWitnesses.length > 0 ? (
          <>
            <dt>Credible witnesses</dt>
            <dd>{content.credibleWitnesses.map((witness) => `${witness.name} (${witness.address ?? 'no address'})`).join('; ')}</dd>
          </>
        ) : null}
        {content.witnesses.length > 0 ? (
          <>
            <dt>Witnesses</dt>
            <dd>{content.witnesses.map((witness) => `${witness.name}: ${witness.identityMethod}`).join('; ')}</dd>
          </>
        ) : null}
        {evidence ? (
          <>
            <dt>ID presented</dt>
            <dd>
              {[
                describeIdDocument(evidence.documentType),
                evidence.issuer,
                evidence.expiryDate ? `expires ${evidence.expiryDate}` : null,
                evidence.documentNumber ?? evidence.documentNumberNote,
              ]
                .filter(Boolean)
                .join(', ')}
            </dd>
          </>
        ) : null}
        <dt>Recording</dt>
        <dd>{content.recordingReference ?? 'None recorded'}</dd>
        <dt>Fee</dt>
        <dd>{content.feeCents === null ? 'None recorded' : `$${(content.feeCents / 100).toFixed(2)}`}</dd>
        <dt>Notes</dt>
        <dd>{content.notes ?? '—'}</dd>
        <dt>Kept until</dt>
        <dd>
          {entry.keptUntil?.slice(0, 10) ?? '—'}
          {content.commissionState ? ` (${content.commissionState} rules)` : ''}
        </dd>
      </dl>
      <h4>Addenda</h4>
      {entry.addenda.length === 0 ? <p className="empty">No addenda.</p> : null}
      <ul>
        {entry.addenda.map((addendum) => (
          <li key={addendum.id}>
            {when(addendum.createdAt)}: {addendum.text}
          </li>
        ))}
      </ul>
      <form
        className="row wrap align-end"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <Field label="Add an addendum" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit" className="button" disabled={add.isPending}>
          Add
        </button>
      </form>
      <FormAlert message={add.error?.message ?? null} />
      {isPastRetention ? (
        <p>
          <button type="button" className="button" disabled={remove.isPending} onClick={() => remove.mutate()}>
            Delete this entry (its retention has ended)
          </button>
        </p>
      ) : null}
      <FormAlert message={remove.error?.message ?? null} />
    </details>
  );
}

/** The notary's journal: search and filters, each entry with its addenda, and the CSV, JSON and signed PDF exports. */
export function JournalPanel() {
  const [filters, setFilters] = useState({ signer: '', act: '', from: '', to: '', includeTest: false });
  const [page, setPage] = useState(1);
  const params = new URLSearchParams();
  if (filters.signer.trim()) params.set('signer', filters.signer.trim());
  if (filters.act.trim()) params.set('act', filters.act.trim());
  if (filters.from) params.set('from', filters.from);
  if (filters.to) params.set('to', filters.to);
  if (filters.includeTest) params.set('includeTest', 'true');
  const list = useQuery({
    queryKey: journalKeys.list(params.toString(), page),
    queryFn: () => api.get(`/api/notary-log?${params.toString()}&page=${page}&pageSize=25`, journalEntryListSchema),
    placeholderData: (previous) => previous,
  });
  const set = (patch: Partial<typeof filters>) => {
    setFilters((current) => ({ ...current, ...patch }));
    setPage(1);
  };
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / 25));
  return (
    <section className="stack" aria-labelledby="journal-title">
      <h2 id="journal-title">Your journal</h2>
      <p>Every finalized entry of your notarial acts, kept as long as your commissioning state requires. Entries never change; corrections are addenda.</p>
      <div className="row wrap align-end" role="search" aria-label="Search the journal">
        <Field label="Signer" value={filters.signer} onChange={(event) => set({ signer: event.target.value })} />
        <div className="field">
          <label htmlFor="journal-act">Act</label>
          <select id="journal-act" value={filters.act} onChange={(event) => set({ act: event.target.value })}>
            <option value="">Every act</option>
            {notarizationTypes.map((type) => (
              <option key={type.key} value={type.label}>
                {type.label}
              </option>
            ))}
          </select>
        </div>
        <Field label="From" type="date" value={filters.from} onChange={(event) => set({ from: event.target.value })} />
        <Field label="To" type="date" value={filters.to} onChange={(event) => set({ to: event.target.value })} />
        <label className="checkbox">
          <input type="checkbox" checked={filters.includeTest} onChange={(event) => set({ includeTest: event.target.checked })} /> Include test entries
        </label>
      </div>
      {list.data && total === 0 ? null : (
        <section className="stack" aria-labelledby="journal-exports-title">
          <h3 id="journal-exports-title">Keep a copy</h3>
          <p className="muted">
            The journal is yours: download the entries shown by these filters. The signed PDF names the SHA-256 of the JSON file, so each proves the other.
          </p>
          <p className="row wrap">
            <a className="button" href={`/api/notary-log/export.csv?${params.toString()}`} download>
              Download as CSV
            </a>
            <a className="button" href={`/api/notary-log/export.json?${params.toString()}`} download>
              Download as JSON
            </a>
            {total > journalPdfMaxEntries ? null : (
              <a className="button" href={`/api/notary-log/export.pdf?${params.toString()}`} download>
                Download signed PDF
              </a>
            )}
          </p>
          {total > journalPdfMaxEntries ? (
            <p role="note">
              These filters select {total} entries; a signed PDF holds at most {journalPdfMaxEntries}. Choose a shorter date range (From and To) for each PDF,
              or download the JSON file, which has no limit.
            </p>
          ) : null}
        </section>
      )}
      <NotaryArchives />
      <FormAlert message={list.error?.message ?? null} />
      {list.isPending ? <p role="status">Loading your journal…</p> : null}
      {list.data && total === 0 ? (
        <p className="empty">
          {params.toString()
            ? 'No finalized entry matches these filters. Clear a filter to see more.'
            : 'Your journal is empty. Entries appear here once you finalize them on a sealed job’s page.'}
        </p>
      ) : null}
      <p className="muted" role="status">
        {list.data ? `${total} ${total === 1 ? 'entry' : 'entries'}` : ''}
      </p>
      {(list.data?.items ?? []).map((entry) => (
        <EntryDetail key={entry.id} entry={entry} />
      ))}
      {pages > 1 ? (
        <nav className="row" aria-label="Journal pages">
          <button type="button" className="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous page
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" className="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next page
          </button>
        </nav>
      ) : null}
    </section>
  );
}
