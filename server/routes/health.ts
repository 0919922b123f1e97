import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../shared/config.ts';

/** `GET /api/health`: answers as long as the server runs, whatever the crawler does. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/health', {
    config: { public: true }, // answers without a sign-in: it says nothing but that Lantern runs
    schema: {
      response: { 200: { type: 'object', properties: { ok: { type: 'boolean' }, version: { type: 'string' } }, required: ['ok'] } },
    },
  }, async () => ({ ok: true, version: VERSION }));
}
