/**
 * The limits of a PDF's extraction: the crawler primary sends them to its workers in WorkerSettings
 * (protocol.ts; crawler/fetch/fetch-limits.ts fills them in), a worker's PDF thread keeps to them
 * (crawler/extract/pdf-runner.ts). A setting of the protocol, so it stands on the floor below both sides.
 */

/** The limits of one PDF extraction, in one place (the worker gets them in WorkerSettings). */
export interface PdfLimits {
  /** Longest a document may take, thread start included. */
  timeoutMs: number;
  /** The thread's V8 heap (old generation), MiB. */
  heapMb: number;
  /** Resident memory the crawler worker may grow by while one document is read (heap and buffers), MiB. */
  memoryMb: number;
  /** Pages read at most (the rest are left out, the text says so by its length). */
  maxPages: number;
  /** Characters of text read at most. */
  maxChars: number;
}

export const PDF_LIMITS: PdfLimits = {
  timeoutMs: 60_000,
  heapMb: 192,
  memoryMb: 320,
  maxPages: 2000,
  maxChars: 1_000_000,
};
