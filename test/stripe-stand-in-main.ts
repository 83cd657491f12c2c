import { startStripeStandIn } from './stripe-stand-in.ts';

/**
 * Runs the Stripe stand-in on its own for the browser journeys (e2e/start-server.mjs): prints one
 * line of JSON with its address and secrets, then serves until it is stopped.
 */
const standIn = await startStripeStandIn();
process.stdout.write(`${JSON.stringify({ url: standIn.url, secretKey: standIn.secretKey, webhookSecret: standIn.webhookSecret })}\n`);
const stop = () => {
  void standIn.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
