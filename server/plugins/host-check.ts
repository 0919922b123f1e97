import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { AllowedHosts, parseHostName } from '../allowed-hosts.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The host names Lantern answers to and the origins that may change it (server/allowed-hosts.ts). */
    allowedHosts: AllowedHosts;
  }
}

/** The longest piece of a refused `Host` header repeated in the answer. */
const ECHO_MAX = 100;

/**
 * Answers only requests addressed to one of Lantern's own names (loopback on PORT, HOST, PUBLIC_HOSTS):
 * anything else is `421 Misdirected Request`, before any route, static file or the web app's page. A
 * page that re-points its own name at 127.0.0.1 (DNS rebinding) is same-origin with itself, so the
 * browser lets it read every answer; it gets no answer worth reading. Registered right after the
 * security headers, so the refusal carries them.
 */
export default fp(
  async function hostCheck(app: FastifyInstance) {
    app.decorate('allowedHosts', AllowedHosts.fromConfig(app.config));
    app.addHook('onRequest', async (request, reply) => {
      const host = request.headers.host;
      if (app.allowedHosts.allowsHost(host)) return;
      const name = host === undefined ? null : (parseHostName(host)?.name ?? null);
      const shown = host === undefined ? 'without a Host header' : `for ${JSON.stringify(host.slice(0, ECHO_MAX))}`;
      return reply.code(421).send({
        error: 'misdirected-request',
        message:
          `host-check: Lantern does not answer requests ${shown}, so that a page whose name points at this machine reads nothing; ` +
          `to reach Lantern by that name, add it to PUBLIC_HOSTS${name === null ? '' : ` (e.g. PUBLIC_HOSTS=${name.slice(0, ECHO_MAX)})`}`,
      });
    });
  },
  { name: 'host-check', dependencies: ['services', 'security-headers'] },
);
