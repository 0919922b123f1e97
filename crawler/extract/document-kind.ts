/**
 * Which documents the crawler reads, by their Content-Type: HTML (and untyped bodies, sniffed later),
 * PDF, plain text and Markdown (text/markdown, or text/plain at a .md/.markdown address). Anything else
 * (images, archives, media) is not read. Pure.
 */
import { isHtmlContentType } from '../common/charset.ts';
import type { FileType } from '../common/protocol.ts';

/** The media type without parameters, lower case ('' when absent). */
export function essence(contentType: string | undefined): string {
  if (!contentType) return '';
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** The kind of document a response is, or null for a type Lantern does not read. */
export function documentKind(contentType: string | undefined, url: string): FileType | null {
  const type = essence(contentType);
  if (type === '' || isHtmlContentType(contentType)) return 'html';
  if (type === 'application/pdf' || type === 'application/x-pdf') return 'pdf';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  if (type === 'text/plain') {
    let path = '';
    try {
      path = new URL(url).pathname.toLowerCase();
    } catch {
      path = '';
    }
    return /\.(md|markdown)$/.test(path) ? 'markdown' : 'text';
  }
  return null;
}
