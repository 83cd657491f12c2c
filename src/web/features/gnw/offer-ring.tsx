import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useReducer, useRef, useState, type RefObject } from 'react';
import { useNavigate } from 'react-router';
import { offerSeconds, type GnwOffer } from '#shared/gnw.ts';
import { availabilityStatusQueryOptions } from '#web/api/availability.ts';
import { gnwKeys, gnwOffersQueryOptions } from '#web/api/gnw.ts';
import {
  answerOffer,
  closingDelayMs,
  createRingState,
  describeSecondsLeft,
  getRingTitle,
  isRingClosing,
  ringReducer,
  type RingState,
} from './offer-ring-state.ts';
import { playOfferTone } from './offer-sound.ts';
import './offer-ring.css';

/**
 * The offer ring (decision 051): while a notary or platform witness is online, their offers are
 * fetched every 5 s (at once when their user channel says `offers-changed`), and an open offer rings:
 * a modal dialog with a chime and a countdown, Accept (to the job's lobby) and Decline. Loaded lazily
 * for those roles only (router.tsx), so no other page carries it.
 */
export default function OfferRing() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const status = useQuery(availabilityStatusQueryOptions());
  const isOnline = status.data?.is_available === true;
  const offers = useQuery({ ...gnwOffersQueryOptions(), enabled: isOnline });
  // Offers answered, gone or run out on this screen: a poll that still lists one does not ring it again.
  const [finished, setFinished] = useState<ReadonlySet<string>>(() => new Set());
  const [current, setCurrent] = useState<GnwOffer | null>(null);
  const items = offers.data?.items;

  // The first offer not yet finished here starts ringing, and keeps ringing (to say it was taken or
  // ran out) after it leaves the list: it is held in state, set while rendering as React allows.
  const next = current ? null : items?.find((offer) => !finished.has(offer.id));
  if (next) setCurrent(next);

  const finish = useCallback(
    (offerId: string, sessionPath: string | null) => {
      setFinished((previous) => new Set(previous).add(offerId));
      setCurrent(null);
      void queryClient.invalidateQueries({ queryKey: gnwKeys.offers() });
      if (sessionPath) void navigate(sessionPath);
    },
    [navigate, queryClient],
  );

  if (!current) return null;
  const isListed = items ? items.some((offer) => offer.id === current.id) : true;
  return <OfferDialog key={current.id} offer={current} isListed={isListed} onFinish={finish} />;
}

interface OfferDialogProps {
  offer: GnwOffer;
  /** False once a fresh list of offers no longer has this one: taken, withdrawn or run out on the server. */
  isListed: boolean;
  onFinish: (offerId: string, sessionPath: string | null) => void;
}

/** One ringing offer: its countdown, the chime when it appears, the answer, and the closing sentence. */
function OfferDialog({ offer, isListed, onFinish }: OfferDialogProps) {
  const [state, dispatch] = useReducer(ringReducer, offer, (first) => createRingState(first, Date.now()));
  const dialogRef = useRef<HTMLDialogElement>(null);
  const acceptRef = useRef<HTMLButtonElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const isClosing = isRingClosing(state.phase);

  useEffect(() => {
    const dialog = dialogRef.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    acceptRef.current?.focus();
    void playOfferTone();
    return () => {
      if (dialog?.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  useEffect(() => {
    if (isClosing) return;
    const timer = window.setInterval(() => dispatch({ type: 'tick', now: Date.now() }), 250);
    return () => window.clearInterval(timer);
  }, [isClosing]);

  useEffect(() => {
    if (!isListed) dispatch({ type: 'withdrawn' });
  }, [isListed]);

  useEffect(() => {
    if (state.phase === 'accepted' || state.phase === 'declined') {
      onFinish(offer.id, state.sessionPath);
      return;
    }
    if (!isClosing) return;
    closeRef.current?.focus();
    const timer = window.setTimeout(() => onFinish(offer.id, null), closingDelayMs);
    return () => window.clearTimeout(timer);
  }, [isClosing, state.phase, state.sessionPath, offer.id, onFinish]);

  const answer = (choice: 'accept' | 'decline') => {
    if (state.phase !== 'open') return;
    dispatch({ type: 'answer', choice });
    void answerOffer(offer, choice).then((outcome) => dispatch({ type: 'answered', outcome }));
  };

  return (
    <OfferDialogView
      state={state}
      dialogRef={dialogRef}
      acceptRef={acceptRef}
      closeRef={closeRef}
      onAccept={() => answer('accept')}
      onDecline={() => answer('decline')}
      onClose={() => onFinish(offer.id, null)}
    />
  );
}

interface OfferDialogViewProps {
  state: RingState;
  onAccept: () => void;
  onDecline: () => void;
  /** Close after the closing sentence (or Escape then). */
  onClose: () => void;
  dialogRef?: RefObject<HTMLDialogElement | null>;
  acceptRef?: RefObject<HTMLButtonElement | null>;
  closeRef?: RefObject<HTMLButtonElement | null>;
}

/** What the ringing dialog shows in each phase (no effects: the tests render it as it is). */
export function OfferDialogView({ state, onAccept, onDecline, onClose, dialogRef, acceptRef, closeRef }: OfferDialogViewProps) {
  const titleId = useId();
  const factsId = useId();
  const noteId = useId();
  const { offer } = state;
  const isClosing = isRingClosing(state.phase);
  const isAnswering = state.phase === 'answering';
  const ringSeconds = Math.max(1, Math.round((Date.parse(offer.expiresAt) - Date.parse(offer.offeredAt)) / 1000) || offerSeconds);
  const share = Math.min(1, state.secondsLeft / ringSeconds);
  return (
    <dialog
      ref={dialogRef}
      className="dialog offer-ring"
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={offer.isTest ? `${noteId} ${factsId}` : factsId}
      onCancel={(event) => {
        // Escape declines a ringing offer (the next notary is asked at once) and closes a finished one.
        event.preventDefault();
        if (state.phase === 'open') onDecline();
        else if (isClosing) onClose();
      }}
    >
      <h2 id={titleId}>{getRingTitle(offer)}</h2>
      {offer.isTest ? (
        <p id={noteId} className="offer-test-note">
          This is a test from an administrator. Accepting only records your answer: there is no job and nobody is waiting.
        </p>
      ) : null}
      <dl id={factsId} className="offer-facts">
        <div>
          <dt>Act</dt>
          <dd>{offer.actLabel}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd>{offer.stateName ?? 'Not given'}</dd>
        </div>
        <div>
          <dt>Documents</dt>
          <dd>{offer.documentCount}</dd>
        </div>
        <div>
          <dt>Signers</dt>
          <dd>{offer.signerCount}</dd>
        </div>
        <div>
          <dt>Witnesses requested</dt>
          <dd>{offer.witnessesRequested === 0 ? 'None' : offer.witnessesRequested}</dd>
        </div>
      </dl>
      {isClosing ? null : (
        <div className="offer-countdown">
          <p role="timer" className="offer-seconds">
            {describeSecondsLeft(state.secondsLeft)}
          </p>
          <div className="offer-bar" aria-hidden="true">
            <span style={{ width: `${Math.round(share * 100)}%` }} />
          </div>
        </div>
      )}
      <p role="status" className="visually-hidden">
        {state.announcement}
      </p>
      {state.message ? <p className="offer-closing">{state.message}</p> : null}
      {state.error ? (
        <p className="alert error" role="alert">
          {state.error}
        </p>
      ) : null}
      <div className="actions">
        {isClosing ? (
          <button ref={closeRef} type="button" className="button" onClick={onClose}>
            Close
          </button>
        ) : (
          <>
            <button ref={acceptRef} type="button" className="button primary" disabled={isAnswering} onClick={onAccept}>
              {isAnswering && state.choice === 'accept' ? 'Accepting…' : offer.isTest ? 'Accept test offer' : 'Accept'}
            </button>
            <button type="button" className="button" disabled={isAnswering} onClick={onDecline}>
              {isAnswering && state.choice === 'decline' ? 'Declining…' : 'Decline'}
            </button>
          </>
        )}
      </div>
    </dialog>
  );
}
