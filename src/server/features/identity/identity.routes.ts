import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  documentTypeSchema,
  identityCheckSchema,
  identityReviewInputSchema,
  identityStartInputSchema,
  jobIdentityListSchema,
  kbaAnswersInputSchema,
  kbaQuestionsSchema,
  kbaResultSchema,
  maxIdentityImageBytes,
  resumeLinkSchema,
  resumeTokenHeader,
} from '#shared/identity.ts';
import { identityPolicies, defaultPolicyCode } from '#shared/identity-policies.ts';
import { AppError } from '#server/lib/errors.ts';
import { jobParams, uuidParam } from '#server/lib/route-params.ts';
import { getCheckAccess, requireOwner } from './identity-access.ts';
import { readIdentityImage } from './identity-images.ts';
import { submitCredential, submitSelfie, type CredentialUpload } from './credential/credential.service.ts';
import { createResumeLink, findCheckByResumeToken, getIdentityCheck, listJobIdentity, reviewIdentityCheck, startIdentityCheck } from './identity.service.ts';
import { answerKbaQuiz, startKbaQuiz } from './kba/kba.service.ts';

const checkParams = z.object({ checkId: uuidParam('Check') });
const imageParams = checkParams.extend({ kind: z.enum(['front', 'back', 'passport', 'selfie'], { message: 'The image is front, back, passport or selfie.' }) });
const tokenParams = z.object({ token: z.string().regex(/^[\w-]{20,100}$/, { message: 'This link is not valid. Open a new one from your computer.' }) });

/**
 * The identity calls that a phone opened from a resume link makes too are 'public' at the door:
 * the service accepts the signed-in owner, the job's notary, an admin, or the link's token, and
 * answers 404 to anyone else.
 */
const open = 'public' as const;
const signedIn = 'signed-in' as const;

function resumeTokenOf(request: FastifyRequest): string | null {
  const value = request.headers[resumeTokenHeader];
  const token = Array.isArray(value) ? value[0] : value;
  if (!token) return null;
  if (!/^[\w-]{20,100}$/.test(token)) throw new AppError(404, 'not_found', 'This link is not valid. Open a new one from your computer.');
  return token;
}

async function readFile(stream: NodeJS.ReadableStream): Promise<{ content: Buffer; isTooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size <= maxIdentityImageBytes) chunks.push(chunk as Buffer);
  }
  return { content: Buffer.concat(chunks), isTooLarge: size > maxIdentityImageBytes };
}

/**
 * Runs before a photo upload's body is read: the check exists and the caller owns it (signed in, or
 * by the resume link), so nobody else makes the server take in megabytes. A read without a lock;
 * the service checks again, locked, once the photos are in.
 */
async function ownerBeforeBody(request: FastifyRequest & { params: { checkId: string } }): Promise<void> {
  requireOwner(await getCheckAccess(request.ctx, request.params.checkId, resumeTokenOf(request)));
}

const tooLarge = () =>
  new AppError(413, 'file_too_large', `A photo may be at most ${maxIdentityImageBytes / 1024 / 1024} MB.`, { maxBytes: maxIdentityImageBytes });
const notMultipart = () => new AppError(415, 'unsupported_media_type', 'Send the photos as multipart/form-data.');

/** Under /api/identity. */
export const identityRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/policies', { config: { access: open } }, async () => ({ items: identityPolicies, defaultCode: defaultPolicyCode }));

  app.get('/resume/:token', { config: { access: open }, schema: { params: tokenParams, response: { 200: identityCheckSchema } } }, async (request) =>
    findCheckByResumeToken(request.ctx, request.params.token),
  );

  app.get('/:checkId', { config: { access: open }, schema: { params: checkParams, response: { 200: identityCheckSchema } } }, async (request) =>
    getIdentityCheck(request.ctx, request.params.checkId, resumeTokenOf(request)),
  );

  app.post(
    '/:checkId/credential',
    { config: { access: open }, preHandler: ownerBeforeBody, schema: { params: checkParams, response: { 200: identityCheckSchema } } },
    async (request) => {
      const token = resumeTokenOf(request);
      if (!request.isMultipart()) throw notMultipart();
      const upload: Partial<CredentialUpload> = {};
      let documentType: unknown = null;
      for await (const part of request.parts({ limits: { fileSize: maxIdentityImageBytes + 1, files: 3 } })) {
        if (part.type === 'file') {
          const received = await readFile(part.file);
          if (received.isTooLarge) throw tooLarge();
          if (part.fieldname === 'front' || part.fieldname === 'back' || part.fieldname === 'passport') upload[part.fieldname] = received.content;
        } else if (part.fieldname === 'documentType') {
          documentType = part.value;
        }
      }
      const parsed = documentTypeSchema.safeParse(documentType);
      if (!parsed.success) throw new AppError(400, 'validation_failed', 'Choose the kind of ID: driver’s licence, state ID card or passport.');
      return submitCredential(request.ctx, request.params.checkId, token, { ...upload, documentType: parsed.data });
    },
  );

  app.post(
    '/:checkId/selfie',
    { config: { access: open }, preHandler: ownerBeforeBody, schema: { params: checkParams, response: { 200: identityCheckSchema } } },
    async (request) => {
      const token = resumeTokenOf(request);
      if (!request.isMultipart()) throw notMultipart();
      let selfie: Buffer | null = null;
      for await (const part of request.parts({ limits: { fileSize: maxIdentityImageBytes + 1, files: 1 } })) {
        if (part.type !== 'file') continue;
        const received = await readFile(part.file);
        if (received.isTooLarge) throw tooLarge();
        if (part.fieldname === 'selfie') selfie = received.content;
      }
      return submitSelfie(request.ctx, request.params.checkId, token, selfie);
    },
  );

  app.get('/:checkId/kba/questions', { config: { access: open }, schema: { params: checkParams, response: { 200: kbaQuestionsSchema } } }, async (request) =>
    startKbaQuiz(request.ctx, request.params.checkId, resumeTokenOf(request)),
  );

  app.post(
    '/:checkId/kba/answers',
    { config: { access: open }, schema: { params: checkParams, body: kbaAnswersInputSchema, response: { 200: kbaResultSchema } } },
    async (request) => answerKbaQuiz(request.ctx, request.params.checkId, resumeTokenOf(request), request.body),
  );

  app.post('/:checkId/resume-link', { config: { access: signedIn }, schema: { params: checkParams, response: { 200: resumeLinkSchema } } }, async (request) =>
    createResumeLink(request.ctx, request.params.checkId),
  );

  app.post(
    '/:checkId/review',
    { config: { access: ['notary'] }, schema: { params: checkParams, body: identityReviewInputSchema, response: { 200: identityCheckSchema } } },
    async (request) => reviewIdentityCheck(request.ctx, request.params.checkId, request.body),
  );

  // The evidence itself: the job's notary and admins only, never cached by a shared cache.
  app.get('/:checkId/images/:kind', { config: { access: signedIn }, schema: { params: imageParams } }, async (request, reply) => {
    const access = await getCheckAccess(request.ctx, request.params.checkId, null);
    if (access.viewer === 'owner') throw new AppError(403, 'forbidden', 'ID photos are shown to the job’s notary and administrators only.');
    const image = await readIdentityImage(
      { db: request.ctx.db, storage: request.ctx.storage, secretsKey: request.ctx.secretsKey },
      access.check.id,
      request.params.kind,
    );
    if (!image) throw new AppError(404, 'not_found', 'There is no such photo for this check (never taken, or deleted at the end of its retention).');
    return reply.type(image.contentType).header('cache-control', 'private, no-store').send(image.content);
  });
};

/** Under /api/jobs. */
export const identityJobRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/:id/identity/start',
    { config: { access: signedIn }, schema: { params: jobParams, body: identityStartInputSchema, response: { 200: identityCheckSchema } } },
    async (request) => startIdentityCheck(request.ctx, request.params.id, request.body),
  );
  app.get('/:id/identity', { config: { access: signedIn }, schema: { params: jobParams, response: { 200: jobIdentityListSchema } } }, async (request) =>
    listJobIdentity(request.ctx, request.params.id),
  );
};
