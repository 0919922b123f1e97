/**
 * What PageReader (page-reader.ts) needs to know of HTML's elements to read a page's text: the subtrees
 * that are never page text, the elements that do not break words, and the ancestors that make a header or
 * footer part of the content. Data only.
 */

/** Subtrees whose text is never page text. */
export const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'title',
  'object',
  'embed',
  'canvas',
  'textarea',
  'select',
  'datalist',
]);
/** Elements rendered inline: no word break around them. Every other element separates words. */
export const INLINE = new Set([
  'a',
  'abbr',
  'acronym',
  'b',
  'bdi',
  'bdo',
  'big',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'nobr',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);
/** Ancestors that make a header/footer part of the content rather than page chrome. */
export const SECTIONING = new Set(['main', 'article', 'section']);
