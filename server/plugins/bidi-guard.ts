import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { neutralizeBidiDeep } from '../crawled-text.ts';

/**
 * Every JSON answer leaves without bidirectional controls that could disguise crawled text (see
 * server/crawled-text.ts): titles, snippets, suggestions, stored text, host names, URLs and errors in
 * Domains and Seeds alike, whichever route sends them, so a field added later is covered too. A string
 * without such characters is passed as it is (a scan, no copy).
 */
export default fp(
  async function bidiGuard(app: FastifyInstance) {
    app.addHook('preSerialization', async (_request, _reply, payload) => neutralizeBidiDeep(payload));
  },
  { name: 'bidi-guard' },
);
