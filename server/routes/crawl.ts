import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import {
  CrawlStatusSchema,
  DiskStatusSchema,
  DomainInfoSchema,
  RequestLogEntrySchema,
  StorageStatusSchema,
} from '../../crawler/common/protocol.ts';
import { pageQueries } from '../../db/pages.ts';
import { storageFault } from '../../db/storage-error.ts';
import { NODE_STATES } from '../../db/pg/pg-cluster-view.ts';
import { CRAWLER_STATES, DOMAIN_SORT_KEYS, DOMAIN_STATES, SORT_DIRECTIONS } from '../../shared/enumerations.ts';
import { nullableString, stringEnum } from '../../shared/json-schema.ts';
import { ErrorBodySchema, HttpError } from '../plugins/error-handler.ts';
import { onInvalid } from '../plugins/strict-input.ts';
import { queryDomains } from '../domain-query.ts';
import { groupsOf, withLeases } from '../domain-leases.ts';

/**
 * The crawler nodes /api/status lists on PostgreSQL: heard from within a day, at most 50 (all of them counted);
 * alive if their heartbeat is within the lease length, CRAWL_LEASE_MS (as the crawler's lease loop counts them for
 * fair shares).
 */
export const NODE_LIST = { recentMs: 24 * 3600_000, limit: 50 };

/** A crawler node as /api/status lists it (db/pg/pg-cluster-view.ts ClusterNode): ages on the database's clock. */
export const CrawlNodeSchema = Type.Object({
  /** The node's id, as the node registered it (crawl_nodes.node_id). */
  node: Type.String(),
  /** alive: heartbeat within `aliveWithinMs`; silent: not, and it never left (stopped, or lost the database); left. */
  state: stringEnum(NODE_STATES),
  /** What its last heartbeat said it is doing. */
  doing: Type.String(),
  /** Politeness groups it holds an unexpired lease on. */
  groups: Type.Integer(),
  startedAgoMs: Type.Integer(),
  /** Milliseconds since its last heartbeat: for a silent node, how long it has been silent. */
  heartbeatAgoMs: Type.Integer(),
  leftAgoMs: Type.Union([Type.Integer(), Type.Null()]),
});
export type CrawlNode = Static<typeof CrawlNodeSchema>;

/**
 * The crawler nodes on PostgreSQL (issue 29). `answered` false: PostgreSQL did not answer (`storage` says why), and
 * the counts and list are empty, not zero nodes.
 */
export const ClusterStatusSchema = Type.Object({
  answered: Type.Boolean(),
  aliveWithinMs: Type.Integer(),
  alive: Type.Integer(),
  silent: Type.Integer(),
  left: Type.Integer(),
  nodes: Type.Array(CrawlNodeSchema),
});
export type ClusterStatus = Static<typeof ClusterStatusSchema>;

/** `GET /api/status`: the crawler's own figures (crawler/common/protocol.ts) with the server's. */
export const StatusSchema = Type.Object({
  /** Stored pages. */
  pages: Type.Integer(),
  /** Pages searchable. */
  indexed: Type.Integer(),
  ...CrawlStatusSchema.properties,
  crawler: stringEnum(CRAWLER_STATES),
  searchReady: Type.Boolean(),
  lastError: nullableString(),
  /** The disk budget: whether crawling is paused for want of room, and why (crawler/coordination/disk-budget.ts). */
  disk: DiskStatusSchema,
  /**
   * The database refusing Lantern, null while it is fine: on PostgreSQL "database unreachable since ...", as the
   * crawler reported it (its crawl paused), else as the server saw it (its statements, the search copy's feed);
   * on SQLite, a full disk or a read-only file as the crawler reported it.
   */
  storage: Type.Union([StorageStatusSchema, Type.Null()]),
  /** The crawler nodes on PostgreSQL; null on SQLite, where this server's own crawler is the only one. */
  cluster: Type.Union([ClusterStatusSchema, Type.Null()]),
});
export type Status = Static<typeof StatusSchema>;

/** Hosts one page of `GET /api/domains` holds at most, and by default. */
export const DOMAINS_PAGE = { max: 1000, default: 100 };

/** What `GET /api/domains` takes: a part of the host name, a state, a column and direction to sort by, and the page. */
export const DomainsQuerySchema = Type.Object({
  q: Type.String({
    maxLength: 300,
    default: '',
    ...onInvalid('invalid-query', 'q must be given once, as text of at most 300 characters'),
  }),
  state: Type.Optional(
    stringEnum(DOMAIN_STATES, onInvalid('invalid-query', `state must be one of ${DOMAIN_STATES.join(', ')}`)),
  ),
  sort: stringEnum(DOMAIN_SORT_KEYS, {
    default: 'host',
    ...onInvalid('invalid-query', `sort must be one of ${DOMAIN_SORT_KEYS.join(', ')}`),
  }),
  dir: stringEnum(SORT_DIRECTIONS, { default: 'asc', ...onInvalid('invalid-query', 'dir must be "asc" or "desc"') }),
  limit: Type.Integer({
    minimum: 1,
    maximum: DOMAINS_PAGE.max,
    default: DOMAINS_PAGE.default,
    ...onInvalid('invalid-query', `limit must be an integer from 1 to ${DOMAINS_PAGE.max}`),
  }),
  offset: Type.Integer({
    minimum: 0,
    maximum: 10_000_000,
    default: 0,
    ...onInvalid('invalid-query', 'offset must be an integer from 0 to 10000000'),
  }),
});
/** The query of `GET /api/domains` as a client writes it: every field may be left to its default. */
export type DomainsQuery = Partial<Static<typeof DomainsQuerySchema>>;

/** A group's lease as a Domains row carries it (server/domain-leases.ts): its owner node and ages, database clock. */
export const DomainLeaseSchema = Type.Object({
  node: Type.String(),
  /** Milliseconds the node has held the group; null if unknown. */
  heldForMs: Type.Union([Type.Integer(), Type.Null()]),
  /** Milliseconds until the lease ends; 0 or less: it expired and no other node has taken the group yet. */
  expiresInMs: Type.Integer(),
});

/** A host of `GET /api/domains`: the crawler's row, and on PostgreSQL its politeness group's lease (null: free). */
export const DomainRowSchema = Type.Object({
  ...DomainInfoSchema.properties,
  lease: Type.Optional(Type.Union([DomainLeaseSchema, Type.Null()])),
});
export type DomainRow = Static<typeof DomainRowSchema>;

/**
 * `GET /api/domains`: one page of hosts as the crawler reported them; `now` is the server's clock (for the
 * client's skew); `total` hosts match the query, `hosts` are known in all, `states` counts the hosts
 * matching `q` by state; `offset` and `limit` as applied.
 */
export const DomainsResponseSchema = Type.Object({
  domains: Type.Array(DomainRowSchema),
  /**
   * On PostgreSQL only (absent on SQLite, one crawler, no leases): `known`, each row's `lease` is as the database
   * answered; `unknown`, the database did not answer and every `lease` is null.
   */
  owners: Type.Optional(stringEnum(['known', 'unknown'] as const)),
  now: Type.String(),
  total: Type.Integer(),
  hosts: Type.Integer(),
  states: Type.Object(
    Object.fromEntries(DOMAIN_STATES.map((s) => [s, Type.Integer()])) as Record<
      (typeof DOMAIN_STATES)[number],
      ReturnType<typeof Type.Integer>
    >,
  ),
  offset: Type.Integer(),
  limit: Type.Integer(),
});
export type DomainsResponse = Static<typeof DomainsResponseSchema>;

/** `GET /api/domains/:host/requests`: the last requests to one host, oldest first. */
export const HostRequestsResponseSchema = Type.Object({
  host: Type.String(),
  requests: Type.Array(RequestLogEntrySchema),
});
export type HostRequestsResponse = Static<typeof HostRequestsResponseSchema>;

/** A host as GET /api/domains names it; its length is bounded by the router (maxParamLength). */
const HostParamsSchema = Type.Object({ host: Type.String() });

/**
 * `/api/status`, `/api/domains` and a host's request timeline: the crawler's live state, as it last reported it.
 * `/api/status` answers while PostgreSQL is out of reach too: its counts then are the search copy's, and `storage`
 * says what is wrong.
 */
export async function crawlRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  /** On PostgreSQL, the search copy's own pages (what search answers from), counted while PostgreSQL is out of reach. */
  let copyPages: ReturnType<typeof pageQueries> | undefined;
  const counts = async (): Promise<{ pages: number; indexed: number }> => {
    try {
      const answered = await app.pages.countPages();
      app.storageWatch.answered();
      return answered;
    } catch (err) {
      const fault = app.storageWatch.engine === 'postgres' ? storageFault(err, 'postgres') : null;
      if (fault === null || fault.engine !== 'postgres') throw err;
      app.storageWatch.failed(fault, Date.now());
      copyPages ??= pageQueries(app.db);
      return copyPages.countPages();
    }
  };

  /** Runs a read on PostgreSQL; null if PostgreSQL did not answer (noted for `storage`), any other error thrown. */
  const askPostgres = async <T>(read: () => Promise<T>): Promise<T | null> => {
    try {
      const answered = await read();
      app.storageWatch.answered();
      return answered;
    } catch (err) {
      const fault = storageFault(err, 'postgres');
      if (fault === null || fault.engine !== 'postgres') throw err;
      app.storageWatch.failed(fault, Date.now());
      return null;
    }
  };

  /** The crawler nodes on PostgreSQL (one statement), null on SQLite. */
  const cluster = async (): Promise<ClusterStatus | null> => {
    const view = app.clusterView;
    if (view === null) return null;
    const aliveWithinMs = app.config.crawlLeaseMs;
    const seen = await askPostgres(() => view.nodes({ ...NODE_LIST, aliveWithinMs }));
    return {
      answered: seen !== null,
      aliveWithinMs,
      ...(seen?.counts ?? { alive: 0, silent: 0, left: 0 }),
      nodes: seen?.nodes ?? [],
    };
  };

  app.get('/api/status', { schema: { response: { 200: StatusSchema } } }, async () => {
    const [{ pages, indexed }, nodes] = await Promise.all([counts(), cluster()]);
    return {
      pages,
      indexed,
      ...app.crawler.status,
      crawler: app.crawler.state,
      searchReady: app.searcher.ready,
      lastError: app.crawler.lastError,
      disk: app.crawler.disk,
      storage: app.crawler.storage ?? app.storageWatch.current(app.searchFeed?.status),
      cluster: nodes,
    };
  });

  app.get(
    '/api/domains',
    { schema: { querystring: DomainsQuerySchema, response: { 200: DomainsResponseSchema, '4xx': ErrorBodySchema } } },
    async (request) => {
      const page = queryDomains(app.crawler.domains, request.query);
      const answer = {
        ...page,
        now: new Date().toISOString(),
        offset: request.query.offset,
        limit: request.query.limit,
      };
      const view = app.clusterView;
      if (view === null) return answer;
      // One statement for the page's groups, however many hosts it shows.
      const leases = await askPostgres(() => view.leases(groupsOf(page.domains)));
      return {
        ...answer,
        domains: withLeases(page.domains, leases ?? []),
        owners: leases === null ? ('unknown' as const) : ('known' as const),
      };
    },
  );

  app.get(
    '/api/domains/:host/requests',
    {
      schema: { params: HostParamsSchema, response: { 200: HostRequestsResponseSchema, '4xx': ErrorBodySchema } },
    },
    async (request) => {
      const domain = app.crawler.domains.find((d) => d.host === request.params.host);
      if (!domain)
        throw new HttpError(
          404,
          'unknown-host',
          `no crawled host ${JSON.stringify(request.params.host)}; see GET /api/domains`,
        );
      return { host: domain.host, requests: await app.crawler.requests(domain.origin) };
    },
  );
}
