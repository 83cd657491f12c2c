import { notaryCertificateSchema } from '#shared/notaries.ts';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '#server/lib/errors.ts';
import {
  getNotaryCertificate,
  maxCertificateFileBytes,
  maxCertificatePasswordLength,
  notaryCertificateMessages,
  removeNotaryCertificate,
  uploadNotaryCertificate,
} from './notary-certificate.service.ts';

// The contract; the web's security settings parse the same shape (it belongs in src/shared/notaries.ts).
const notary = ['notary'] as const;

/** Reads a file part into memory up to `maxBytes` (a key file never touches the disk), draining the rest. */
async function readLimited(stream: Readable, maxBytes: number): Promise<{ content: Buffer; isTooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  return { content: Buffer.concat(chunks), isTooLarge: size > maxBytes };
}

/** The notary's signing certificate: their own from a PKCS#12 file, or the platform's. Under /api/notary. */
export const notaryCertificateRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/certificate', { config: { access: notary }, schema: { response: { 200: notaryCertificateSchema } } }, async (request) =>
    getNotaryCertificate(request.ctx),
  );

  app.post('/certificate', { config: { access: notary }, schema: { response: { 201: notaryCertificateSchema } } }, async (request, reply) => {
    if (!request.isMultipart()) throw new AppError(400, 'no_file', notaryCertificateMessages.noFile);
    let file: Buffer | null = null;
    let isTooLarge = false;
    let password = '';
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const received = await readLimited(part.file, maxCertificateFileBytes);
        if (part.fieldname !== 'p12' || file) continue;
        file = received.content;
        isTooLarge = received.isTooLarge;
      } else if (part.fieldname === 'password' && typeof part.value === 'string') {
        password = part.value;
      }
    }
    if (isTooLarge) throw new AppError(413, 'file_too_large', notaryCertificateMessages.tooLarge, { maxBytes: maxCertificateFileBytes });
    if (!file || file.length === 0) throw new AppError(400, 'no_file', notaryCertificateMessages.noFile);
    if (password.length > maxCertificatePasswordLength) throw new AppError(400, 'validation_failed', notaryCertificateMessages.passwordTooLong);
    return reply.code(201).send(await uploadNotaryCertificate(request.ctx, { file, password }));
  });

  app.delete('/certificate', { config: { access: notary }, schema: { response: { 200: notaryCertificateSchema } } }, async (request) =>
    removeNotaryCertificate(request.ctx),
  );
};
