/**
 * Runs one PDF's extraction in a worker thread (pdf-thread.mjs), so that a hostile document costs the
 * crawler worker bounded time and memory and never its life: the thread gets a V8 heap limit
 * (`resourceLimits`), and the process's resident memory is watched while it reads (typed arrays live
 * outside that heap, and a thread's buffers do not show in the process's own `arrayBuffers` count: a
 * decompression bomb would otherwise grow them freely); it is terminated when it passes either, or the
 * time cap. One
 * document at a time per crawler worker: the others wait their turn, while the worker's own event loop
 * (its other fetches) runs on. Every failure is a FetchFailure ('fatal': the URL is marked failed with
 * the reason, the host is not backed off). Like the fetcher, this is I/O wiring (threads, timers).
 */
import { Worker } from 'node:worker_threads';
import { describeBytes, FetchFailure } from '../common/fetch-failure.ts';
import { projectPath } from '../../shared/project-root.ts';
import { PDF_LIMITS, type PdfLimits } from '../common/pdf-limits.ts';

export { PDF_LIMITS, type PdfLimits } from '../common/pdf-limits.ts';

/** What the thread found in a document. */
export interface PdfText {
  /** The document's own title (its Info dictionary), '' when it has none. */
  title: string;
  /** The first page's line printed largest, '' when it has no text. */
  heading: string;
  /** The text of each page read, in order. */
  pages: string[];
  pageCount: number;
  /** Fewer pages were read than the document has (maxPages or maxChars reached). */
  truncated: boolean;
}

type PdfThreadAnswer = ({ ok: true } & PdfText) | { ok: false; name: string; message: string };

/**
 * The thread's file, run as it is (plain JavaScript) from the sources, also by the build: a bundle in
 * dist/ is not beside it (see shared/project-root.ts).
 */
const THREAD = projectPath('crawler/extract/pdf-thread.mjs');
/** How often buffer memory is looked at while a thread runs. */
const WATCH_MS = 50;

let queue: Promise<unknown> = Promise.resolve();

/** Reads a PDF's text in a thread of its own, one document at a time; throws FetchFailure when it cannot. */
export function extractPdf(data: Uint8Array, where: string, limits: PdfLimits = PDF_LIMITS): Promise<PdfText> {
  const run = queue.then(() => runThread(data, where, limits));
  queue = run.catch(() => undefined); // the next document waits for this one, whatever became of it
  return run;
}

function failure(code: string, message: string): FetchFailure {
  return new FetchFailure('fatal', code, `pdf: ${message}`);
}

/** The reason for a thread's own error answer, in words. */
function readFailure(where: string, name: string, message: string): FetchFailure {
  if (name === 'PasswordException')
    return failure('pdf-encrypted', `${where} is encrypted with a password; its text cannot be read`);
  if (name === 'InvalidPDFException')
    return failure('pdf-broken', `${where} is not a readable PDF (${message}): truncated or damaged`);
  if (name === 'RangeError' || /call stack/i.test(message))
    return failure('pdf-broken', `${where} nests its objects too deeply to be read (${message})`);
  return failure('pdf-broken', `${where} could not be read: ${name}: ${message}`);
}

function runThread(data: Uint8Array, where: string, limits: PdfLimits): Promise<PdfText> {
  return new Promise((resolve, reject) => {
    const copy = new Uint8Array(data); // a buffer of its own, handed over to the thread
    const baseline = process.memoryUsage.rss();
    const thread = new Worker(THREAD, {
      workerData: { data: copy, maxPages: limits.maxPages, maxChars: limits.maxChars },
      transferList: [copy.buffer],
      execArgv: [], // not the process's own (--import tsx would load the TypeScript loader into the thread first)
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true, // pdf.js may print warnings: they are not the crawler's output
      stderr: true,
    });
    thread.stdout.resume();
    thread.stderr.resume();
    let settled = false;
    const finish = (err: FetchFailure | null, text?: PdfText): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      void thread.terminate();
      if (err) reject(err);
      else resolve(text!);
    };
    const timer = setTimeout(
      () =>
        finish(
          failure(
            'pdf-timeout',
            `${where} took longer than ${limits.timeoutMs / 1000} s to read (${describeBytes(data.length)}); stopped`,
          ),
        ),
      limits.timeoutMs,
    );
    const watch = setInterval(() => {
      const grown = process.memoryUsage.rss() - baseline;
      if (grown > limits.memoryMb * 1024 * 1024) {
        finish(
          failure(
            'pdf-memory',
            `${where} needed more than ${limits.memoryMb} MiB of memory to read (a compression bomb?); stopped`,
          ),
        );
      }
    }, WATCH_MS);
    thread.on('message', (answer: PdfThreadAnswer) => {
      if (answer.ok)
        finish(null, {
          title: answer.title,
          heading: answer.heading,
          pages: answer.pages,
          pageCount: answer.pageCount,
          truncated: answer.truncated,
        });
      else finish(readFailure(where, answer.name, answer.message));
    });
    thread.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        finish(failure('pdf-memory', `${where} needed more than ${limits.heapMb} MiB of memory to read; stopped`));
      } else finish(readFailure(where, err.name, err.message));
    });
    thread.on('exit', (code) =>
      finish(failure('pdf-broken', `the reader of ${where} stopped (exit code ${code}) before it answered`)),
    );
  });
}
