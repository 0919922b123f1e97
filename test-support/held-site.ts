/**
 * Sites whose answers wait for the test: a test orders what happens (this page is answered only once
 * that has happened) instead of hoping a machine is fast or slow enough for its scenario to occur.
 */
import type { PageSpec, SiteSpec } from './test-web.ts';

/**
 * Decides, for the `n`th page request a held site received (1 for its first; robots.txt and unknown
 * paths are not counted), what its answer waits for: a promise (answered once it settles), or
 * undefined (answered at once).
 */
export type HoldRule = (path: string, n: number) => Promise<unknown> | undefined;

/**
 * `spec` with every page's answer held as `hold` decides. The pages must be plain (a string body or a
 * PageSpec without a handler or delay): each is answered as test-web would answer it, only later. A
 * promise that rejects makes the answer a dropped connection (the test's own wait failed).
 */
export function heldSite(spec: SiteSpec, hold: HoldRule): SiteSpec {
  let n = 0;
  const pages: Record<string, PageSpec> = {};
  for (const [path, page] of Object.entries(spec.pages)) {
    const p: PageSpec = typeof page === 'string' ? { body: page } : page;
    if (p.handler || p.delayMs)
      throw new Error(`held-site: page ${path} has its own handler or delay; give heldSite plain pages`);
    pages[path] = {
      handler: (_req, res) => {
        const wait = hold(path, ++n);
        const send = (): void => {
          if (res.destroyed || res.writableEnded) return;
          const body = typeof p.body === 'string' ? Buffer.from(p.body) : (p.body ?? Buffer.alloc(0));
          const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
          for (const [name, value] of Object.entries(p.headers ?? {})) headers[name.toLowerCase()] = value;
          headers['content-length'] ??= String(body.length);
          res.writeHead(p.status ?? 200, headers).end(body);
        };
        if (wait === undefined) send();
        else wait.then(send, () => res.destroy());
      },
    };
  }
  return { ...spec, pages };
}
