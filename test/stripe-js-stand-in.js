/* global document, window */
// A stand-in of the few parts of Stripe.js the card form uses, for the browser journeys only
// (served in place of https://js.stripe.com/<train>/stripe.js by e2e/helpers.ts). The card "Element"
// is a plain input; createPaymentMethod turns Stripe's test card numbers into the test payment
// methods the Stripe stand-in (test/stripe-stand-in.ts) knows: 4000 0000 0000 0002 is declined,
// any other complete number holds.
(function () {
  function createCard() {
    let input = null;
    const handlers = {};
    return {
      mount(target) {
        const host = typeof target === 'string' ? document.querySelector(target) : target;
        input = document.createElement('input');
        input.setAttribute('aria-label', 'Card number');
        input.setAttribute('autocomplete', 'cc-number');
        input.setAttribute('inputmode', 'numeric');
        input.style.width = '100%';
        input.style.border = '0';
        input.style.font = 'inherit';
        input.addEventListener('input', () => {
          const digits = input.value.replace(/\D/g, '');
          const event = { elementType: 'card', empty: digits.length === 0, complete: digits.length >= 16, error: undefined };
          (handlers.change || []).forEach((handler) => handler(event));
        });
        host.appendChild(input);
        (handlers.ready || []).forEach((handler) => handler({ elementType: 'card' }));
      },
      on(event, handler) {
        (handlers[event] = handlers[event] || []).push(handler);
        if (event === 'ready' && input) handler({ elementType: 'card' });
      },
      off(event, handler) {
        handlers[event] = (handlers[event] || []).filter((entry) => entry !== handler);
      },
      focus() {
        if (input) input.focus();
      },
      blur() {
        if (input) input.blur();
      },
      clear() {
        if (input) input.value = '';
      },
      unmount() {
        if (input) input.remove();
        input = null;
      },
      destroy() {
        if (input) input.remove();
        input = null;
      },
      update() {},
      digits() {
        return input ? input.value.replace(/\D/g, '') : '';
      },
    };
  }

  function Stripe(publishableKey) {
    if (typeof publishableKey !== 'string' || !publishableKey.startsWith('pk_')) throw new Error('Invalid publishable key.');
    return {
      elements() {
        return {
          create(type) {
            if (type !== 'card') throw new Error('The stand-in makes card elements only.');
            return createCard();
          },
          getElement() {
            return null;
          },
        };
      },
      async createPaymentMethod(options) {
        const card = options && (options.card || (options.elements && null));
        const digits = card && typeof card.digits === 'function' ? card.digits() : '';
        if (digits.length < 16) return { error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incomplete.' } };
        const id = digits === '4000000000000002' ? 'pm_card_chargeDeclined' : 'pm_card_visa';
        return { paymentMethod: { id, object: 'payment_method', type: 'card', card: { brand: 'visa', last4: digits.slice(-4) } } };
      },
      _registerWrapper() {},
    };
  }
  Stripe.version = 'endive';
  window.Stripe = Stripe;
})();
