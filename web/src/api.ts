// Typed client for Lantern's JSON API (docs/api.md). Every call takes an optional AbortSignal so that
// views can cancel stale requests; every failure becomes an ApiError carrying the server's code and message.

/** Crawler process state as reported by `/api/status`. */
export type CrawlerState = 'starting' | 'running' | 'restarting' | 'stopped';

/** `GET /api/status`: crawl-wide counters. */
export interface Status {
  pages: number;
  indexed: number;
  queued: number;
  inFlight: number;
  workers: number;
  fetchRatePerMin: number;
  crawler: CrawlerState;
  searchReady: boolean;
  lastError: string | null;
}

/** How far a seed's crawl may wander from the seed's host. */
export type Scope = 'path' | 'host' | 'domain' | 'any';

/** A seed URL with its crawl progress. */
export interface Seed {
  id: number | string;
  url: string;
  host: string;
  depth: number;
  scope: Scope;
  createdAt: string;
  found: number;
  fetched: number;
  queued: number;
  failed: number;
  /** When the seed's own page was last fetched, or null. */
  lastCrawledAt: string | null;
  /** When the crawler will crawl it again on its own; null while it is crawled or with refresh off. */
  nextCrawlAt: string | null;
  /** When its crawl finished (nothing left queued), or null while it runs or before it started. */
  doneAt: string | null;
}

// The search shapes are the server's own types (type-only imports: nothing of the server is bundled).
export type { SnippetPiece } from '../../server/search/snippet.ts';
export type { Correction, SearchResponse, SearchResult, Suggestion, SuggestResponse } from '../../server/search/types.ts';
import type { SearchResponse, SuggestResponse } from '../../server/search/types.ts';

// So are the crawler's per-host shapes (crawler/coordination/protocol.ts).
export type { DelaySource, DomainInfo as Domain, DomainState, RobotsInfo, RequestLogEntry as HostRequest } from '../../crawler/coordination/protocol.ts';
import type { DomainInfo as Domain, RequestLogEntry as HostRequest } from '../../crawler/coordination/protocol.ts';

/** `GET /api/domains` response; `now` is the server's clock, used to correct client clock skew. */
export interface DomainsResponse {
  domains: Domain[];
  now: string;
}

/** `GET /api/domains/:host/requests` response (oldest first). */
export interface HostRequestsResponse {
  host: string;
  requests: HostRequest[];
}

/** A page's stored text (`GET /api/pages?url=`): what Lantern indexed, as plain text. */
export interface StoredPage {
  url: string;
  finalUrl: string;
  host: string;
  title: string;
  description: string;
  headings: string[];
  text: string;
  /** The text was longer than the answer carries. */
  truncated: boolean;
  lang: string | null;
  status: number;
  fetchedAt: string;
}

/** Body of `POST /api/seeds`. */
export interface NewSeed {
  url: string;
  depth?: number;
  scope?: Scope;
}

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
    const err = (body ?? {}) as { error?: unknown; message?: unknown };
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
export function search(q: string, offset: number, limit: number, signal?: AbortSignal, correct = true): Promise<SearchResponse> {
  const params = new URLSearchParams({ q, limit: String(limit), offset: String(offset) });
  if (!correct) params.set('correct', 'false');
  return request<SearchResponse>(`/api/search?${params}`, { signal });
}

/** Fetches as-you-type suggestions for a prefix. */
export function suggest(q: string, signal?: AbortSignal, limit = 8): Promise<SuggestResponse> {
  const params = new URLSearchParams({ q, limit: String(limit) });
  return request<SuggestResponse>(`/api/suggest?${params}`, { signal });
}

/** Lists seeds, newest first. */
export async function listSeeds(signal?: AbortSignal): Promise<Seed[]> {
  return (await request<{ seeds: Seed[] }>('/api/seeds', { signal })).seeds;
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
export async function removeSeed(id: Seed['id'], signal?: AbortSignal): Promise<{ id: number; url: string }> {
  return (await request<{ removed: { id: number; url: string } }>(`/api/seeds/${encodeURIComponent(String(id))}`, { method: 'DELETE', signal })).removed;
}

/** The text Lantern stored for a searchable page. */
export async function storedPage(url: string, signal?: AbortSignal): Promise<StoredPage> {
  return (await request<{ page: StoredPage }>(`/api/pages?${new URLSearchParams({ url })}`, { signal })).page;
}

/** Lists every known host with its crawl state. */
export function listDomains(signal?: AbortSignal): Promise<DomainsResponse> {
  return request<DomainsResponse>('/api/domains', { signal });
}

/** Fetches the last requests made to one host (oldest first). */
export function hostRequests(host: string, signal?: AbortSignal): Promise<HostRequestsResponse> {
  return request<HostRequestsResponse>(`/api/domains/${encodeURIComponent(host)}/requests`, { signal });
}
