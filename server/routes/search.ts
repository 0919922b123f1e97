import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { stringEnum } from '../../shared/json-schema.ts';
import { ErrorBodySchema } from '../plugins/error-handler.ts';
import { onInvalid } from '../plugins/strict-input.ts';
import { BadQueryError, MAX_LIMIT, MAX_OFFSET, MAX_SUGGEST } from '../search/search-service.ts';
import { MAX_QUERY_CHARS } from '../search/query-parser.ts';
import { OpenSearchSuggestionsSchema, SearchResponseSchema, SuggestResponseSchema } from '../search/types.ts';
import { capSearchResponse, capSuggestResponse } from '../search/result-caps.ts';

/** `q` as both routes take it: one text, at most MAX_QUERY_CHARS long (longer is a client's mistake, said as 400). */
const queryText = Type.String({
  maxLength: MAX_QUERY_CHARS,
  default: '',
  ...onInvalid('invalid-query', `q must be given once, as text of at most ${MAX_QUERY_CHARS} characters`),
});

/** `limit` of results or suggestions: a whole number from 1 to `max`. */
function limitOf(max: number, fallback: number) {
  return Type.Integer({
    minimum: 1,
    maximum: max,
    default: fallback,
    ...onInvalid('invalid-query', `limit must be an integer from 1 to ${max}`),
  });
}

const SearchQuerySchema = Type.Object({
  q: queryText,
  limit: limitOf(MAX_LIMIT, 10),
  offset: Type.Integer({
    minimum: 0,
    maximum: MAX_OFFSET,
    default: 0,
    ...onInvalid('invalid-query', `offset must be an integer from 0 to ${MAX_OFFSET}`),
  }),
  /** "false": the words as typed, never a spelling correction in their place (docs/api.md, Spelling); text, as query strings are. */
  correct: stringEnum(['true', 'false'], {
    default: 'true',
    ...onInvalid('invalid-query', 'correct must be "true" or "false" (false: search the words as typed)'),
  }),
});

const SuggestQuerySchema = Type.Object({
  q: queryText,
  limit: limitOf(MAX_SUGGEST, 8),
  format: stringEnum(['json', 'opensearch'], {
    default: 'json',
    ...onInvalid('invalid-query', 'format must be "json" or "opensearch"'),
  }),
});

/**
 * `GET /api/search` and `GET /api/suggest` (docs/api.md, Search). A query with nothing searchable
 * answers 400 `{error: 'bad-query', message}`; the query text itself is never refused for its
 * content (search-service.ts makes any text safe), only for its length, for being given twice, or
 * for limit/offset outside their ranges (or a `correct` other than true/false). The search service is the
 * one the services plugin put on the app (`app.searcher`), as every other route reaches it.
 */
export async function searchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const search = fastify.searcher;

  app.get(
    '/api/search',
    {
      schema: { querystring: SearchQuerySchema, response: { 200: SearchResponseSchema, '4xx': ErrorBodySchema } },
    },
    async (request, reply) => {
      const { q, limit, offset, correct } = request.query;
      try {
        return capSearchResponse(search.search(q, { limit, offset, correct: correct === 'true' })); // what one page may put on the screen
      } catch (err) {
        if (err instanceof BadQueryError) return reply.code(400).send({ error: err.code, message: err.message });
        throw err;
      }
    },
  );

  app.get(
    '/api/suggest',
    {
      schema: {
        querystring: SuggestQuerySchema,
        response: {
          200: {
            content: {
              'application/json': { schema: SuggestResponseSchema },
              'application/x-suggestions+json': { schema: OpenSearchSuggestionsSchema },
            },
          },
          '4xx': ErrorBodySchema,
        },
      },
    },
    async (request, reply) => {
      const answer = capSuggestResponse(search.suggest(request.query.q, request.query.limit));
      if (request.query.format !== 'opensearch') return answer;
      // OpenSearch suggestions (what a browser asks once Lantern is added as a search engine): [query, [texts]].
      return reply
        .type('application/x-suggestions+json; charset=utf-8')
        .send([answer.query, answer.suggestions.map((s) => s.text)]);
    },
  );
}
