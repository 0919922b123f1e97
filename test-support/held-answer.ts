/**
 * An answer a test site holds open until the test releases it: a test proves that something happened while a
 * request hung (another site crawled meanwhile) by ordering events, not by hoping the hang lasts long enough
 * on a loaded machine. The hold has its own limit, so a test that never releases it still ends.
 */
import type http from 'node:http';

/** What a held answer sends once released (a 200 text/plain body unless told otherwise). */
export interface HeldAnswerSpec {
  /** Longest the answer waits for `release` (ms); then it is sent anyway. */
  limitMs: number;
  body: string;
  status?: number;
  headers?: Record<string, string>;
}

/** A held answer: the handler to serve it with, and the events around it. */
export interface HeldAnswer {
  /** The site's handler (test-web.ts PageSpec.handler); every request is held until release or the limit. */
  handler(req: http.IncomingMessage, res: http.ServerResponse): void;
  /** Resolves when the hold ended by its own limit, not by `release` (never, if released first). */
  readonly timedOut: Promise<void>;
  /** Sends the answer to every request held now and answers later requests at once. */
  release(): void;
  /** How the hold ended: 'released' by the test, its 'limit', or undefined while it holds. */
  readonly endedBy: 'released' | 'limit' | undefined;
}

/** A held answer (see the module comment). */
export function heldAnswer(spec: HeldAnswerSpec): HeldAnswer {
  const waiting: http.ServerResponse[] = [];
  let endedBy: 'released' | 'limit' | undefined;
  let timedOut!: () => void;
  const timedOutP = new Promise<void>((resolve) => {
    timedOut = resolve;
  });
  const send = (res: http.ServerResponse): void => {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(spec.status ?? 200, { 'content-type': 'text/plain', ...spec.headers }).end(spec.body);
  };
  let limit: NodeJS.Timeout | undefined;
  const end = (how: 'released' | 'limit'): void => {
    if (endedBy !== undefined) return;
    endedBy = how;
    clearTimeout(limit);
    for (const res of waiting.splice(0)) send(res);
    if (how === 'limit') timedOut();
  };
  return {
    handler(_req, res) {
      if (endedBy !== undefined) return send(res);
      waiting.push(res);
      limit ??= setTimeout(() => end('limit'), spec.limitMs);
    },
    timedOut: timedOutP,
    release: () => end('released'),
    get endedBy() {
      return endedBy;
    },
  };
}
