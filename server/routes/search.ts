import type { FastifyInstance } from 'fastify';
import { errorSchema } from '../plugins/error-handler.ts';
import { BadQueryError, MAX_LIMIT, MAX_OFFSET, MAX_SUGGEST } from '../search/search-service.ts';
import { MAX_QUERY_CHARS } from '../search/query-parser.ts';
import type { SearchService } from '../search/search-service.ts';

const snippetSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { text: { type: 'string' }, match: { type: 'boolean' } },
    required: ['text', 'match'],
  },
} as const;

const resultSchema = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    title: { type: 'string' },
    host: { type: 'string' },
    snippet: snippetSchema,
    score: { type: 'number' },
    fetchedAt: { type: 'string' },
    stored: { type: 'boolean' },
    folded: { type: 'boolean' },
  },
  required: ['url', 'title', 'host', 'snippet', 'score', 'fetchedAt', 'stored', 'folded'],
} as const;

const searchResponseSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    total: { type: 'integer' },
    tookMs: { type: 'number' },
    mode: { type: 'string', enum: ['and', 'or'] },
    notice: { type: ['string', 'null'] },
    indexing: { type: 'boolean' },
    correction: {
      type: ['object', 'null'],
      properties: { query: { type: 'string' }, applied: { type: 'boolean' } },
      required: ['query', 'applied'],
    },
    results: { type: 'array', items: resultSchema },
  },
  required: ['query', 'total', 'tookMs', 'mode', 'notice', 'indexing', 'correction', 'results'],
} as const;

const suggestResponseSchema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    suggestions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          text: { type: 'string' }, kind: { type: 'string', enum: ['title', 'term'] }, url: { type: 'string' }, host: { type: 'string' },
        },
        required: ['text', 'kind'],
      },
    },
  },
  required: ['query', 'suggestions'],
} as const;

interface SearchQuery { q: string; limit: number; offset: number; correct: boolean }
interface SuggestQuery { q: string; limit: number; format: 'json' | 'opensearch' }

/** `q` as both routes take it: one text, at most MAX_QUERY_CHARS long (longer is a client's mistake, said as 400). */
const queryText = { type: 'string', maxLength: MAX_QUERY_CHARS, default: '' } as const;

/**
 * `GET /api/search` and `GET /api/suggest` (docs/api.md, Search). A query with nothing searchable
 * answers 400 `{error: 'bad-query', message}`; the query text itself is never refused for its
 * content (search-service.ts makes any text safe), only for its length, for being given twice, or
 * for limit/offset outside their ranges.
 */
export async function searchRoutes(app: FastifyInstance, opts: { search: SearchService }): Promise<void> {
  const search = opts.search;

  app.get<{ Querystring: SearchQuery }>('/api/search', {
    schema: {
      querystring: {
        type: 'object',
        properties: {
          q: queryText,
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 10 },
          offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
          correct: { type: 'boolean', default: true },
        },
      },
      response: { 200: searchResponseSchema, '4xx': errorSchema },
    },
  }, async (request, reply) => {
    const { q, limit, offset, correct } = request.query;
    try {
      return search.search(q, { limit, offset, correct });
    } catch (err) {
      if (err instanceof BadQueryError) return reply.code(400).send({ error: err.code, message: err.message });
      throw err;
    }
  });

  app.get<{ Querystring: SuggestQuery }>('/api/suggest', {
    schema: {
      querystring: {
        type: 'object',
        properties: {
          q: queryText,
          limit: { type: 'integer', minimum: 1, maximum: MAX_SUGGEST, default: 8 },
          format: { type: 'string', enum: ['json', 'opensearch'], default: 'json' },
        },
      },
      response: { 200: suggestResponseSchema, '4xx': errorSchema },
    },
  }, async (request, reply) => {
    const answer = search.suggest(request.query.q, request.query.limit);
    if (request.query.format !== 'opensearch') return answer;
    // OpenSearch suggestions (what a browser asks once Lantern is added as a search engine): [query, [texts]].
    return reply
      .type('application/x-suggestions+json; charset=utf-8')
      .send(JSON.stringify([answer.query, answer.suggestions.map((s) => s.text)]));
  });
}
