import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '#server/lib/errors.ts';
import { answerOcsp, decodeOcspGetRequest, getCaCertificate, getCrl, maxOcspRequestBytes, pkiMessages } from './pki.service.ts';

const everyone = { access: 'public' } as const;
const ocspResponseType = 'application/ocsp-response';

/**
 * The platform CA's public endpoints under /pki (decision 057): its certificate, its CRL and its
 * OCSP responder, the addresses every certificate it issues names. Plain PKI, outside /api: the
 * answers are DER, read by PDF viewers and OpenSSL, not by the web app.
 */
export const pkiRoutes: FastifyPluginAsyncZod = async (app) => {
  // Read here, not by Fastify's parser, so an oversized request is refused with this feature's own sentence.
  app.addContentTypeParser('application/ocsp-request', async (request: FastifyRequest, payload: IncomingMessage) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxOcspRequestBytes) throw new AppError(413, 'payload_too_large', pkiMessages.tooLarge);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxOcspRequestBytes) throw new AppError(413, 'payload_too_large', pkiMessages.tooLarge);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  });

  app.get('/ca.crt', { config: everyone }, async (request, reply) =>
    reply
      .type('application/pkix-cert')
      .header('cache-control', 'public, max-age=86400')
      .header('content-disposition', 'attachment; filename="open-ron-platform-ca.crt"')
      .send(await getCaCertificate(request.ctx)),
  );

  // no-cache: a cache may keep the CRL but must ask again, so a revocation is seen at once.
  app.get('/crl', { config: everyone }, async (request, reply) =>
    reply
      .type('application/pkix-crl')
      .header('cache-control', 'public, no-cache')
      .header('content-disposition', 'attachment; filename="open-ron-platform-ca.crl"')
      .send(await getCrl(request.ctx)),
  );

  app.post('/ocsp', { config: everyone }, async (request, reply) =>
    reply
      .type(ocspResponseType)
      .header('cache-control', 'no-store')
      .send(await answerOcsp(request.ctx, Buffer.isBuffer(request.body) ? request.body : null)),
  );

  app.get('/ocsp/*', { config: everyone }, async (request, reply) => {
    const encoded = request.url.slice(request.url.indexOf('/ocsp/') + '/ocsp/'.length).split('?')[0] ?? '';
    return reply
      .type(ocspResponseType)
      .header('cache-control', 'public, no-cache')
      .send(await answerOcsp(request.ctx, decodeOcspGetRequest(encoded)));
  });
};
