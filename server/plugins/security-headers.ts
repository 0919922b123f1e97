import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/**
 * The browser's own guard rails, on every answer: the web app may run only its own script and style
 * (crawled text is never markup, and this makes sure nothing else runs even if some slipped in), it
 * may not be framed by another site, types are not sniffed, and no Referer leaves Lantern, so a
 * person's searches are not sent to the sites they open from the results.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** Sets SECURITY_HEADERS on every answer (API, web app and errors alike). */
export default fp(
  async function securityHeaders(app: FastifyInstance) {
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS);
    });
  },
  { name: 'security-headers' },
);
