// Typed client for Lantern's JSON API (docs/api.md). Every call takes an optional AbortSignal so that
// views can cancel stale requests; every failure becomes an ApiError carrying the server's code and message.
import { announceSignedOut } from './signed-out.ts';

// Every shape of the API is the server's own, taken from the schema that validates or serializes it
// (type-only imports: nothing of the server is bundled). This file declares none of its own.
export type { CrawlerState, DelaySource, DomainState, Scope } from '../../shared/enumerations.ts';
export type {
  Status,
  ClusterStatus,
  CrawlNode,
  DomainsQuery,
  DomainsResponse,
  DomainRow as Domain,
  HostRequestsResponse,
} from '../../server/routes/crawl.ts';
export type {
  Seed,
  NewSeed,
  RemovedSeed,
  SeedList,
  SeedListQuery,
  BulkSeedRequest,
  BulkSeedAnswer,
} from '../../server/routes/seeds.ts';
export type { ImportRequest, ImportResult, ImportRefusal, LabelCount, LabelList } from '../../server/routes/capture.ts';
export type { StoredPage } from '../../server/routes/pages.ts';
export type {
  Correction,
  SnippetPiece,
  SearchResponse,
  SearchResult,
  Suggestion,
  SuggestResponse,
} from '../../server/search/types.ts';
export type {
  RobotsInfo,
  RequestLogEntry as HostRequest,
} from '../../crawler/common/protocol.ts';
export type { ErrorBody } from '../../server/plugins/error-handler.ts';
export type { Session } from '../../server/routes/session.ts';
import type { DomainsQuery, DomainsResponse, HostRequestsResponse, Status } from '../../server/routes/crawl.ts';
import type {
  BulkSeedAnswer,
  BulkSeedRequest,
  NewSeed,
  RemovedSeed,
  Seed,
  SeedList,
  SeedListQuery,
} from '../../server/routes/seeds.ts';
import type { ImportRequest, ImportResult, LabelCount, LabelList } from '../../server/routes/capture.ts';
import type { StoredPage } from '../../server/routes/pages.ts';
import type { SearchResponse, SuggestResponse } from '../../server/search/types.ts';
import type { ErrorBody } from '../../server/plugins/error-handler.ts';

/** A failed API call: `code` is the API's error code (or `network`/`http-<status>`), `message` is for people. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, message: string, status: number) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
  }
}

/** True when an error only means the request was cancelled on purpose. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** Drops the module prefix the server puts on messages ("url: ...") and capitalizes the rest, for display. */
export function forPeople(message: string): string {
  const text = message.replace(/^[a-z][a-z-]{0,30}: (?=\S)/, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await requestWithStatus<T>(path, init)).body;
}

async function requestWithStatus<T>(path: string, init: RequestInit): Promise<{ status: number; body: T }> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers: { accept: 'application/json', ...init.headers } });
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError('network', 'The server cannot be reached.', 0);
  }
  let body: unknown = null;
  try {
    body = await response.json();
  } catch (error) {
    if (isAbort(error)) throw error;
    body = null;
  }
  if (!response.ok) {
    if (response.status === 401) announceSignedOut(); // the app shows the sign-in page
    const err = (body ?? {}) as Partial<Record<keyof ErrorBody, unknown>>;
    const code = typeof err.error === 'string' ? err.error : `http-${response.status}`;
    const message =
      typeof err.message === 'string' && err.message !== ''
        ? forPeople(err.message)
        : `The server answered ${response.status} ${response.statusText}`.trim();
    throw new ApiError(code, message, response.status);
  }
  if (body === null) throw new ApiError('bad-response', 'The server sent an answer that is not JSON.', response.status);
  return { status: response.status, body: body as T };
}

/** Fetches crawl-wide counters. */
export function getStatus(signal?: AbortSignal): Promise<Status> {
  return request<Status>('/api/status', { signal });
}

/** Runs a search; `offset` counts results, not pages; `correct` false searches the words as typed. */
export function search(
  q: string,
  offset: number,
  limit: number,
  signal?: AbortSignal,
  correct = true,
): Promise<SearchResponse> {
  const params = new URLSearchParams({ q, limit: String(limit), offset: String(offset) });
  if (!correct) params.set('correct', 'false');
  return request<SearchResponse>(`/api/search?${params}`, { signal });
}

/** Fetches as-you-type suggestions for a prefix. */
export function suggest(q: string, signal?: AbortSignal, limit = 8): Promise<SuggestResponse> {
  const params = new URLSearchParams({ q, limit: String(limit) });
  return request<SuggestResponse>(`/api/suggest?${params}`, { signal });
}

/** Lists seeds, newest first: the first 500, and how many there are. */
export function listSeeds(signal?: AbortSignal): Promise<SeedList> {
  return request<SeedList>('/api/seeds', { signal });
}

/** Adds (or re-submits) a seed; `created` is false when the URL was already a seed and got updated. */
export async function addSeed(seed: NewSeed, signal?: AbortSignal): Promise<{ seed: Seed; created: boolean }> {
  const { status, body } = await requestWithStatus<{ seed: Seed }>('/api/seeds', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(seed),
    signal,
  });
  return { seed: body.seed, created: status === 201 };
}

/** Removes a seed: the crawler stops fetching what it found, and its pages leave search. */
export async function removeSeed(id: Seed['id'], signal?: AbortSignal): Promise<RemovedSeed> {
  return (
    await request<{ removed: RemovedSeed }>(`/api/seeds/${encodeURIComponent(String(id))}`, {
      method: 'DELETE',
      signal,
    })
  ).removed;
}

/** The text Lantern stored for a searchable page. */
export async function storedPage(url: string, signal?: AbortSignal): Promise<StoredPage> {
  return (await request<{ page: StoredPage }>(`/api/pages?${new URLSearchParams({ url })}`, { signal })).page;
}

/** One page of the known hosts with their crawl state, filtered and sorted by the server (docs/api.md, Domains). */
export function listDomains(query: DomainsQuery = {}, signal?: AbortSignal): Promise<DomainsResponse> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return request<DomainsResponse>(`/api/domains${search === '' ? '' : `?${search}`}`, { signal });
}

/** Fetches the last requests made to one host (oldest first). */
export function hostRequests(host: string, signal?: AbortSignal): Promise<HostRequestsResponse> {
  return request<HostRequestsResponse>(`/api/domains/${encodeURIComponent(host)}/requests`, { signal });
}

/** Imports a bookmark export (or a list of URLs) as seeds. */
export function importBookmarks(body: ImportRequest, signal?: AbortSignal): Promise<ImportResult> {
  return request<ImportResult>('/api/seeds/import', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

/** Sets a seed's labels; answers the seed as it now is. */
export async function setSeedLabels(id: Seed['id'], labels: string[], signal?: AbortSignal): Promise<Seed> {
  return (
    await request<{ seed: Seed }>(`/api/seeds/${encodeURIComponent(String(id))}/labels`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ labels }),
      signal,
    })
  ).seed;
}

/** Every label in use, with how many seeds carry it. */
export async function listLabels(signal?: AbortSignal): Promise<LabelCount[]> {
  return (await request<LabelList>('/api/labels', { signal })).labels;
}

/** One page of the seeds library: searched, filtered and sorted by the server (docs/api.md, GET /api/seeds). */
export function findSeeds(query: Partial<SeedListQuery>, signal?: AbortSignal): Promise<SeedList> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return request<SeedList>(`/api/seeds${search === '' ? '' : `?${search}`}`, { signal });
}

/** One action on many seeds in one request (remove, crawl again, label, unlabel); answers how many it changed. */
export function bulkSeeds(body: BulkSeedRequest, signal?: AbortSignal): Promise<BulkSeedAnswer> {
  return request<BulkSeedAnswer>('/api/seeds/bulk', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

/** Lists the seeds carrying a label, newest first (the first 500, and how many there are). */
export function listSeedsWithLabel(label: string, signal?: AbortSignal): Promise<SeedList> {
  return request<SeedList>(`/api/seeds?${new URLSearchParams({ label })}`, { signal });
}
