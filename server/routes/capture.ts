import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { IMPORT_FORMATS, SCOPES, type Scope } from '../../shared/enumerations.ts';
import { stringEnum } from '../../shared/json-schema.ts';
import { ErrorBodySchema, HttpError } from '../plugins/error-handler.ts';
import { onInvalid } from '../plugins/strict-input.ts';
import { RateLimiter } from '../rate-limiter.ts';
import { MAX_IMPORT_ENTRIES } from '../capture/import-plan.ts';
import { ImportLimitError, planImportInThread } from '../capture/import-runner.ts';
import { checkLabels } from '../capture/label-input.ts';
import { labelListField, SeedAnswerSchema, SeedIdSchema, toApi } from './seeds.ts';

/** How many imports one client may send: ten at once, then one every 5 s (each may hold thousands of seeds); a refused body does not count. */
export const IMPORT_RATE = { burst: 10, perSecond: 0.2 };
/** An import's own defaults: each bookmark is just that page (depth 0), on its host. */
export const IMPORT_DEFAULTS = { depth: 0, scope: 'host' as Scope };
/** The import route's body limit: a 10,000-bookmark export with favicons fits (the app's default stays 64 KiB). */
export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

/**
 * The body of `POST /api/seeds/import`, read strictly (no coercion: `"2"` is not a depth, a number is
 * not a file). Whether each label folds to a label is checkLabels' call.
 */
export const ImportRequestSchema = Type.Object(
  {
    file: Type.String({
      pattern: '\\S',
      ...onInvalid(
        'invalid-file',
        'import: file must be the text of a bookmark export (HTML), a CSV with a url column, or one URL per line',
      ),
    }),
    depth: Type.Integer({
      minimum: 0,
      maximum: 10,
      default: IMPORT_DEFAULTS.depth,
      ...onInvalid('invalid-depth', 'import: depth must be an integer from 0 to 10 (0: just the bookmarked page)'),
    }),
    scope: stringEnum(SCOPES, {
      default: IMPORT_DEFAULTS.scope,
      ...onInvalid('invalid-scope', 'import: scope must be "path", "host", "domain" or "any"'),
    }),
    labels: labelListField('import', { default: [] }),
  },
  {
    additionalProperties: false,
    ...onInvalid(
      'invalid-body',
      'import: send a JSON object such as {"file": "<the bookmark file\'s text>", "depth": 0, "scope": "host"}',
    ),
  },
);
/** What a client sends to import (depth, scope and labels may be left out: IMPORT_DEFAULTS, no labels). */
export type ImportRequest = Partial<Static<typeof ImportRequestSchema>> & { file: string };

/** A bookmark that did not become a seed, with the URL code `POST /api/seeds` would answer for it. */
export const ImportRefusalSchema = Type.Object({
  /** The line of the file the bookmark starts on (1-based). */
  line: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  error: Type.String(),
  message: Type.String(),
});
export type ImportRefusal = Static<typeof ImportRefusalSchema>;

/** What `POST /api/seeds/import` did. */
export const ImportResultSchema = Type.Object({
  format: stringEnum(IMPORT_FORMATS),
  /** Bookmarks read from the file. */
  entries: Type.Integer(),
  /** New seeds. */
  created: Type.Integer(),
  /** Bookmarks whose URL was a seed already, or repeated in the file. */
  merged: Type.Integer(),
  /** Bookmarks repeated in the file. */
  duplicates: Type.Integer(),
  refused: Type.Array(ImportRefusalSchema),
  tookMs: Type.Number(),
});
export type ImportResult = Static<typeof ImportResultSchema>;

/** The body of `PUT /api/seeds/:id/labels`: the seed's labels, all of them. */
export const SeedLabelsSchema = Type.Object(
  {
    labels: labelListField('labels'),
  },
  {
    additionalProperties: false,
    ...onInvalid('invalid-body', 'labels: send a JSON object such as {"labels": ["rust", "dev-tools"]}'),
  },
);
export type SeedLabels = Static<typeof SeedLabelsSchema>;

/** A label and how many live seeds carry it. */
export const LabelCountSchema = Type.Object({ label: Type.String(), seeds: Type.Integer() });
export type LabelCount = Static<typeof LabelCountSchema>;
/** What `GET /api/labels` answers: every label in use, by name. */
export const LabelListSchema = Type.Object({ labels: Type.Array(LabelCountSchema) });
export type LabelList = Static<typeof LabelListSchema>;

/** An import's plan, read in a thread (import-runner.ts); a file past the thread's caps is the client's 413/422. */
async function planInThread(file: string, opts: { allowPrivate: boolean; extraLabels: string[] }) {
  try {
    return await planImportInThread(file, { ...opts, maxEntries: MAX_IMPORT_ENTRIES });
  } catch (err) {
    if (err instanceof ImportLimitError)
      throw new HttpError(err.code === 'import-memory' ? 413 : 422, err.code, err.message);
    throw err;
  }
}

/**
 * `POST /api/seeds/import` (a bookmark export or a list of URLs becomes seeds), `PUT /api/seeds/:id/labels`
 * and `GET /api/labels`: what a person keeps and how they file it. The server writes only seeds and labels;
 * the crawler picks the new seeds up as it does any seed.
 */
export async function captureRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const limiter = new RateLimiter(IMPORT_RATE.burst, IMPORT_RATE.perSecond);

  app.post(
    '/api/seeds/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: { body: ImportRequestSchema, response: { 200: ImportResultSchema, '4xx': ErrorBodySchema } },
    },
    async (request) => {
      const started = performance.now();
      const body = request.body;
      const labels = checkLabels(body.labels);
      // After the body was read and found sound: a refused body does not count against the client.
      const waitMs = limiter.take(request.ip, Date.now());
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        throw new HttpError(429, 'rate-limited', `import: too many imports at once; try again in ${seconds} s`, {
          'retry-after': String(seconds),
        });
      }
      const plan = await planInThread(body.file, { allowPrivate: app.config.allowPrivate, extraLabels: labels });
      if (plan.more) {
        throw new HttpError(
          413,
          'too-many-bookmarks',
          `import: the file holds more than ${MAX_IMPORT_ENTRIES} bookmarks; one import takes at most ${MAX_IMPORT_ENTRIES}: split the file`,
        );
      }
      if (plan.entries === 0) {
        throw new HttpError(
          400,
          'no-bookmarks',
          "import: the file holds no bookmarks; send a browser's bookmark export (HTML), a CSV with a url column, or one URL per line",
        );
      }
      const stored = await app.seedLabels.importSeeds(plan.seeds, { depth: body.depth, scope: body.scope }, Date.now());
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
    },
  );

  app.put(
    '/api/seeds/:id/labels',
    {
      schema: {
        params: SeedIdSchema,
        body: SeedLabelsSchema,
        response: { 200: SeedAnswerSchema, '4xx': ErrorBodySchema },
      },
    },
    async (request) => {
      const labels = checkLabels(request.body.labels);
      if (!(await app.seedLabels.setLabels(request.params.id, labels))) {
        throw new HttpError(
          404,
          'unknown-seed',
          `labels: no seed ${request.params.id} (removed already?); see GET /api/seeds`,
        );
      }
      return { seed: toApi((await app.seeds.getSeed(request.params.id))!, app.config) };
    },
  );

  app.get('/api/labels', { schema: { response: { 200: LabelListSchema } } }, async () => ({
    labels: await app.seedLabels.listLabels(),
  }));
}
