/**
 * Which methods the app's routes answer for a path, so that a request for a known path with another
 * method is told `405` and what to use instead, not `404 no route`. Pure: the error handler fills it
 * from Fastify's onRoute hook and asks it when no route matched. Patterns as Fastify writes them:
 * static segments, `:name` parameters (one non-empty segment each), and a final `*` (the rest).
 */
export class RouteMethods {
  private readonly routes: Array<{ segments: string[]; methods: Set<string> }> = [];

  /** Records that `pattern` (such as `/api/seeds/:id`) answers `method` (one or several). */
  add(method: string | readonly string[], pattern: string): void {
    const segments = pattern.split('/');
    let route = this.routes.find((r) => r.segments.join('/') === segments.join('/'));
    if (route === undefined) {
      route = { segments, methods: new Set() };
      this.routes.push(route);
    }
    for (const m of typeof method === 'string' ? [method] : method) route.methods.add(m.toUpperCase());
  }

  /** The methods some route answers for `path` (no query string), sorted; empty when no route has that path. */
  allowed(path: string): string[] {
    const parts = path.split('/');
    const methods = new Set<string>();
    for (const route of this.routes) {
      if (matches(route.segments, parts)) for (const m of route.methods) methods.add(m);
    }
    return [...methods].sort();
  }
}

function matches(pattern: readonly string[], parts: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i];
    if (want === '*' && i === pattern.length - 1) return true;
    if (i >= parts.length) return false;
    if (want.startsWith(':')) {
      if (parts[i] === '') return false;
    } else if (want !== parts[i]) {
      return false;
    }
  }
  return pattern.length === parts.length;
}
