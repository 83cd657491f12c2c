import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

/**
 * The built web app: hashed assets cached for a year, every other page path answered with
 * index.html (the router takes it from there), and a sentence instead of a page when it is not built.
 */
export async function registerWebApp(app: FastifyInstance, config: Pick<Config, 'webDistDir'>): Promise<void> {
  const indexFile = path.join(config.webDistDir, 'index.html');
  const hasWebBuild = fs.existsSync(indexFile);
  if (hasWebBuild) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      setHeaders: (res, filePath) => {
        const isHashed = filePath.includes(`${path.sep}assets${path.sep}`);
        res.header('cache-control', isHashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const isPageRequest = (request.method === 'GET' || request.method === 'HEAD') && !request.url.startsWith('/api/') && !request.url.startsWith('/assets/');
    if (isPageRequest && hasWebBuild) {
      return reply.header('cache-control', 'no-cache').type('text/html').sendFile('index.html');
    }
    if (isPageRequest) {
      return reply.code(503).send({ error: 'web_not_built', message: 'The web app is not built yet. Run npm run build (npm start does it for you).' });
    }
    return reply.code(404).send({ error: 'not_found', message: `No route ${request.method} ${request.url.split('?')[0]}.` });
  });
}
