import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { projectPath } from '../../shared/project-root.ts';

/** Where `npm run build` puts the web app. */
export const WEB_DIST = projectPath('web/dist/');

/**
 * Serves the built web app from `/`, and its client-side routes (`/seeds`, `/domains`, ...) with
 * index.html. Unknown `/api/...` paths stay JSON 404s (405 when the path takes other methods). The app's files
 * are routes marked public (server/plugins/auth.ts): they hold no data, and show the sign-in page when a secret is set.
 */
export default fp(
  async function webStatic(app: FastifyInstance, opts: { root?: string }) {
    const root = opts.root ?? WEB_DIST;
    const index = path.join(root, 'index.html');
    const built = existsSync(index);
    if (built) {
      // In a scope of their own, so that marking routes public reaches these files and nothing else.
      await app.register(async function webAppFiles(files: FastifyInstance) {
        files.addHook('onRoute', (route) => {
          route.config = { ...route.config, public: true };
        });
        await files.register(fastifyStatic, {
          root,
          prefix: '/',
          wildcard: false,
          index: ['index.html'],
          maxAge: '1h',
          setHeaders(res, file) {
            if (file.endsWith('index.html')) res.setHeader('cache-control', 'no-cache');
          },
        });
      });
    }
    app.setNotFoundHandler(async (request, reply) => {
      const urlPath = request.url.split('?')[0];
      if (
        urlPath.startsWith('/api/') ||
        urlPath === '/api' ||
        (request.method !== 'GET' && request.method !== 'HEAD')
      ) {
        throw app.routeMiss(request.method, urlPath); // 404, or 405 for a path that takes other methods
      }
      if (!built) {
        return reply
          .code(503)
          .type('text/plain')
          .send('web-static: the web app is not built; run `npm run build` (npm start does it)');
      }
      return reply
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(await readFile(index));
    });
  },
  { name: 'web-static' },
);
