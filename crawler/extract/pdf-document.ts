/**
 * A PDF's extracted text (pdf-runner.ts) as a page: its title is the document's own (Info /Title), else
 * its first page's heading-like line, else its first line, else its file name; its pages are joined
 * with a blank line, and where each starts is kept (in code points, as SQLite counts) so that a search
 * snippet can say which page it is from. Robots directives come from X-Robots-Tag (a PDF has no meta
 * tags). No links are followed from PDFs. Its headings are the first page's largest line and the lines of
 * any page that read as headings (lineHeadings, text-document.ts), so that they rank and complete as a web page's do. Pure.
 */
import type { ParsedPage } from '../common/protocol.ts';
import type { PdfText } from './pdf-runner.ts';
import { contentHash, headerDirectives, lineHeadings } from './text-document.ts';

const TITLE_MAX = 300;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const PAGE_JOIN = '\n\n';

function oneLine(text: string): string {
  return Array.from(text.replace(/\s+/g, ' ').trim()).slice(0, TITLE_MAX).join('');
}

/** Code points in a string (what SQLite's length() and instr() count). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/** The file name of a URL's path, decoded ('' for none). */
function fileName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    return decodeURIComponent(last);
  } catch {
    return '';
  }
}

/** Builds the page a PDF is stored as. */
export function pdfPage(
  input: { url: string; xRobotsTag: string | undefined; userAgent: string },
  pdf: PdfText,
): ParsedPage {
  const pages = pdf.pages.map((p) =>
    p
      .replace(CONTROL, ' ')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
  );
  const pageStarts: number[] = [];
  let offset = 0;
  const parts: string[] = [];
  pages.forEach((p, i) => {
    if (i > 0) offset += codePoints(PAGE_JOIN);
    pageStarts.push(offset);
    parts.push(p);
    offset += codePoints(p);
  });
  const text = parts.join(PAGE_JOIN);
  const firstLine =
    pages
      .find((p) => p !== '')
      ?.split('\n')
      .find((l) => l.trim() !== '') ?? '';
  const title = oneLine(pdf.title) || oneLine(pdf.heading) || oneLine(firstLine) || oneLine(fileName(input.url));
  const directives = headerDirectives(input.xRobotsTag, input.userAgent);
  return {
    finalUrl: input.url,
    fileType: 'pdf',
    pageStarts,
    title,
    description: '',
    headings: [oneLine(pdf.heading), ...lineHeadings(pages)].filter(
      (h, i, all) => h !== '' && h !== title && all.findIndex((o) => o.toLowerCase() === h.toLowerCase()) === i,
    ),
    text,
    lang: null,
    canonical: null,
    links: [],
    noindex: directives.noindex,
    nofollow: directives.nofollow,
    noarchive: directives.noarchive,
    nosnippet: directives.nosnippet,
    contentHash: contentHash(title, text),
  };
}
