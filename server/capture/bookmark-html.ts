/**
 * Reads the Netscape bookmark file every browser exports (Chrome, Edge, Firefox, Safari): a `<DL>` list
 * whose `<DT><H3>` items are folders (each followed by its own `<DL>`) and whose `<DT><A HREF>` items are
 * bookmarks. The format is loose HTML (no closing `</DT>`, stray `<p>`), so it is read as a stream of the
 * few tags that matter rather than as a document: a folder name waits for the `<DL>` that opens it, and
 * `</DL>` closes the innermost folder. An unbalanced file never throws: extra `</DL>` are ignored and
 * unclosed folders end with the file. Pure; linear in the file's length.
 */
import { decodeHTML } from 'entities';
import type { BookmarkEntry } from './bookmark-entry.ts';

/** Top-level folder names browsers use for their own containers (folded: lower case, no spaces). */
const CONTAINER_NAMES = new Set([
  'bookmarksbar',
  'bookmarkstoolbar',
  'bookmarksmenu',
  'otherbookmarks',
  'mobilebookmarks',
  'favoritesbar',
  'favouritesbar',
  'otherfavorites',
  'otherfavourites',
  'favorites',
  'favourites',
  'bookmarks',
]);

const TAG = /<(\/?)(dl|h3|a)\b([^>]*)>/gi;
const CLOSE: Record<string, RegExp> = { a: /<\/a\s*>/i, h3: /<\/h3\s*>/i };
/** The next tag that ends an element left unclosed. */
const NEXT = /<(?:dt|dl|\/dl|h3|a)\b/gi;
const ATTR = /([a-z_:][-a-z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;

/** True when a text looks like a Netscape bookmark file (its doctype, or a `<DL>` list with links). */
export function looksLikeBookmarkHtml(text: string): boolean {
  const head = text.slice(0, 4096);
  return (
    /<!doctype\s+netscape-bookmark-file/i.test(head) || (/<dl[\s>]/i.test(text) && /<a\s[^>]*href\s*=/i.test(text))
  );
}

function attributes(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of raw.matchAll(ATTR)) out.set(m[1].toLowerCase(), decodeHTML(m[2] ?? m[3] ?? m[4] ?? ''));
  return out;
}

/** The readable text of an element's inside: tags dropped, entities decoded, spaces collapsed. */
function innerText(html: string): string {
  return decodeHTML(html.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

interface Folder {
  name: string;
  container: boolean;
}

/** Every bookmark of a Netscape bookmark file, in file order, with its folder path and line. */
export function parseBookmarkHtml(text: string): BookmarkEntry[] {
  const out: BookmarkEntry[] = [];
  // null: a list with no folder of its own (the outermost <DL>).
  const stack: Array<Folder | null> = [];
  let pending: Folder | undefined;
  let line = 1;
  let counted = 0;
  const lineAt = (index: number): number => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
    counted = Math.max(counted, index);
    return line;
  };
  TAG.lastIndex = 0;
  for (let m = TAG.exec(text); m !== null; m = TAG.exec(text)) {
    const closing = m[1] === '/';
    const tag = m[2].toLowerCase();
    if (tag === 'dl') {
      if (closing) stack.pop();
      else stack.push(pending ?? null);
      pending = undefined;
      continue;
    }
    if (closing) continue;
    // The element's text runs to its closing tag, or to the next tag that matters when it has none.
    NEXT.lastIndex = TAG.lastIndex;
    const next = NEXT.exec(text);
    const segment = text.slice(TAG.lastIndex, next === null ? text.length : next.index);
    const closed = CLOSE[tag].exec(segment);
    const inner = closed === null ? segment : segment.slice(0, closed.index);
    TAG.lastIndex += closed === null ? segment.length : closed.index + closed[0].length;
    const attrs = attributes(m[3]);
    const folders = stack.filter((f): f is Folder => f !== null);
    if (tag === 'h3') {
      const name = innerText(inner);
      const flagged =
        attrs.has('personal_toolbar_folder') ||
        attrs.has('unfiled_bookmarks_folder') ||
        /^com\.apple\./.test(attrs.get('id') ?? '');
      const container =
        folders.length === 0 && (flagged || CONTAINER_NAMES.has(name.toLowerCase().replace(/\s+/g, '')));
      pending = { name, container };
      continue;
    }
    const at = lineAt(m.index);
    const tags = (attrs.get('tags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    out.push({
      line: at,
      url: (attrs.get('href') ?? '').trim(),
      title: innerText(inner),
      folder: folders.map((f) => f.name),
      labelNames: [...folders.filter((f) => !f.container).map((f) => f.name), ...tags],
    });
  }
  return out;
}
