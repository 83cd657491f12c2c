import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sandboxLinkSchema } from '#shared/documents.ts';
import { AppError } from '#server/lib/errors.ts';
import { documentParams, jobParams } from '#server/lib/route-params.ts';
import { createSandboxLink, openSafeViewer } from './safe-viewer.service.ts';
import { createNonce, renderViewerPage, renderViewerProblemPage, viewerPageHeaders } from './viewer-page.ts';

const signedIn = 'signed-in' as const;

/** The two links of decision 053, under /api/jobs: the whole job's documents in order, or one. */
export const safeViewerLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/:id/open-in-sandbox', { config: { access: signedIn }, schema: { params: jobParams, response: { 200: sandboxLinkSchema } } }, async (request) =>
    createSandboxLink(request.ctx, request.params.id, null),
  );

  app.get(
    '/:id/documents/:docId/open-in-sandbox',
    { config: { access: signedIn }, schema: { params: documentParams, response: { 200: sandboxLinkSchema } } },
    async (request) => createSandboxLink(request.ctx, request.params.id, request.params.docId),
  );
};

const require = createRequire(import.meta.url);
/** The renderer's files, from pdfjs-dist as installed; read once. */
const assetFiles = {
  'pdf.min.mjs': require.resolve('pdfjs-dist/build/pdf.min.mjs'),
  'pdf.worker.min.mjs': require.resolve('pdfjs-dist/build/pdf.worker.min.mjs'),
} as const;
type AssetName = keyof typeof assetFiles;
const assetContents = new Map<AssetName, Buffer>();
const assetParams = z.object({ file: z.enum(Object.keys(assetFiles) as [AssetName, ...AssetName[]], { message: 'No such viewer file.' }) });
const viewerQuery = z.object({ token: z.string().min(1, 'The viewer link has no token.').max(1000, 'The viewer link is not valid.') });

/** The viewer page and the renderer it loads, under /api/safe-viewer (the page's session is the app's cookie). */
export const safeViewerRoutes: FastifyPluginAsyncZod = async (app) => {
  // Public: the page checks its token and the browser's session itself, and answers in HTML.
  app.get('/', { config: { access: 'public', isSandboxedPage: true }, schema: { querystring: viewerQuery } }, async (request, reply) => {
    const nonce = createNonce();
    reply.headers(viewerPageHeaders(nonce));
    try {
      const { jobTitle, documents } = await openSafeViewer(request.ctx, request.query.token);
      return reply.send(renderViewerPage(nonce, jobTitle, documents));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return reply
        .code(error.statusCode)
        .headers(error.headers ?? {})
        .send(renderViewerProblemPage(nonce, error.message));
    }
  });

  // The sandboxed page has an opaque origin, so its module scripts are cross-origin requests
  // without cookies: public library code, readable by any origin.
  app.get('/assets/:file', { config: { access: 'public' }, schema: { params: assetParams } }, async (request, reply) => {
    const name = request.params.file;
    let content = assetContents.get(name);
    if (!content) {
      content = await fs.promises.readFile(assetFiles[name]);
      assetContents.set(name, content);
    }
    return reply
      .type('text/javascript; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', 'public, max-age=86400')
      .send(content);
  });
};
