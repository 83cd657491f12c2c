import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { GnwLoop } from '#shared/gnw.ts';
import { notarizationTypes, type NotarizationType } from '#shared/jobs.ts';
import { getUsStateName, type UsStateCode } from '#shared/us-states.ts';
import { gnwApi, gnwKeys, gnwLoopQueryOptions } from '#web/api/gnw.ts';
import { useConfirmDialog } from '#web/components/confirm-dialog.tsx';
import { FormAlert } from '#web/components/field.tsx';
import { labelCellsByHeaders } from '#web/components/stacked-table.ts';
import { StateSelect } from '#web/components/state-select.tsx';
import { useNotice } from '#web/components/use-notice.tsx';
import { canSendTestOffer, describeLastOffered, describeLoopCounts, describeLoopEmptiness, sortCandidates } from './loop-words.ts';
import './notary-loop.css';

type Candidate = GnwLoop['candidates'][number];

/**
 * The administrators' view of the matching loop (decision 051): for a state and an act, every approved
 * notary, whether the next instant offer could go to them, in what order and why, refreshed every 3 s;
 * and a test offer to a notary who is next in line and agreed to tests.
 */
export function NotaryLoop() {
  const queryClient = useQueryClient();
  const actId = useId();
  const [state, setState] = useState<UsStateCode | ''>('');
  const [act, setAct] = useState<NotarizationType>('acknowledgment');
  const loop = useQuery(gnwLoopQueryOptions(state || null, act));
  const { dialog, ask } = useConfirmDialog();
  const { notice, show } = useNotice();
  const send = useMutation({
    mutationFn: (candidate: Candidate) => gnwApi.sendTestOffer(candidate.notaryId),
    onSuccess: (answer) => show(answer.message),
    onError: (error) => show(error.message, 'error'),
    onSettled: () => queryClient.invalidateQueries({ queryKey: gnwKeys.all }),
  });
  const confirmAndSend = async (candidate: Candidate) => {
    const answer = await ask({
      title: `Send a test offer to ${candidate.name}?`,
      description: 'Their dashboard rings for 30 seconds with a test request. Accepting only records their answer: no job is made and nobody is charged.',
      confirmLabel: 'Send the test offer',
      cancelLabel: 'Do not send',
    });
    if (answer !== null) send.mutate(candidate);
  };

  const actLabel = notarizationTypes.find((type) => type.key === act)?.label ?? act;
  return (
    <section className="card stack" aria-labelledby="notary-loop-title">
      <h2 id="notary-loop-title">Who the next offer would go to</h2>
      <div className="notary-loop-filters" role="search" aria-label="Choose the request to test">
        <StateSelect
          label="The signer's state"
          value={state}
          onChange={setState}
          placeholder="Any state"
          hint="Only notaries whose commission allows a signer there are eligible."
        />
        <div className="field">
          <label htmlFor={actId}>Act</label>
          <select id={actId} value={act} onChange={(event) => setAct(event.target.value as NotarizationType)}>
            {notarizationTypes.map((type) => (
              <option key={type.key} value={type.key}>
                {type.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="muted">
        {actLabel}
        {state ? ` for a signer in ${getUsStateName(state)}` : ' for a signer in any state'}. The list refreshes every 3 seconds.
      </p>
      {notice}
      <FormAlert message={loop.error?.message ?? null} />
      {loop.isPending ? <p role="status">Loading the notary loop…</p> : null}
      {loop.data ? (
        <NotaryLoopTable
          loop={loop.data}
          now={loop.dataUpdatedAt}
          sendingId={send.isPending ? (send.variables?.notaryId ?? null) : null}
          onSend={confirmAndSend}
        />
      ) : null}
      {dialog}
    </section>
  );
}

interface NotaryLoopTableProps {
  loop: GnwLoop;
  /** When the loop was read: "last offered" says how long before that. */
  now: number;
  /** The notary a test offer is on its way to. */
  sendingId: string | null;
  onSend: (candidate: Candidate) => void;
  timeZone?: string;
}

/** The counts and the candidates' table (a card per notary on a phone); no effects, so tests render it as it is. */
export function NotaryLoopTable({ loop, now, sendingId, onSend, timeZone }: NotaryLoopTableProps) {
  const emptiness = describeLoopEmptiness(loop);
  const candidates = sortCandidates(loop.candidates);
  return (
    <>
      <p className="notary-loop-counts">{describeLoopCounts(loop)}</p>
      {emptiness ? <p className="empty">{emptiness}</p> : null}
      {candidates.length > 0 ? (
        <table className="table notary-loop-table" ref={labelCellsByHeaders}>
          <caption className="visually-hidden">Approved notaries, next in line first</caption>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Notary</th>
              <th scope="col">Commission state</th>
              <th scope="col">Online</th>
              <th scope="col">Eligible</th>
              <th scope="col">Test offers</th>
              <th scope="col">Last offered</th>
              <th scope="col">Why</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {candidates.map((candidate) => (
              <tr key={candidate.notaryId}>
                <td>{candidate.order === null ? 'Not in line' : candidate.order}</td>
                <td>{candidate.name}</td>
                <td>{candidate.commissionState ? getUsStateName(candidate.commissionState) : 'Not given'}</td>
                <td>{candidate.online ? 'Online' : 'Offline'}</td>
                <td>{candidate.eligible ? 'Yes' : 'No'}</td>
                <td>{candidate.acceptsTestOffers ? 'Accepts' : 'Not accepted'}</td>
                <td>{describeLastOffered(candidate.lastOfferedAt, now, timeZone)}</td>
                <td>{candidate.reason}</td>
                <td className="row">
                  {canSendTestOffer(candidate) ? (
                    <button type="button" className="button" disabled={sendingId !== null} onClick={() => onSend(candidate)}>
                      {sendingId === candidate.notaryId ? 'Sending…' : 'Send a test offer'}
                      <span className="visually-hidden"> to {candidate.name}</span>
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
