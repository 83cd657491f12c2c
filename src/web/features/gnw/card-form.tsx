import { useEffect, useRef, useState } from 'react';
import type { Stripe, StripeCardElement } from '@stripe/stripe-js';
import { formatCents } from '#shared/pricing.ts';
import { FormAlert } from '#web/components/field.tsx';

type CardState = { phase: 'loading' } | { phase: 'ready'; stripe: Stripe; card: StripeCardElement } | { phase: 'failed'; message: string };

/**
 * The card, typed into Stripe's own field (Stripe.js from js.stripe.com, loaded only on this step:
 * the rest of the app never fetches it). On submit Stripe makes a PaymentMethod in the browser;
 * only its id (pm_…) reaches this platform.
 */
export function CardForm({
  publishableKey,
  amountCents,
  onPaymentMethod,
}: {
  publishableKey: string;
  amountCents: number | null;
  onPaymentMethod: (id: string) => Promise<void>;
}) {
  const mountRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<CardState>({ phase: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [cardError, setCardError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setIsBusy] = useState(false);

  useEffect(() => {
    let isCurrent = true;
    let mounted: StripeCardElement | null = null;
    // The pure entry point loads Stripe.js only when asked, here.
    import('@stripe/stripe-js/pure')
      .then(({ loadStripe }) => loadStripe(publishableKey))
      .then((stripe) => {
        if (!isCurrent) return;
        if (!stripe || !mountRef.current) throw new Error('Stripe.js did not start.');
        const card = stripe.elements().create('card', {
          hidePostalCode: false,
          style: { base: { fontSize: '16px', color: '#14202b', '::placeholder': { color: '#5a6775' } }, invalid: { color: '#b3261e' } },
        });
        card.on('change', (event) => setCardError(event.error?.message ?? null));
        card.mount(mountRef.current);
        mounted = card;
        setState({ phase: 'ready', stripe, card });
      })
      .catch(() => {
        if (isCurrent) setState({ phase: 'failed', message: 'The card form could not be loaded from Stripe. Check your connection, then try again.' });
      });
    return () => {
      isCurrent = false;
      mounted?.destroy();
    };
  }, [publishableKey, attempt]);

  const submit = async () => {
    if (state.phase !== 'ready') return;
    setError(null);
    setIsBusy(true);
    try {
      const result = await state.stripe.createPaymentMethod({ type: 'card', card: state.card });
      if (result.error) {
        setError(result.error.message ?? 'The card was not accepted. Check its details and try again.');
        return;
      }
      await onPaymentMethod(result.paymentMethod.id);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : 'The card could not be checked. Please try again.');
    } finally {
      setIsBusy(false);
    }
  };

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div className="field">
        <span id="gnw-card-label">Card</span>
        {/* Stripe's field is an iframe with its own labelled inputs; this box only holds it. */}
        <div
          ref={mountRef}
          className="gnw-card-element"
          role="group"
          aria-labelledby="gnw-card-label"
          aria-describedby={cardError ? 'gnw-card-error' : undefined}
        />
        {cardError ? (
          <p className="field-error" id="gnw-card-error" role="alert">
            {cardError}
          </p>
        ) : null}
      </div>
      {state.phase === 'loading' ? <p role="status">Loading the card form from Stripe…</p> : null}
      {state.phase === 'failed' ? (
        <div className="stack">
          <FormAlert message={state.message} />
          <div>
            <button
              type="button"
              className="button"
              onClick={() => {
                setState({ phase: 'loading' });
                setAttempt((value) => value + 1);
              }}
            >
              Try loading the card form again
            </button>
          </div>
        </div>
      ) : null}
      <FormAlert message={error} />
      <div className="actions">
        <button type="submit" className="button primary gnw-primary" disabled={state.phase !== 'ready' || isBusy}>
          {isBusy ? 'Holding…' : amountCents === null ? 'Hold the amount on this card' : `Hold ${formatCents(amountCents)} on this card`}
        </button>
      </div>
    </form>
  );
}
