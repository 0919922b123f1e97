// @ts-check
/**
 * The worker thread that reads one PDF with pdfjs-dist (Mozilla's PDF.js, legacy build for Node: pure
 * JavaScript, no native build, maintained). It is plain JavaScript on purpose: a thread started through
 * the TypeScript loader took seconds and 80 MB of heap before reading a byte; this starts in a fraction of
 * that. crawler/extract/pdf-runner.ts starts it with memory limits and a time cap and kills it when either
 * is passed; this file only reads the document and posts what it found (PdfThreadAnswer in pdf-runner.ts):
 * per-page text, the document's title, and the first page's heading-like line.
 */
import { parentPort, workerData } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json')));
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');

/** @typedef {{ str: string, hasEOL: boolean, height: number }} Item */

/** The line of the first page printed largest (ties: the first), as a title when the document has none. */
function headingLine(/** @type {Item[]} */ items) {
  const lines = [];
  let text = '';
  let height = 0;
  for (const item of items) {
    text += item.str;
    if (item.str.trim() !== '') height = Math.max(height, item.height);
    if (item.hasEOL) {
      lines.push({ text: text.trim(), height });
      text = '';
      height = 0;
    }
    if (lines.length >= 40) break;
  }
  if (text.trim() !== '') lines.push({ text: text.trim(), height });
  let best;
  for (const line of lines) {
    if (line.text.length < 2 || line.text.length > 200) continue;
    if (best === undefined || line.height > best.height) best = line;
  }
  return best === undefined ? '' : best.text;
}

async function read() {
  const { data, maxPages, maxChars } = workerData;
  const doc = await pdfjs.getDocument({
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    cMapUrl: `${pkg}/cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${pkg}/standard_fonts/`,
  }).promise;
  let title = '';
  try {
    const meta = await doc.getMetadata();
    const info = /** @type {{ Title?: unknown }} */ (meta.info ?? {});
    if (typeof info.Title === 'string') title = info.Title;
  } catch {
    title = ''; // a document whose metadata cannot be read still has its text
  }
  const pages = [];
  let chars = 0;
  let heading = '';
  const last = Math.min(doc.numPages, maxPages);
  for (let n = 1; n <= last && chars < maxChars; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const items = /** @type {Item[]} */ (content.items.filter((i) => 'str' in i));
    let text = '';
    for (const item of items) text += item.hasEOL ? `${item.str}\n` : item.str;
    if (n === 1) heading = headingLine(items);
    pages.push(text);
    chars += text.length;
    page.cleanup();
  }
  const pageCount = doc.numPages;
  await doc.destroy();
  return { ok: true, title, heading, pages, pageCount, truncated: pages.length < pageCount };
}

read().then(
  (answer) => parentPort?.postMessage(answer),
  (err) =>
    parentPort?.postMessage({ ok: false, name: String(err?.name ?? 'Error'), message: String(err?.message ?? err) }),
);
