/**
 * Text from crawled pages, made safe to show: it cannot disguise itself with Unicode's bidirectional
 * controls. A title such as `invoice \u202Egnp.exe` (RIGHT-TO-LEFT OVERRIDE before "gnp.exe") reads
 * "invoice exe.png" on screen; with the override removed it reads as it is spelled. Pure.
 *
 * Removed everywhere: the embeddings and overrides (U+202A–U+202E: LRE, RLE, PDF, LRO, RLO) and the
 * isolates (U+2066–U+2069: LRI, RLI, FSI, PDI); ordinary text needs none of them, as the browser orders
 * right-to-left scripts by itself and isolates crawled text where it shows it (web/src/styles/crawled-text.css).
 * Removed at the ends only: the marks (U+200E LRM, U+200F RLM, U+061C ALM). Inside text they only settle
 * how punctuation between two scripts leans, which right-to-left writing needs; at the start they would
 * choose the direction of the whole text where the browser takes it from the first strong character.
 */
const CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
const EDGE_MARKS = /^(\s*)[\u200E\u200F\u061C]+|[\u200E\u200F\u061C]+(\s*)$/g;
const ANY = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

/** `text` without bidirectional controls that could reorder how it reads (see the module comment). */
export function neutralizeBidi(text: string): string {
  if (!ANY.test(text)) return text; // the common case: nothing to do, no copy
  let out = text.replace(CONTROLS, '');
  for (let before = ''; before !== out; ) {
    before = out;
    out = out.replace(EDGE_MARKS, '$1$2');
  }
  return out;
}

/**
 * Every string in a JSON value (objects, arrays, nested) with neutralizeBidi applied; the same value
 * when nothing changed, else a copy (the original is never modified: it may be shared, as a snapshot is).
 */
export function neutralizeBidiDeep<T>(value: T): T {
  if (typeof value === 'string') return neutralizeBidi(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const next = neutralizeBidiDeep(value[i]);
      if (next !== value[i]) (copy ??= [...value])[i] = next;
    }
    return (copy ?? value) as T;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let copy: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(value)) {
      const next = neutralizeBidiDeep(item);
      if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
    }
    return (copy ?? value) as T;
  }
  return value;
}
