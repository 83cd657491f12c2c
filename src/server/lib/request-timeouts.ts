import http from 'node:http';
import net, { type Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#server/config.ts';

type Timeouts = Config['timeouts'];

const resendAdvice = 'Check the connection and send it again.';

function describeSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} second${seconds === 1 ? '' : 's'}`;
}

/**
 * Node's own bounds (requestTimeout, headersTimeout) end a connection through the server's
 * 'clientError': this answers in the { error, message } shape, and only when no answer has begun on
 * that connection (writing into a half-sent response would corrupt it).
 */
export function createClientErrorHandler(timeouts: Timeouts) {
  return function onClientError(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    let status = 400;
    let body = { error: 'bad_request', message: 'The request could not be read as HTTP.' };
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      // Node gives both bounds one code: a request whose headers were read has a response in flight.
      const message = inFlight
        ? `The request took longer than ${describeSeconds(timeouts.requestMs)} to arrive and was stopped.`
        : `The request's headers did not arrive within ${describeSeconds(timeouts.headersMs)} and it was stopped.`;
      body = { error: 'request_timeout', message: `${message} ${resendAdvice}` };
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      status = 431;
      body = { error: 'headers_too_large', message: 'The request headers are too large.' };
    }
    if (socket.writable && !inFlight?.headersSent) {
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}

/**
 * The http.Server options behind the bounds: Node checks its request and header bounds on a timer,
 * here at least once per header bound so a short bound is kept to within itself.
 */
export function serverTimeoutOptions(timeouts: Timeouts): http.ServerOptions {
  return { requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs, connectionsCheckingInterval: Math.min(30_000, timeouts.headersMs) };
}

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request.raw;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}

/**
 * Watches a request's body as it arrives: in every window at least `window × minimum rate` bytes (and
 * at least one) must come, or the request is answered 408 and its connection closed. The window is
 * not counted against the client while the server itself is not reading (bytes wait unread), and the
 * watch ends once the body is complete or the answer is sent. A WebSocket upgrade has no body and is
 * never watched.
 */
export function watchBody(request: FastifyRequest, reply: FastifyReply, timeouts: Timeouts): void {
  const raw = request.raw;
  const socket = raw.socket;
  // app.inject's requests come through no network connection: nothing to watch
  if (!hasBody(request) || !(socket instanceof net.Socket)) return;
  const minBytes = Math.max(1, Math.ceil((timeouts.bodyWindowMs / 1000) * timeouts.bodyMinBytesPerSecond));
  let lastRead = socket.bytesRead;
  const stop = () => clearInterval(timer);
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed || reply.sent || reply.raw.headersSent) return stop();
    const read = socket.bytesRead - lastRead;
    lastRead = socket.bytesRead;
    const isWaitingOnServer = raw.readableLength > 0 || socket.isPaused();
    if (read >= minBytes || isWaitingOnServer) return;
    stop();
    const rate =
      timeouts.bodyMinBytesPerSecond > 0
        ? `less than ${minBytes} bytes in ${describeSeconds(timeouts.bodyWindowMs)}`
        : `nothing for ${describeSeconds(timeouts.bodyWindowMs)}`;
    request.log.info({ bytesInWindow: read }, 'request body too slow');
    // Connection: close ends the connection once the answer is out, so the rest of the body is never read
    void reply
      .code(408)
      .header('connection', 'close')
      .send({ error: 'request_timeout', message: `The request body arrived too slowly (${rate}) and was stopped. ${resendAdvice}` });
  }, timeouts.bodyWindowMs);
  timer.unref();
  reply.raw.once('close', stop);
}
