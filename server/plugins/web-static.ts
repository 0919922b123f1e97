import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `npm run build` puts the web app. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * Serves the built web app from `/`, and its client-side routes (`/seeds`, `/domains`, ...) with
 * index.html. Unknown `/api/...` paths stay JSON 404s (405 when the path takes other methods).
 */
export default fp(async function webStatic(app: FastifyInstance, opts: { root?: string }) {
  const root = opts.root ?? WEB_DIST;
  const built = existsSync(`${root}/index.html`);
  if (built) {
    await app.register(fastifyStatic, { root, prefix: '/', wildcard: false, index: ['index.html'], maxAge: '1h',
      setHeaders(res, file) {
        if (file.endsWith('index.html')) res.setHeader('cache-control', 'no-cache');
      } });
  }
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    if (path.startsWith('/api/') || path === '/api' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      throw app.routeMiss(request.method, path); // 404, or 405 for a path that takes other methods
    }
    if (!built) {
      return reply.code(503).type('text/plain').send('web-static: the web app is not built; run `npm run build` (npm start does it)');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}, { name: 'web-static' });
