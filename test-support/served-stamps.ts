/**
 * Sites whose every page answer carries a stamp naming that one answer (a serial number, in the page's text), and
 * a book of the answers given: which site, which path, to which User-Agent, when. A test then reads a stored page's
 * stamp and knows exactly which request's answer was stored, so "a node that lost a group wrote no result for it"
 * is checked from the record itself, not inferred. A hook sees each answer before it is sent (a test may act at
 * that moment: pause the node that asked, say).
 */
import type http from 'node:http';
import { now, type PageSpec, type SiteSpec } from './test-web.ts';

/** A page that cannot be stamped (not plain HTML); the message names it. */
export class ServedStampsError extends Error {
  override readonly name = 'ServedStampsError';
}

/** One page answer a stamped site gave. */
export interface ServedAnswer {
  /** Its stamp's serial: the index in `ServedBook.answers`. */
  serial: number;
  /** The site's label (as given to `stamp`). */
  site: string;
  path: string;
  userAgent: string;
  /** When the answer was made (test-web's clock), just before it was sent. */
  at: number;
}

/** Called with each answer just before it is sent, synchronously. */
export type ServeHook = (answer: ServedAnswer) => void;

/** The word in a page's text that carries the serial of its answer: `servedanswer<serial>x`. */
const STAMP = /servedanswer(\d+)x/;

/** The answers of every site stamped by one book, and the way to stamp a site. */
export class ServedBook {
  readonly answers: ServedAnswer[] = [];
  private hook: ServeHook | undefined;

  /** Sets (or clears) the hook called before each answer is sent. */
  onServe(hook: ServeHook | undefined): void {
    this.hook = hook;
  }

  /**
   * `spec` with each page answered with a stamp of its own in its text (before `</body>`), after the spec's delay
   * (defaultDelayMs). The pages must be plain: a string body or a PageSpec with a string body, no handler.
   */
  stamp(label: string, spec: SiteSpec): SiteSpec {
    const pages: Record<string, PageSpec> = {};
    for (const [path, page] of Object.entries(spec.pages)) {
      const p: PageSpec = typeof page === 'string' ? { body: page } : page;
      if (p.handler !== undefined || (p.body !== undefined && typeof p.body !== 'string'))
        throw new ServedStampsError(
          `served-stamps: page ${path} of ${label} is not plain HTML; stamp plain pages only`,
        );
      const html = (p.body as string | undefined) ?? '';
      pages[path] = { delayMs: p.delayMs, handler: (req, res) => this.answer(label, path, html, req, res) };
    }
    return { ...spec, pages };
  }

  /** The answer whose stamp a stored page's text holds, or undefined if it holds none. */
  answerOf(text: string): ServedAnswer | undefined {
    const m = STAMP.exec(text);
    return m === null ? undefined : this.answers[Number(m[1])];
  }

  private answer(site: string, path: string, html: string, req: http.IncomingMessage, res: http.ServerResponse) {
    const a: ServedAnswer = {
      serial: this.answers.length,
      site,
      path,
      userAgent: req.headers['user-agent'] ?? '',
      at: now(),
    };
    this.answers.push(a);
    this.hook?.(a);
    const mark = `<p>servedanswer${a.serial}x</p>`;
    const body = html.includes('</body>') ? html.replace('</body>', `${mark}\n</body>`) : html + mark;
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  }
}
