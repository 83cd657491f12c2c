/**
 * The baseline for the auth benchmark: Fastify 5 with its defaults (no logger, no hooks, no
 * plugins) and one GET route returning a small JSON object. auth.bench.ts starts it as a child
 * process so it shares the CPU, but not the event loop, with autocannon.
 */
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? '0');
const app = Fastify({ logger: false });

app.get('/bare', async () => ({ ok: true, service: 'bare-fastify' }));

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));

const address = await app.listen({ host: '127.0.0.1', port });
console.log(`bare fastify listening at ${address}`);
