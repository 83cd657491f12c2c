import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { z } from 'zod';
import { journalEntrySchema, type JournalEntry } from '#shared/journal.ts';
import { describeFinalized, formatJournalTime, getFinalizeQuestion } from '#shared/journal-words.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { Field, FormAlert } from '#web/components/field.tsx';
import { api } from '#web/lib/api.ts';
import { journalKeys } from './api/journal-queries.ts';

const listSchema = z.object({ items: z.array(journalEntrySchema) });

interface DraftValues {
  signerAddress: string;
  fee: string;
  notes: string;
  documentType: string;
  documentDate: string;
  /** One credible witness a line: "name, address". */
  witnesses: string;
}

/** "Wendy Witness, 9 Oak Lane, Richmond" -> { name, address }: the name is what comes before the first comma. */
function readWitnessLines(text: string) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const comma = line.indexOf(',');
      return comma < 0 ? { name: line, address: null } : { name: line.slice(0, comma).trim(), address: line.slice(comma + 1).trim() || null };
    });
}

/** The viewer's zone: the entries are the notary's, read in their own time. */
const viewerTimeZone = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
})();

/** The sealed job's journal entries still to finish: the notary adds the signer's address, the fee and notes, then finalizes. */
export function JournalDraftsPanel({ jobId }: { jobId: string }) {
  const queryClient = useQueryClient();
  const { dialog, ask } = useConfirmDialog();
  const drafts = useQuery({ queryKey: journalKeys.drafts(jobId), queryFn: () => api.get(`/api/notary-log/drafts/${jobId}`, listSchema) });
  const [values, setValues] = useState<Record<string, DraftValues>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const finalize = useMutation({
    mutationFn: (entries: Array<Record<string, unknown>>) => api.post(`/api/notary-log/finalize/${jobId}`, { entries }, listSchema),
    onSuccess: (saved) => {
      const finalCount = saved.items.filter((entry) => entry.status === 'final').length;
      setNotice(`${finalCount === 1 ? 'The entry is' : 'The entries are'} in your journal now. ${describeFinalized(finalCount)}`);
      void queryClient.invalidateQueries({ queryKey: journalKeys.all });
    },
  });
  const items = drafts.data?.items ?? [];
  const valueOf = (entry: JournalEntry): DraftValues =>
    values[entry.id] ?? {
      signerAddress: entry.content.signerAddress ?? '',
      fee: entry.content.feeCents === null ? '' : String(entry.content.feeCents / 100),
      notes: entry.content.notes ?? '',
      documentType: entry.content.documentType ?? '',
      documentDate: entry.content.documentDate ?? '',
      witnesses: entry.content.credibleWitnesses.map((witness) => [witness.name, witness.address].filter(Boolean).join(', ')).join('\n'),
    };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    // A final entry never changes: say so, and finalize only on a yes.
    const answer = await ask({ ...getFinalizeQuestion(items.length), confirmTone: 'danger', cancelLabel: 'Not yet' });
    if (answer === null) return;
    finalize.mutate(
      items.map((entry) => {
        const value = valueOf(entry);
        const fee = value.fee.trim() === '' ? null : Math.round(Number(value.fee) * 100);
        return {
          id: entry.id,
          signerAddress: value.signerAddress,
          feeCents: Number.isFinite(fee) ? fee : null,
          notes: value.notes.trim() || null,
          documentType: value.documentType.trim() || null,
          documentDate: value.documentDate || null,
          ...(entry.content.isIdentifiedByCredibleWitness ? { credibleWitnesses: readWitnessLines(value.witnesses) } : {}),
        };
      }),
    );
  };
  if (drafts.isPending) return <p role="status">Loading the journal entries…</p>;
  return (
    <section className="card stack" aria-labelledby="journal-drafts-title">
      {dialog}
      <h2 id="journal-drafts-title">Journal entries to finish</h2>
      <FormAlert message={drafts.error?.message ?? null} />
      <FormAlert message={notice} tone="success" />
      {items.length === 0 && !notice ? <p className="empty">Nothing to finish: this job’s journal entries are final.</p> : null}
      {items.length > 0 ? (
        <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
          <p>Prepared from what the platform recorded. Add what only you know, then finalize: a final entry never changes.</p>
          {items.map((entry) => {
            const value = valueOf(entry);
            const set = (patch: Partial<typeof value>) => setValues((current) => ({ ...current, [entry.id]: { ...value, ...patch } }));
            return (
              <fieldset key={entry.id} className="stack">
                <legend>
                  {entry.content.signerName}: {entry.content.documentName} ({entry.content.actType})
                </legend>
                <dl className="review-facts">
                  <dt>Notarized</dt>
                  <dd>{entry.content.notarizedAt ? formatJournalTime(entry.content.notarizedAt, viewerTimeZone) : 'Not sealed yet'}</dd>
                  <dt>Identity</dt>
                  <dd>{entry.content.identityMethod}</dd>
                  <dt>Recording</dt>
                  <dd>{entry.content.recordingReference ?? 'None recorded'}</dd>
                </dl>
                <Field
                  label={`Address of ${entry.content.signerName}`}
                  value={value.signerAddress}
                  onChange={(event) => set({ signerAddress: event.target.value })}
                  required
                />
                <Field
                  label="Fee charged (dollars)"
                  hint="Enter 0 when you charged nothing."
                  inputMode="decimal"
                  value={value.fee}
                  onChange={(event) => set({ fee: event.target.value })}
                />
                <Field
                  label="Type of document"
                  hint="For example: warranty deed, affidavit, power of attorney."
                  value={value.documentType}
                  onChange={(event) => set({ documentType: event.target.value })}
                />
                <Field label="Date of the document" type="date" value={value.documentDate} onChange={(event) => set({ documentDate: event.target.value })} />
                {entry.content.isIdentifiedByCredibleWitness ? (
                  <div className="field">
                    <label htmlFor={`witnesses-${entry.id}`}>Credible witnesses</label>
                    <textarea
                      id={`witnesses-${entry.id}`}
                      aria-describedby={`witnesses-${entry.id}-hint`}
                      rows={2}
                      value={value.witnesses}
                      onChange={(event) => set({ witnesses: event.target.value })}
                    />
                    <p className="field-hint" id={`witnesses-${entry.id}-hint`}>
                      One a line: the witness’s name, a comma, then their address.
                    </p>
                  </div>
                ) : null}
                <Field label="Notes" value={value.notes} onChange={(event) => set({ notes: event.target.value })} />
              </fieldset>
            );
          })}
          <FormAlert message={finalize.error?.message ?? null} />
          <button type="submit" className="button primary" disabled={finalize.isPending}>
            {finalize.isPending ? 'Finalizing…' : 'Finalize in my journal'}
          </button>
        </form>
      ) : null}
    </section>
  );
}
