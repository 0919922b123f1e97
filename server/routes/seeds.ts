import type { FastifyInstance } from 'fastify';
import { nextRefreshAt } from '../../crawler/frontier/refresh.ts';
import { checkUrl } from '../../crawler/frontier/url.ts';
import type { Scope, SeedRow } from '../../db/seeds.ts';
import { errorSchema, HttpError } from '../plugins/error-handler.ts';
import { RateLimiter } from '../rate-limiter.ts';

/** How many seeds one client may submit: a burst of 60 (a pasted list), then one a second. */
export const SEED_RATE = { burst: 60, perSecond: 1 };

/** Defaults for a seed, in one place (../shared/API.md). */
export const SEED_DEFAULTS = { depth: 2, scope: 'host' as Scope };

const seedSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    url: { type: 'string' },
    host: { type: 'string' },
    depth: { type: 'integer' },
    scope: { type: 'string' },
    createdAt: { type: 'string' },
    found: { type: 'integer' },
    fetched: { type: 'integer' },
    queued: { type: 'integer' },
    failed: { type: 'integer' },
    lastCrawledAt: { type: ['string', 'null'] },
    nextCrawlAt: { type: ['string', 'null'] },
    doneAt: { type: ['string', 'null'] },
  },
  required: ['id', 'url', 'depth', 'scope', 'createdAt'],
} as const;

/**
 * A seed as the API shows it. `nextCrawlAt`: when the crawler will crawl it again on its own
 * (CRAWL_REFRESH after its last crawl; null while it is being crawled, or with refresh off).
 * `doneAt`: when its crawl finished (nothing left queued), null while it runs or before it starts.
 */
function toApi(seed: SeedRow, refreshMs: number) {
  const last = seed.lastCrawledAt;
  const next = nextRefreshAt({ lastFetchedAt: last, pending: seed.queued > 0 }, refreshMs);
  return {
    id: seed.id,
    url: seed.url,
    host: new URL(seed.url).host,
    depth: seed.depth,
    scope: seed.scope,
    createdAt: new Date(seed.createdAt).toISOString(),
    found: seed.found,
    fetched: seed.fetched,
    queued: seed.queued,
    failed: seed.failed,
    lastCrawledAt: last === null ? null : new Date(last).toISOString(),
    nextCrawlAt: next === null ? null : new Date(next).toISOString(),
    // Done: something was found and nothing is left queued; when its last URL was finished.
    doneAt: seed.queued === 0 && seed.found > 0 && seed.lastFinishedAt !== null ? new Date(seed.lastFinishedAt).toISOString() : null,
  };
}

interface SeedBody { url?: string; depth?: number; scope?: Scope }

/**
 * `POST /api/seeds`, `GET /api/seeds` and `DELETE /api/seeds/:id`: what a person asks Lantern to crawl.
 * Removing only marks the seed; the crawler primary (the single writer of URLs and pages) undoes its work.
 */
export async function seedRoutes(app: FastifyInstance): Promise<void> {
  const limiter = new RateLimiter(SEED_RATE.burst, SEED_RATE.perSecond);
  app.post<{ Body: SeedBody }>('/api/seeds', {
    bodyLimit: 16 * 1024,
    schema: {
      body: {
        type: 'object',
        properties: {
          url: { type: 'string', maxLength: 100_000 },
          depth: { type: 'integer', minimum: 0, maximum: 10 },
          scope: { type: 'string', enum: ['path', 'host', 'domain', 'any'] },
        },
        additionalProperties: false,
      },
      response: { 200: { type: 'object', properties: { seed: seedSchema } }, 201: { type: 'object', properties: { seed: seedSchema } }, '4xx': errorSchema },
    },
  }, async (request, reply) => {
    const waitMs = limiter.take(request.ip, Date.now());
    if (waitMs > 0) {
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw new HttpError(429, 'rate-limited', `too many seeds at once; try again in ${Math.ceil(waitMs / 1000)} s`);
    }
    const checked = checkUrl(request.body.url, { allowPrivate: app.config.allowPrivate });
    if (!checked.ok) throw new HttpError(400, checked.code, checked.message);
    const { seed, created } = app.seeds.upsertSeed({
      url: checked.url,
      origin: checked.origin,
      depth: request.body.depth ?? SEED_DEFAULTS.depth,
      scope: request.body.scope ?? SEED_DEFAULTS.scope,
    }, Date.now());
    app.crawler.notifySeeds();
    return reply.code(created ? 201 : 200).send({ seed: toApi(seed, app.config.crawlRefreshMs) });
  });

  app.delete<{ Params: { id: number } }>('/api/seeds/:id', {
    schema: {
      params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
      response: {
        200: { type: 'object', properties: { removed: { type: 'object', properties: { id: { type: 'integer' }, url: { type: 'string' } } } } },
        '4xx': errorSchema,
      },
    },
  }, async (request) => {
    const removed = app.seeds.markSeedRemoved(request.params.id, Date.now());
    if (!removed) throw new HttpError(404, 'unknown-seed', `seeds: no seed ${request.params.id} (removed already?); see GET /api/seeds`);
    app.crawler.notifySeeds();
    return { removed };
  });

  app.get('/api/seeds', {
    schema: { response: { 200: { type: 'object', properties: { seeds: { type: 'array', items: seedSchema } } } } },
  }, async () => ({ seeds: app.seeds.listSeeds().map((s) => toApi(s, app.config.crawlRefreshMs)) }));
}
