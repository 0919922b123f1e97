import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { VERSION } from '../../shared/config.ts';

/** `GET /api/health`: the server runs, and which version it is. */
export const HealthSchema = Type.Object({ ok: Type.Boolean(), version: Type.String() });

/** `GET /api/health`: answers as long as the server runs, whatever the crawler does. */
export async function healthRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/health',
    {
      config: { public: true }, // answers without a sign-in: it says nothing but that Lantern runs
      schema: { response: { 200: HealthSchema } },
    },
    async () => ({ ok: true, version: VERSION }),
  );
}
