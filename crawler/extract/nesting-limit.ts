/**
 * A guard in front of the HTML parser: pages that open elements without end, tens of thousands deep,
 * are flattened to a bounded depth before parsing, so one hostile page cannot cost seconds of CPU.
 * Kept by hand, and why: neither htmlparser2 nor parse5 (cheerio's two parsers) has a depth limit,
 * and the cost is inside the parse, so the bound has to come before it. Pure: string in, string out.
 */

import { ChunkedString } from './chunked-string.ts';

/** Most elements left open at once; deeper start tags are flattened (Chrome's parser caps at 512). */
export const MAX_OPEN_ELEMENTS = 1024;
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose content the parser reads as raw text up to their end tag. */
const RAW_TEXT_END: Record<string, RegExp> = {
  script: /<\/script/gi,
  style: /<\/style/gi,
  title: /<\/title/gi,
  textarea: /<\/textarea/gi,
  xmp: /<\/xmp/gi,
};
const TAG_OR_COMMENT = /<!--|<(\/?)([a-zA-Z][^\s/>]*)[^>]*>?/g;
/**
 * Bounds how deeply the parser must nest: htmlparser2 keeps its open-element stack with
 * `Array.unshift`, so N unclosed elements cost O(N²) (50,000 unclosed `<div>`s, 250 KB, took ~2 s;
 * parse5 was far worse). A cheap tag scan estimates the open-element depth (start tags of non-void
 * elements minus end tags); a start tag that would go deeper than MAX_OPEN_ELEMENTS gets its end tag
 * inserted right after it, and the end tags that would have closed such elements are replaced by a
 * space. Text, links and attributes all survive; only the nesting is flattened. Ordinary pages are
 * returned untouched after a quick pre-check (`mayNestDeeply`).
 */
export function limitNesting(html: string): string {
  if (!mayNestDeeply(html)) return html;

  const out = new ChunkedString();
  let copied = 0; // html[0, copied) is already in out
  let depth = 0;
  let excess = 0; // flattened elements whose end tags are still to come
  const re = new RegExp(TAG_OR_COMMENT.source, 'g');
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const end = m.index + m[0].length;
    if (m[0] === '<!--') {
      const close = html.indexOf('-->', end);
      if (close === -1) break;
      re.lastIndex = close + 3;
      continue;
    }
    const name = m[2]!.toLowerCase();
    if (m[1]) {
      // end tag
      if (excess > 0) {
        excess--;
        out.push(html.slice(copied, m.index), ' ');
        copied = end;
      } else if (depth > 0) depth--;
      continue;
    }
    const rawEnd = RAW_TEXT_END[name];
    if (rawEnd) {
      rawEnd.lastIndex = end;
      if (!rawEnd.test(html)) break; // raw text to the end of the document
      re.lastIndex = rawEnd.lastIndex;
      continue;
    }
    if (VOID_ELEMENTS.has(name)) continue;
    if (depth < MAX_OPEN_ELEMENTS) {
      depth++;
    } else {
      excess++;
      out.push(html.slice(copied, end), m[0].endsWith('>') ? `</${name}>` : `></${name}>`);
      copied = end;
    }
  }
  if (out.count === 0) return html;
  out.push(html.slice(copied));
  return out.join();
}

/**
 * Quick pre-check for limitNesting: '<' + letter counts +1 and '</' counts -1 (void elements, comments
 * and scripts included, so it usually over-estimates); false when this never reaches the limit.
 */
function mayNestDeeply(html: string): boolean {
  let depth = 0;
  for (let i = html.indexOf('<'); i !== -1; i = html.indexOf('<', i + 1)) {
    const c = html.charCodeAt(i + 1) | 0x20;
    if (c === 0x2f) {
      if (depth > 0) depth--;
    } else if (c >= 0x61 && c <= 0x7a && ++depth >= MAX_OPEN_ELEMENTS) {
      return true;
    }
  }
  return false;
}
