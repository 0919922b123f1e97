/**
 * The body of `POST /api/seeds/import`, checked strictly (no coercion: "2" is not a depth, a number is
 * not a file): `{"file": string, "depth"?: 0..10, "scope"?: "path"|"host"|"domain"|"any", "labels"?: string[]}`.
 * Pure: a bad body throws HttpError 400 with the code and what to send instead.
 */
import type { Scope } from '../../db/seeds.ts';
import { HttpError } from '../plugins/error-handler.ts';
import { checkLabels } from './label-input.ts';

/** An import's own defaults: each bookmark is just that page (depth 0), on its host. */
export const IMPORT_DEFAULTS = { depth: 0, scope: 'host' as Scope };
/** The import route's body limit: a 10,000-bookmark export with favicons fits (the app's default stays 64 KiB). */
export const IMPORT_BODY_LIMIT = 32 * 1024 * 1024;

/** A checked import request. */
export interface ImportRequest {
  file: string;
  depth: number;
  scope: Scope;
  labels: string[];
}

const FIELDS = new Set(['file', 'depth', 'scope', 'labels']);
const SCOPES = new Set<string>(['path', 'host', 'domain', 'any']);

function bad(code: string, message: string): never {
  throw new HttpError(400, code, `import: ${message}`);
}

/** Checks an import body; throws HttpError 400 (invalid-body, invalid-file, invalid-depth, invalid-scope, invalid-label). */
export function parseImportBody(body: unknown): ImportRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    bad('invalid-body', 'send a JSON object such as {"file": "<the bookmark file\'s text>", "depth": 0, "scope": "host"}');
  }
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (!FIELDS.has(key)) bad('invalid-body', `unknown field "${key.slice(0, 50)}"; send file, depth, scope and labels only`);
  }
  if (typeof b.file !== 'string' || b.file.trim() === '') {
    bad('invalid-file', 'file must be the text of a bookmark export (HTML), a CSV with a url column, or one URL per line');
  }
  const depth = b.depth ?? IMPORT_DEFAULTS.depth;
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 0 || depth > 10) {
    bad('invalid-depth', 'depth must be an integer from 0 to 10 (0: just the bookmarked page)');
  }
  const scope = b.scope ?? IMPORT_DEFAULTS.scope;
  if (typeof scope !== 'string' || !SCOPES.has(scope)) bad('invalid-scope', 'scope must be "path", "host", "domain" or "any"');
  const labels = b.labels ?? [];
  if (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string')) bad('invalid-label', 'labels must be an array of strings');
  return { file: b.file, depth, scope: scope as Scope, labels: checkLabels(labels as string[]) };
}
