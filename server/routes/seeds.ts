import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { nextRefreshAt } from '../../crawler/frontier/refresh.ts';
import { checkUrl, MAX_URL_LENGTH } from '../../crawler/common/url.ts';
import { SEED_STATES, type SeedRow } from '../../db/seeds.ts';
import { SEED_SORTS } from '../../db/seed-list.ts';
import type { Config } from '../../shared/config.ts';
import { SCOPES, type Scope } from '../../shared/enumerations.ts';
import { nullableString, stringEnum } from '../../shared/json-schema.ts';
import { ErrorBodySchema, HttpError } from '../plugins/error-handler.ts';
import { onInvalid } from '../plugins/strict-input.ts';
import { RateLimiter } from '../rate-limiter.ts';
import { MAX_LABELS_PER_SEED } from '../../db/seed-labels.ts';
import { checkLabels } from '../capture/label-input.ts';
import { MAX_LABEL_CHARS, toLabel } from '../capture/label.ts';
import { MAX_FOLDER_PATH_CHARS } from '../capture/bookmark-entry.ts';
import { MAX_TITLE_CHARS } from '../capture/import-plan.ts';

/** How many seeds one client may submit, and as many it may remove: a burst of 60 (a pasted list), then one a second. */
export const SEED_RATE = { burst: 60, perSecond: 1 };

/** Defaults for a seed, in one place (docs/api.md, Seeds: `depth` 2, `scope` "host"). */
export const SEED_DEFAULTS = { depth: 2, scope: 'host' as Scope };

/** The refusal of a `url` that is not text (or is too long for any URL); the text itself is judged by checkUrl. */
export const URL_FIELD = onInvalid('malformed', 'url must be a string such as "https://example.org/"');

/** A seed as the API shows it (docs/api.md, `Seed`). */
export const SeedSchema = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  host: Type.String(),
  depth: Type.Integer(),
  scope: stringEnum(SCOPES),
  createdAt: Type.String(),
  /** URLs discovered under this seed. */
  found: Type.Integer(),
  /** Stored pages. */
  fetched: Type.Integer(),
  /** URLs waiting or in flight. */
  queued: Type.Integer(),
  /** URLs given up on. */
  failed: Type.Integer(),
  /** When the seed's own page was last fetched, or null. */
  lastCrawledAt: nullableString(),
  /** When the crawler will crawl it again on its own; null while it is crawled, before its first fetch, or with refresh off. */
  nextCrawlAt: nullableString(),
  /** When its crawl finished (its last URL, once something was found and nothing is left queued); null while it runs or before it starts. */
  doneAt: nullableString(),
  /** An imported bookmark's title (or one given with the seed), or null. */
  title: nullableString(),
  /** An imported bookmark's folder path ("Bookmarks bar / Dev"), or null. */
  folder: nullableString(),
  /** The seed's labels, sorted. */
  labels: Type.Array(Type.String()),
  /** Hosts its URLs are on, and the most it may reach (CRAWL_MAX_HOSTS_PER_SEED). */
  hosts: Type.Integer(),
  maxHosts: Type.Integer(),
  /** Links to further hosts not followed once it had its hosts, and the last host one led to. */
  hostsRefused: Type.Integer(),
  lastRefusedHost: nullableString(),
  /** crawling (or about to start), done, failed (its own page was not stored), removed (being undone). */
  state: stringEnum(SEED_STATES),
  /** Why a failed seed failed, in words ("... is larger than 5 MiB"); null unless failed. */
  failure: nullableString(),
});
export type Seed = Static<typeof SeedSchema>;

/**
 * A list of labels as a request sends them (POST /api/seeds, PUT /api/seeds/:id/labels, an import):
 * at most MAX_LABELS_PER_SEED strings. Whether each folds to a label is checkLabels' call (the
 * message names the one refused).
 */
export function labelListField(module: string, options: Record<string, unknown> = {}) {
  const refusal = onInvalid(
    'invalid-label',
    `${module}: labels must be an array of at most ${MAX_LABELS_PER_SEED} strings such as ["rust", "dev-tools"]`,
  );
  return Type.Array(Type.String({ maxLength: 200, ...refusal }), {
    maxItems: MAX_LABELS_PER_SEED,
    ...options,
    ...refusal,
  });
}

/** The body of `POST /api/seeds`; a missing url is refused by checkUrl (`missing`), like an empty one. */
export const NewSeedSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: 100_000, ...URL_FIELD })),
    depth: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10,
        ...onInvalid('invalid-depth', 'depth must be an integer from 0 to 10 (links followed from the seed)'),
      }),
    ),
    scope: Type.Optional(
      stringEnum(SCOPES, onInvalid('invalid-scope', 'scope must be "path", "host", "domain" or "any"')),
    ),
    /** The seed's title, as a bookmark's (cut to MAX_TITLE_CHARS characters; blank: none). */
    title: Type.Optional(
      Type.String({
        maxLength: 1000,
        ...onInvalid('invalid-title', 'seeds: title must be a string of at most 1000 characters'),
      }),
    ),
    labels: Type.Optional(labelListField('seeds')),
  },
  { additionalProperties: false },
);
export type NewSeed = Static<typeof NewSeedSchema>;

/** What `DELETE /api/seeds/:id` answers. */
export const RemovedSeedSchema = Type.Object({ removed: Type.Object({ id: Type.Integer(), url: Type.String() }) });
export type RemovedSeed = Static<typeof RemovedSeedSchema>['removed'];

/** Most seeds one `GET /api/seeds` answers; `offset` pages through the rest. */
export const MAX_SEED_PAGE = 500;
/**
 * The most one seed can weigh in a page of `GET /api/seeds` (JSON, bytes), from the caps on every text
 * field it returns: the URL (MAX_URL_LENGTH, ASCII once normalized), two host names (253 each), title
 * and folder (MAX_TITLE_CHARS, MAX_FOLDER_PATH_CHARS code points, at most 6 bytes each as JSON), labels
 * (MAX_LABELS_PER_SEED of MAX_LABEL_CHARS letters, 4 bytes each), and 1 KiB of numbers, dates and names.
 * A page weighs at most MAX_SEED_PAGE times this: about 5.7 MiB, whatever a file held.
 */
export const MAX_SEED_JSON_BYTES =
  MAX_URL_LENGTH +
  2 * 253 +
  6 * (MAX_TITLE_CHARS + MAX_FOLDER_PATH_CHARS) +
  MAX_LABELS_PER_SEED * (4 * MAX_LABEL_CHARS + 3) +
  1024;
/** The furthest `offset` of `GET /api/seeds` (past any import's size, several times over). */
export const MAX_SEED_OFFSET = 1_000_000;

/** The most characters of a search within seeds (`q`). */
export const MAX_SEED_QUERY_CHARS = 200;

/**
 * The query of `GET /api/seeds`: a search within titles, URLs and labels (`q`), one label's seeds, one
 * state's, in an order (newest first by default), and which page of them. Anything else is refused.
 */
export const SeedListQuerySchema = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: MAX_SEED_QUERY_CHARS,
        ...onInvalid(
          'invalid-query',
          `seeds: q must be given once, as text of at most ${MAX_SEED_QUERY_CHARS} characters`,
        ),
      }),
    ),
    label: Type.Optional(
      Type.String({
        maxLength: 200,
        ...onInvalid('invalid-query', 'seeds: label must be given once, as text of at most 200 characters'),
      }),
    ),
    state: Type.Optional(
      stringEnum(
        SEED_STATES,
        onInvalid(
          'invalid-query',
          `seeds: state must be one of ${SEED_STATES.join(', ')} (or left out for all live seeds)`,
        ),
      ),
    ),
    sort: Type.Optional(
      stringEnum(SEED_SORTS, onInvalid('invalid-query', `seeds: sort must be one of ${SEED_SORTS.join(', ')}`)),
    ),
    limit: Type.Integer({
      minimum: 1,
      maximum: MAX_SEED_PAGE,
      default: MAX_SEED_PAGE,
      ...onInvalid('invalid-query', `seeds: limit must be an integer from 1 to ${MAX_SEED_PAGE}`),
    }),
    offset: Type.Integer({
      minimum: 0,
      maximum: MAX_SEED_OFFSET,
      default: 0,
      ...onInvalid('invalid-query', `seeds: offset must be an integer from 0 to ${MAX_SEED_OFFSET}`),
    }),
  },
  {
    additionalProperties: false,
    ...onInvalid('invalid-query', 'seeds: the query takes q, label, state, sort, limit and offset only'),
  },
);
export type SeedListQuery = Static<typeof SeedListQuerySchema>;

/** What `GET /api/seeds` answers: one page of seeds, and how many there are in all (with the label, if one was given). */
export const SeedListSchema = Type.Object({ seeds: Type.Array(SeedSchema), total: Type.Integer() });
export type SeedList = Static<typeof SeedListSchema>;

/** What `POST /api/seeds` and `PUT /api/seeds/:id/labels` answer: the seed as it now is. */
export const SeedAnswerSchema = Type.Object({ seed: SeedSchema });
/** A seed's id in a path (`/api/seeds/:id`, `/api/seeds/:id/labels`). */
export const SeedIdSchema = Type.Object({
  id: Type.Integer({
    minimum: 1,
    ...onInvalid('invalid-id', 'the seed id must be a whole number from 1 up, as GET /api/seeds lists it'),
  }),
});

/** Most seeds one `POST /api/seeds/bulk` acts on (two full pages of the list). */
export const MAX_BULK_SEEDS = 2 * MAX_SEED_PAGE;

const BULK_IDS = onInvalid(
  'invalid-ids',
  `seeds: ids must be an array of 1 to ${MAX_BULK_SEEDS} seed ids (whole numbers from 1)`,
);

/** The body of `POST /api/seeds/bulk`: one action on the seeds selected, with the labels to add or take off. */
export const BulkSeedSchema = Type.Object(
  {
    action: stringEnum(
      ['remove', 'crawl', 'label', 'unlabel'] as const,
      onInvalid('invalid-action', 'seeds: action must be "remove", "crawl", "label" or "unlabel"'),
    ),
    ids: Type.Array(Type.Integer({ minimum: 1, ...BULK_IDS }), { minItems: 1, maxItems: MAX_BULK_SEEDS, ...BULK_IDS }),
    labels: Type.Optional(labelListField('seeds')),
  },
  {
    additionalProperties: false,
    ...onInvalid(
      'invalid-body',
      'seeds: send a JSON object such as {"action": "label", "ids": [1, 2], "labels": ["rust"]}',
    ),
  },
);
export type BulkSeedRequest = Static<typeof BulkSeedSchema>;

/** What `POST /api/seeds/bulk` answers: the action, and how many live seeds it changed. */
export const BulkSeedAnswerSchema = Type.Object({ action: Type.String(), count: Type.Integer() });
export type BulkSeedAnswer = Static<typeof BulkSeedAnswerSchema>;

/**
 * A seed as the API shows it. `nextCrawlAt`: when the crawler will crawl it again on its own
 * (CRAWL_REFRESH and its site's offset after its last crawl; null while it is being crawled, or with refresh off); `maxHosts`: CRAWL_MAX_HOSTS_PER_SEED.
 * `doneAt`: when its crawl finished (nothing left queued), null while it runs or before it starts.
 */
export function toApi(seed: SeedRow, config: Pick<Config, 'crawlRefreshMs' | 'crawlMaxHostsPerSeed'>): Seed {
  const last = seed.lastCrawledAt;
  const next = nextRefreshAt(
    { origin: seed.origin, lastFetchedAt: last, pending: seed.queued > 0 },
    config.crawlRefreshMs,
  );
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
    doneAt:
      seed.queued === 0 && seed.found > 0 && seed.lastFinishedAt !== null
        ? new Date(seed.lastFinishedAt).toISOString()
        : null,
    title: seed.title,
    folder: seed.folder,
    labels: seed.labels,
    hosts: seed.hosts,
    maxHosts: config.crawlMaxHostsPerSeed,
    hostsRefused: seed.hostsRefused,
    lastRefusedHost: seed.lastRefusedHost,
    state: seed.state,
    failure: seed.failure,
  };
}

/** Refuses a client that changes seeds faster than SEED_RATE allows: 429 with Retry-After. */
function throttle(limiter: RateLimiter, request: FastifyRequest, what: string, now: number): void {
  const waitMs = limiter.take(request.ip, now);
  if (waitMs === 0) return;
  const seconds = Math.ceil(waitMs / 1000);
  throw new HttpError(429, 'rate-limited', `too many ${what} at once; try again in ${seconds} s`, {
    'retry-after': String(seconds),
  });
}

/**
 * `POST /api/seeds`, `GET /api/seeds` and `DELETE /api/seeds/:id`: what a person asks Lantern to crawl
 * (server/routes/capture.ts has imports and labels).
 * Removing only marks the seed; the crawler primary (the single writer of URLs and pages) undoes its work.
 */
export async function seedRoutes(fastify: FastifyInstance, opts: { now?: () => number } = {}): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const now = opts.now ?? Date.now; // the rate limits' clock (tests drive it)
  const adding = new RateLimiter(SEED_RATE.burst, SEED_RATE.perSecond);
  const removing = new RateLimiter(SEED_RATE.burst, SEED_RATE.perSecond);

  app.post(
    '/api/seeds',
    {
      bodyLimit: 16 * 1024,
      schema: {
        body: NewSeedSchema,
        response: { 200: SeedAnswerSchema, 201: SeedAnswerSchema, '4xx': ErrorBodySchema },
      },
    },
    async (request, reply) => {
      throttle(adding, request, 'seeds', now());
      const checked = checkUrl(request.body.url, { allowPrivate: app.config.allowPrivate });
      if (!checked.ok) throw new HttpError(400, checked.code, checked.message);
      const labels = checkLabels(request.body.labels ?? []);
      const title = request.body.title?.trim();
      const { seed, created } = await app.seeds.upsertSeed(
        {
          url: checked.url,
          origin: checked.origin,
          depth: request.body.depth ?? SEED_DEFAULTS.depth,
          scope: request.body.scope ?? SEED_DEFAULTS.scope,
          ...(title ? { title: Array.from(title).slice(0, MAX_TITLE_CHARS).join('') } : {}),
        },
        Date.now(),
      );
      if (labels.length > 0) await app.seedLabels.addLabels(seed.id, labels);
      app.crawler.notifySeeds();
      const stored = labels.length > 0 ? (await app.seeds.getSeed(seed.id))! : seed;
      return reply.code(created ? 201 : 200).send({ seed: toApi(stored, app.config) });
    },
  );

  app.delete(
    '/api/seeds/:id',
    {
      schema: { params: SeedIdSchema, response: { 200: RemovedSeedSchema, '4xx': ErrorBodySchema } },
    },
    async (request) => {
      throttle(removing, request, 'removals', now());
      const removed = await app.seeds.markSeedRemoved(request.params.id, Date.now());
      if (!removed)
        throw new HttpError(
          404,
          'unknown-seed',
          `seeds: no seed ${request.params.id} (removed already?); see GET /api/seeds`,
        );
      app.crawler.notifySeeds();
      return { removed };
    },
  );

  app.post(
    '/api/seeds/bulk',
    {
      bodyLimit: 64 * 1024,
      schema: { body: BulkSeedSchema, response: { 200: BulkSeedAnswerSchema, '4xx': ErrorBodySchema } },
    },
    async (request) => {
      const { action, ids } = request.body;
      // One request is one change, however many seeds: it takes one of the removals' tokens.
      throttle(removing, request, 'changes', now());
      const labels = checkLabels(request.body.labels ?? []);
      if ((action === 'label' || action === 'unlabel') && labels.length === 0)
        throw new HttpError(400, 'invalid-label', `seeds: ${action} needs labels, such as {"labels": ["rust"]}`);
      const count = await app.seedBulk.applyToSeeds(action, ids, labels, Date.now());
      if (action === 'remove' || action === 'crawl') app.crawler.notifySeeds();
      return { action, count };
    },
  );

  app.get(
    '/api/seeds',
    {
      schema: { querystring: SeedListQuerySchema, response: { 200: SeedListSchema, '4xx': ErrorBodySchema } },
    },
    async (request) => {
      const { limit, offset, q, state, sort } = request.query;
      // A label that folds to nothing is no label any seed carries: an empty list, not every seed.
      const label = request.query.label === undefined ? undefined : (toLabel(request.query.label) ?? '');
      const found = await app.seedList.findSeeds({ query: q, label, state, sort, limit, offset });
      return { seeds: found.seeds.map((s) => toApi(s, app.config)), total: found.total };
    },
  );
}
