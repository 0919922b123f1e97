/**
 * Reads the Netscape bookmark file every browser exports (Chrome, Edge, Firefox, Safari): a `<DL>` list
 * whose `<DT><H3>` items are folders (each followed by its own `<DL>`) and whose `<DT><A HREF>` items are
 * bookmarks. The format is loose HTML (no closing `</DT>`, stray `<p>`), so it is read as a stream of the
 * few tags that matter rather than as a document: a folder name waits for the `<DL>` that opens it, and
 * `</DL>` closes the innermost folder. An unbalanced file never throws: extra `</DL>` are ignored and
 * unclosed folders end with the file. Pure, and linear in the file's length: a hand-written scan
 * (html-scan.ts) that reads each character a bounded number of times, counted in ReadOptions.counter.
 */
import {
  type BookmarkEntry,
  capFolderName,
  MAX_FOLDER_DEPTH,
  type ReadOptions,
  type StepCounter,
} from './bookmark-entry.ts';
import { attributes, find, innerText, isSpace, wordAt } from './html-scan.ts';

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

const DOCTYPE = /<!doctype\s+netscape-bookmark-file/i;
/** The attributes read from a folder's or a bookmark's tag (the others, favicons included, are skipped). */
const WANTED = new Set(['href', 'tags', 'id', 'personal_toolbar_folder', 'unfiled_bookmarks_folder']);

/** Which of the tags that matter starts at `at` (`dl`, `h3`, `a`, as whole words in any case), if any. */
function tagAt(text: string, at: number): 'dl' | 'h3' | 'a' | undefined {
  if (wordAt(text, at, 'a')) return 'a';
  if (wordAt(text, at, 'dl')) return 'dl';
  if (wordAt(text, at, 'h3')) return 'h3';
  return undefined;
}

/** True when a text looks like a Netscape bookmark file (its doctype, or a `<DL>` list with links). */
export function looksLikeBookmarkHtml(text: string, counter?: StepCounter): boolean {
  if (DOCTYPE.test(text.slice(0, 4096))) return true;
  if (!/<dl[\s>]/i.test(text)) return false;
  if (counter !== undefined) counter.steps += text.length;
  // An `<a` followed by a space, with `href =` before the next `>` (or the end): each stretch up to a `>`
  // is searched once, however many `<a ` it holds.
  let searchedTo = -1;
  let gt = -2; // the next `>` at or after the last `<a ` (-1: none is left), looked for again only once passed
  for (let lt = find(text, '<', 0, counter); lt !== -1; lt = find(text, '<', lt + 1, counter)) {
    if ((text[lt + 1] !== 'a' && text[lt + 1] !== 'A') || !isSpace(text[lt + 2] ?? '')) continue;
    if (gt !== -1 && gt < lt) gt = find(text, '>', lt, counter);
    const end = gt === -1 ? text.length : gt;
    if (end === searchedTo) continue;
    searchedTo = end;
    if (counter !== undefined) counter.steps += end - lt;
    if (/href\s*=/i.test(text.slice(lt, end))) return true;
  }
  return false;
}

/** The start of the next tag that ends an element left unclosed (`<dt`, `<dl`, `</dl`, `<h3`, `<a`), or the text's end. */
function nextTag(text: string, from: number, counter?: StepCounter): number {
  for (let lt = find(text, '<', from, counter); lt !== -1; lt = find(text, '<', lt + 1, counter)) {
    const at = text[lt + 1] === '/' ? lt + 2 : lt + 1;
    if (at === lt + 2 ? wordAt(text, at, 'dl') : tagAt(text, at) !== undefined || wordAt(text, at, 'dt')) return lt;
  }
  return text.length;
}

/** Where the closing tag (`</a >`, `</h3>`) of `tag` starts in text[from, to) and where it ends, or undefined. */
function closingTag(
  text: string,
  tag: string,
  from: number,
  to: number,
  counter?: StepCounter,
): { start: number; end: number } | undefined {
  if (counter !== undefined) counter.steps += to - from;
  const segment = text.slice(from, to); // searched alone: a search of the whole text would run past `to` each time
  for (let lt = segment.indexOf('</'); lt !== -1; lt = segment.indexOf('</', lt + 2)) {
    let i = lt + 2 + tag.length;
    if (segment.slice(lt + 2, i).toLowerCase() !== tag) continue;
    while (i < segment.length && isSpace(segment[i])) i++;
    if (segment[i] === '>') return { start: from + lt, end: from + i + 1 };
  }
  return undefined;
}

/** Lists (`<DL>`) kept on the reader's stack; deeper ones are counted only (see parseBookmarkHtml). */
export const MAX_LIST_NESTING = 1_000;

interface Folder {
  name: string;
  container: boolean;
}

/** Every bookmark of a Netscape bookmark file, in file order, with its folder path and line (see ReadOptions for a limit). */
export function parseBookmarkHtml(text: string, options: ReadOptions = {}): BookmarkEntry[] {
  const { maxEntries = Number.POSITIVE_INFINITY, counter } = options;
  const out: BookmarkEntry[] = [];
  // null: a list with no folder of its own (the outermost <DL>); `folders` holds the others, in order.
  const stack: Array<Folder | null> = [];
  const folders: Folder[] = [];
  // Lists opened deeper than MAX_LIST_NESTING are only counted: their folders are past any kept path, and a
  // stack of thousands of levels would cost more per level than a short one (V8's large-object space).
  let deeper = 0;
  let pending: Folder | undefined;
  let line = 1;
  let counted = 0;
  const lineAt = (index: number): number => {
    // Counted up to `index` only: a search for the next line end could run to the file's end each time.
    for (let i = counted; i < index; i++) if (text.charCodeAt(i) === 10) line++;
    if (counter !== undefined) counter.steps += Math.max(0, index - counted);
    counted = Math.max(counted, index);
    return line;
  };
  let pos = 0;
  for (let lt = find(text, '<', pos, counter); lt !== -1; lt = find(text, '<', pos, counter)) {
    const closing = text[lt + 1] === '/';
    const at = closing ? lt + 2 : lt + 1;
    const tag = tagAt(text, at);
    if (tag === undefined) {
      pos = lt + 1;
      continue;
    }
    const gt = find(text, '>', at + tag.length, counter);
    if (gt === -1) break; // no tag can end any more: the rest of the file holds no bookmark
    const tagEnd = gt + 1;
    pos = tagEnd;
    if (tag === 'dl') {
      if (closing) {
        if (deeper > 0) deeper--;
        else if (stack.pop()) folders.pop();
      } else {
        if (stack.length >= MAX_LIST_NESTING) deeper++;
        else {
          stack.push(pending ?? null);
          if (pending !== undefined) folders.push(pending);
        }
      }
      pending = undefined;
      continue;
    }
    if (closing) continue;
    // The element's text runs to its closing tag, or to the next tag that matters when it has none.
    const next = nextTag(text, tagEnd, counter);
    const closed = closingTag(text, tag, tagEnd, next, counter);
    const inner = text.slice(tagEnd, closed === undefined ? next : closed.start);
    pos = closed === undefined ? next : closed.end;
    const attrs = attributes(text.slice(at + tag.length, gt), counter, WANTED);
    if (tag === 'h3') {
      const name = capFolderName(innerText(inner, counter));
      const flagged =
        attrs.has('personal_toolbar_folder') ||
        attrs.has('unfiled_bookmarks_folder') ||
        (attrs.get('id') ?? '').startsWith('com.apple.');
      const container =
        folders.length === 0 && (flagged || CONTAINER_NAMES.has(name.toLowerCase().replace(/\s+/g, '')));
      pending = { name, container };
      continue;
    }
    const path = folders.slice(0, MAX_FOLDER_DEPTH);
    const tags = (attrs.get('tags') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    out.push({
      line: lineAt(lt),
      url: (attrs.get('href') ?? '').trim(),
      title: innerText(inner, counter),
      folder: path.map((f) => f.name),
      labelNames: [...path.filter((f) => !f.container).map((f) => f.name), ...tags],
    });
    if (out.length > maxEntries) break;
  }
  return out;
}
