import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/**
 * Refuses state-changing requests sent by another site's page: a browser always sends `Origin` on a
 * cross-site POST, so one that is not among Lantern's own names (loopback on PORT, HOST, PUBLIC_HOSTS:
 * app.allowedHosts) is answered 403 before any handler runs. Compared with that list, not with the
 * request's own Host, which a rebinding page controls.
 * Only JSON bodies are accepted (a plain HTML form cannot send application/json without CORS).
 */
export default fp(
  async function sameOrigin(app: FastifyInstance) {
    app.removeContentTypeParser(['text/plain']);
    app.addHook('onRequest', async (request, reply) => {
      if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return;
      const origin = request.headers.origin;
      if (origin === undefined) return;
      if (!app.allowedHosts.allowsOrigin(origin)) {
        return reply.code(403).send({
          error: 'cross-origin',
          message: `same-origin: requests from ${JSON.stringify(origin)} may not change Lantern; use Lantern's own page`,
        });
      }
    });
  },
  { name: 'same-origin', dependencies: ['host-check'] },
);
