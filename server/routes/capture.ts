import type { FastifyInstance } from 'fastify';
import { errorSchema, HttpError } from '../plugins/error-handler.ts';
import { RateLimiter } from '../rate-limiter.ts';
import { IMPORT_BODY_LIMIT, parseImportBody } from '../capture/import-body.ts';
import { MAX_IMPORT_ENTRIES, planImport } from '../capture/import-plan.ts';
import { checkLabels } from '../capture/label-input.ts';
import { MAX_LABELS_PER_SEED } from '../../db/seed-labels.ts';
import { seedSchema, toApi } from './seeds.ts';

/** How many imports one client may send: ten at once, then one every 5 s (each may hold thousands of seeds); a refused body does not count. */
export const IMPORT_RATE = { burst: 10, perSecond: 0.2 };

const refusalSchema = {
  type: 'object',
  properties: { line: { type: 'integer' }, url: { type: 'string' }, title: { type: 'string' }, error: { type: 'string' }, message: { type: 'string' } },
} as const;

/**
 * `POST /api/seeds/import` (a bookmark export or a list of URLs becomes seeds), `PUT /api/seeds/:id/labels`
 * and `GET /api/labels`: what a person keeps and how they file it. The server writes only seeds and labels;
 * the crawler picks the new seeds up as it does any seed.
 */
export async function captureRoutes(app: FastifyInstance): Promise<void> {
  const limiter = new RateLimiter(IMPORT_RATE.burst, IMPORT_RATE.perSecond);

  app.post('/api/seeds/import', {
    bodyLimit: IMPORT_BODY_LIMIT,
    schema: {
      response: {
        200: {
          type: 'object',
          properties: {
            format: { type: 'string' }, entries: { type: 'integer' }, created: { type: 'integer' }, merged: { type: 'integer' },
            duplicates: { type: 'integer' }, refused: { type: 'array', items: refusalSchema }, tookMs: { type: 'number' },
          },
        },
        '4xx': errorSchema,
      },
    },
  }, async (request, reply) => {
    const started = performance.now();
    const body = parseImportBody(request.body);
    const waitMs = limiter.take(request.ip, Date.now());
    if (waitMs > 0) {
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw new HttpError(429, 'rate-limited', `import: too many imports at once; try again in ${Math.ceil(waitMs / 1000)} s`);
    }
    const plan = planImport(body.file, { allowPrivate: app.config.allowPrivate, extraLabels: body.labels });
    if (plan.entries > MAX_IMPORT_ENTRIES) {
      throw new HttpError(413, 'too-many-bookmarks', `import: the file holds ${plan.entries} bookmarks; one import takes at most ${MAX_IMPORT_ENTRIES}: split the file`);
    }
    if (plan.entries === 0) {
      throw new HttpError(400, 'no-bookmarks', 'import: the file holds no bookmarks; send a browser\'s bookmark export (HTML), a CSV with a url column, or one URL per line');
    }
    const stored = app.seedLabels.importSeeds(plan.seeds, { depth: body.depth, scope: body.scope }, Date.now());
    if (stored.created.length > 0) app.crawler.notifySeeds();
    return {
      format: plan.format,
      entries: plan.entries,
      created: stored.created.length,
      merged: stored.merged.length + plan.duplicates,
      duplicates: plan.duplicates,
      refused: plan.refused,
      tookMs: Math.round(performance.now() - started),
    };
  });

  app.put<{ Params: { id: number }; Body: { labels: string[] } }>('/api/seeds/:id/labels', {
    schema: {
      params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
      body: {
        type: 'object',
        properties: { labels: { type: 'array', maxItems: MAX_LABELS_PER_SEED, items: { type: 'string', maxLength: 200 } } },
        required: ['labels'],
        additionalProperties: false,
      },
      response: { 200: { type: 'object', properties: { seed: seedSchema } }, '4xx': errorSchema },
    },
  }, async (request) => {
    const labels = checkLabels(request.body.labels);
    if (!app.seedLabels.setLabels(request.params.id, labels)) {
      throw new HttpError(404, 'unknown-seed', `labels: no seed ${request.params.id} (removed already?); see GET /api/seeds`);
    }
    return { seed: toApi(app.seeds.getSeed(request.params.id)!, app.config.crawlRefreshMs) };
  });

  app.get('/api/labels', {
    schema: {
      response: {
        200: { type: 'object', properties: { labels: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' }, seeds: { type: 'integer' } } } } } },
      },
    },
  }, async () => ({ labels: app.seedLabels.listLabels() }));
}
