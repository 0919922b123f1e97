/**
 * The search warm-up at a server's start (SearchService.warmUp; server/main.ts starts it after the
 * title index). At 1M pages a restarted server's first searches were about twice as slow as the same
 * searches again: each word of a query ranking among many matches is first asked whether it is common
 * (common-terms.ts), and that costs a read of the word's whole posting list (40-130 ms for a word in a
 * third of the pages; FTS5 does not seek to the newest rows for the sample), once per word per
 * COMMON_TTL_MS; and the index's pages were not in the OS page cache yet.
 *
 * A worker thread (term-scan-thread.mjs, its own read-only connection: the event loop and the
 * server's connection stay free, searches answer meanwhile as before) reads the index's vocabulary
 * once in order, which brings its pages into the page cache, and reports the WARM_TERMS index words in
 * the most pages; warm-verdicts.ts decides which are common from their counts, as the rule would, and
 * the verdicts are remembered as if searches had asked (CandidateLists.rememberCommon, under the index
 * word, so every spelling that stems to it finds them). The list's fewest pages also bound every other
 * word's (CandidateLists.rememberCeiling): such a word is not common without a count. I/O wiring.
 */
import { Worker } from 'node:worker_threads';
import { projectPath } from '../../shared/project-root.ts';
import { SAMPLE_ROWS } from './common-terms.ts';
import { countedVerdicts, planVerdicts } from './warm-verdicts.ts';
import type { ScannedWord, VerdictPlan } from './warm-verdicts.ts';

/** How many of the most common words the warm-up decides (two verdicts each; CommonTerms keeps 5000). */
export const WARM_TERMS = 1000;

/** What a finished warm-up did. */
export interface WarmUpReport {
  /** From the thread's start to the last verdict remembered. */
  ms: number;
  /** Index words read (the WARM_TERMS in the most pages). */
  words: number;
  /** Verdicts remembered, and how many of them say common. */
  verdicts: number;
  common: number;
}

/** Where the warm-up's verdicts go: the index's page count now, and the verdicts' keeper. */
export interface WarmUpTarget {
  pageCount(): number;
  rememberCommon(key: string, common: boolean): void;
  /** The index words read, and the pages every other index word is in at most. */
  rememberCeiling(words: Iterable<string>, pages: number): void;
}

type ThreadMessage =
  | { type: 'terms'; terms: ScannedWord[] }
  | { type: 'counts'; counts: Array<[number, number]> }
  | { type: 'failed'; message: string };

/** A warm-up under way: `done` settles with its report (undefined when stopped first); `stop` ends its thread. */
export interface WarmUp {
  done: Promise<WarmUpReport | undefined>;
  stop(): void;
}

/**
 * Starts the warm-up of the database file `file` (see the file comment); `maxTerms` defaults to
 * WARM_TERMS. `done` rejects with a `term-warm-up:` error when the thread fails: searches then
 * decide as they go, as without a warm-up.
 */
export function startWarmUp(file: string, target: WarmUpTarget, maxTerms = WARM_TERMS): WarmUp {
  const started = performance.now();
  const thread = new Worker(projectPath('server/search/term-scan-thread.mjs'), {
    workerData: { file, maxTerms },
    execArgv: [], // plain JavaScript: no loader needed
  });
  let stopped = false;
  const done = new Promise<WarmUpReport | undefined>((resolve, reject) => {
    let words = 0;
    let pages = 0;
    let ask: VerdictPlan['ask'] = [];
    let verdicts = 0;
    let common = 0;
    const remember = (list: Array<[string, boolean]>) => {
      for (const [e, c] of list) {
        target.rememberCommon(e, c);
        verdicts++;
        if (c) common++;
      }
    };
    const fail = (why: string) =>
      reject(new Error(`term-warm-up: ${why}; searches decide which words are common as they go (slower at first)`));
    thread.on('message', (m: ThreadMessage) => {
      if (m.type === 'failed') fail(`the warm-up thread failed: ${m.message}`);
      else if (m.type === 'terms') {
        words = m.terms.length;
        pages = target.pageCount();
        // The words in the most pages, most first: any word left off is in no more pages than the last.
        target.rememberCeiling(
          m.terms.map(([word]) => word),
          words < maxTerms ? 0 : Math.min(...m.terms.map(([, doc]) => doc)),
        );
        const plan = planVerdicts(m.terms, pages);
        remember(plan.known);
        ask = plan.ask;
        thread.postMessage({
          expressions: ask.map((a) => a.expression),
          rows: Math.min(SAMPLE_ROWS, pages),
          cap: Math.ceil(pages / 2),
        });
      } else {
        remember(countedVerdicts(ask, m.counts, pages));
        resolve({ ms: performance.now() - started, words, verdicts, common });
      }
    });
    thread.on('error', (err) => fail(`the warm-up thread failed: ${err.message}`));
    thread.on('exit', (code) => {
      if (stopped) resolve(undefined);
      else fail(`the warm-up thread ended (exit code ${code}) before it answered`);
    });
  });
  return {
    done,
    stop: () => {
      stopped = true;
      void thread.terminate();
    },
  };
}
