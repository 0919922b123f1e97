import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/**
 * Refuses state-changing requests sent by another site's page: a browser always sends `Origin` on a
 * cross-site POST, so one whose host differs from ours is answered 403 before any handler runs.
 * Only JSON bodies are accepted (a plain HTML form cannot send application/json without CORS).
 */
export default fp(async function sameOrigin(app: FastifyInstance) {
  app.removeContentTypeParser(['text/plain']);
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
    const origin = request.headers.origin;
    if (origin === undefined) return;
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    if (host === null || host !== request.headers.host) {
      return reply.code(403).send({
        error: 'cross-origin',
        message: `same-origin: requests from ${JSON.stringify(origin)} may not change Lantern; use Lantern's own page`,
      });
    }
  });
}, { name: 'same-origin' });
