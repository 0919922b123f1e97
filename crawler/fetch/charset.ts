/**
 * Charset detection and decoding of fetched bodies, in the spirit of the WHATWG encoding sniffing
 * algorithm: a byte order mark wins over everything, then the Content-Type header's charset, then a
 * `<meta charset>` / `<meta http-equiv="content-type">` found by a prescan of the first bytes, and
 * finally UTF-8 (or windows-1252 when the bytes are not valid UTF-8, which is what browsers in
 * Western locales effectively do for undeclared legacy pages). One deliberate departure from the
 * browsers: a page declared UTF-8 whose bytes are mostly not UTF-8 (a Windows-1252 page behind a
 * server-wide `charset=utf-8`, a common misconfiguration) is read as windows-1252, so that the stored
 * text says "café" where a browser shows "caf�". Pure: no I/O.
 */

/** How many leading bytes the `<meta>` prescan looks at (the HTML spec asks for at least 1024). */
const PRESCAN_BYTES = 4096;

/** The result of decoding: the text and the WHATWG name of the encoding that was used. */
export interface DecodedBody {
  text: string;
  charset: string;
}

/**
 * Decodes a fetched body to text, choosing the charset from (in order) a BOM, the Content-Type
 * header's charset, a `<meta>` declaration in the first 4 KiB (only when the body is HTML or its type
 * is unknown), else UTF-8 (windows-1252 if the undeclared bytes are not valid UTF-8). Unknown labels
 * are skipped, falling back to the next source and in the end to UTF-8. Never throws.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): DecodedBody {
  const bom = bomEncoding(bytes);
  if (bom) return decodeWith(bom, bytes);

  const headerLabel = contentType ? charsetFromContentType(contentType) : undefined;
  const fromHeader = headerLabel ? decoderFor(headerLabel) : undefined;
  if (fromHeader) return runDeclared(fromHeader, bytes);

  if (contentType === undefined || contentType.trim() === '' || isHtmlContentType(contentType)) {
    const metaLabel = prescanMetaCharset(bytes);
    const fromMeta = metaLabel ? decoderFor(metaLabel, true) : undefined;
    if (fromMeta) return runDeclared(fromMeta, bytes);
  }

  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), charset: 'utf-8' };
  } catch {
    return decodeWith('windows-1252', bytes);
  }
}

/**
 * True for `text/html` and `application/xhtml+xml` (case-insensitive, parameters ignored). A missing
 * type is false; callers that want to accept untyped bodies can ask `looksLikeHtml` about the bytes.
 */
export function isHtmlContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  const essence = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return essence === 'text/html' || essence === 'application/xhtml+xml';
}

const HTML_SNIFF_TAGS = [
  '<!doctype html', '<html', '<head', '<script', '<iframe', '<h1', '<div', '<font', '<table', '<a',
  '<style', '<title', '<b', '<body', '<br', '<p', '<!--',
];

/**
 * Sniffs untyped bytes for HTML the way the WHATWG MIME sniffing spec does: after an optional BOM and
 * leading whitespace, the body starts with one of the HTML tag patterns (`<!DOCTYPE HTML`, `<html`,
 * `<p`, `<!--`, ...) followed by a space or `>`. For bodies served without a Content-Type.
 */
export function looksLikeHtml(bytes: Uint8Array): boolean {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  while (i < bytes.length && (bytes[i] === 0x20 || (bytes[i]! >= 0x09 && bytes[i]! <= 0x0d))) i++;
  const head = latin1(bytes, i, Math.min(bytes.length, i + 16)).toLowerCase();
  for (const tag of HTML_SNIFF_TAGS) {
    if (!head.startsWith(tag)) continue;
    const after = head.charAt(tag.length);
    if (after === ' ' || after === '>') return true;
  }
  return false;
}

/** The encoding named by a byte order mark, if the body starts with one. */
function bomEncoding(bytes: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** The `charset` parameter of a Content-Type value (quotes removed), if any. */
function charsetFromContentType(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType);
  if (!match) return undefined;
  const value = (match[2] ?? match[1] ?? '').trim();
  return value === '' ? undefined : value;
}

/**
 * A decoder for a WHATWG encoding label, or undefined when the label is unknown. A label found in a
 * `<meta>` that names UTF-16 means UTF-8 (the prescan could not have read it otherwise), and
 * x-user-defined means windows-1252, as the spec prescribes.
 */
function decoderFor(label: string, fromMeta = false): TextDecoder | undefined {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label.trim());
  } catch {
    return undefined;
  }
  if (fromMeta && decoder.encoding.startsWith('utf-16')) return new TextDecoder('utf-8');
  if (fromMeta && decoder.encoding === 'x-user-defined') return new TextDecoder('windows-1252');
  return decoder;
}

/** Decodes with a declared decoder, except that bytes declared UTF-8 but mostly not UTF-8 are read as windows-1252. */
function runDeclared(decoder: TextDecoder, bytes: Uint8Array): DecodedBody {
  if (decoder.encoding === 'utf-8' && mostlyNotUtf8(bytes)) return decodeWith('windows-1252', bytes);
  return run(decoder, bytes);
}

/**
 * Whether bytes have more invalid UTF-8 sequences than valid multi-byte ones: the mark of a legacy
 * single-byte page (every é or ’ an invalid lone byte) rather than of a UTF-8 page with a stray bad
 * byte or a character cut off at the end.
 */
export function mostlyNotUtf8(bytes: Uint8Array): boolean {
  let valid = 0;
  let invalid = 0;
  const n = bytes.length;
  for (let i = 0; i < n;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = len > 0 && i + len <= n;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok) {
      valid++;
      i += len;
    } else {
      invalid++;
      i++;
    }
  }
  return invalid > valid;
}

/** Bytes that never occur in text (WHATWG MIME sniffing's "binary data bytes"): C0 controls except TAB, LF, FF, CR, ESC. */
function isBinaryByte(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

/**
 * Whether a body is binary data rather than text, whatever its Content-Type says (an image, an archive,
 * a compressed body without Content-Encoding served as text/html): more than 1% of its first 4 KiB (and
 * more than two bytes) are bytes that never occur in text. A UTF-16 body (BOM) is text.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const bom = bomEncoding(bytes);
  if (bom === 'utf-16le' || bom === 'utf-16be') return false;
  const n = Math.min(bytes.length, PRESCAN_BYTES);
  let count = 0;
  for (let i = 0; i < n; i++) if (isBinaryByte(bytes[i]!)) count++;
  return count > Math.max(2, n / 100);
}

function decodeWith(encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252', bytes: Uint8Array): DecodedBody {
  return run(new TextDecoder(encoding), bytes);
}

function run(decoder: TextDecoder, bytes: Uint8Array): DecodedBody {
  if (decoder.encoding === 'windows-1252') return { text: decodeWindows1252(bytes), charset: 'windows-1252' };
  return { text: decoder.decode(bytes), charset: decoder.encoding };
}

/** WHATWG index-windows-1252 for bytes 0x80–0x9F; every other byte maps to the same code point. */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1_CONTROLS = /[\u0080-\u009f]/g;

/**
 * Decodes windows-1252 (which WHATWG also uses for every latin1/iso-8859-1/ascii label) by hand:
 * Node 20.18.3+ TextDecoder decodes it as ISO-8859-1, turning € ’ “ ” – into C1 control characters
 * (nodejs/node#60888, #56542).
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin = latin1(bytes, 0, bytes.length);
  return latin.replace(C1_CONTROLS, (c) => WINDOWS_1252_C1.charAt(c.charCodeAt(0) - 0x80));
}

/** Bytes [start, end) as a string, one char per byte; fine for ASCII-compatible scanning. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)).toString('latin1');
}

/**
 * A simplified HTML-spec prescan: walks the first bytes looking at `<meta>` tags (skipping comments
 * and other tags) and returns the first charset declared by `charset=` or by
 * `http-equiv="content-type" content="...; charset=..."`.
 */
function prescanMetaCharset(bytes: Uint8Array): string | undefined {
  const s = latin1(bytes, 0, Math.min(bytes.length, PRESCAN_BYTES));
  const lower = s.toLowerCase();
  let i = 0;
  while (i < s.length) {
    const lt = lower.indexOf('<', i);
    if (lt === -1) return undefined;
    if (lower.startsWith('<!--', lt)) {
      const end = lower.indexOf('-->', lt + 4);
      if (end === -1) return undefined;
      i = end + 3;
      continue;
    }
    if (lower.startsWith('<meta', lt) && /[\s/]/.test(lower.charAt(lt + 5))) {
      const { attrs, end } = readAttributes(s, lt + 5);
      const label = charsetFromMeta(attrs);
      if (label) return label;
      i = end;
      continue;
    }
    // Any other tag (or stray '<'): skip its attributes so that a '>' inside quotes is not its end.
    if (/[a-z/!?]/.test(lower.charAt(lt + 1))) {
      i = readAttributes(s, lt + 2).end;
      continue;
    }
    i = lt + 1;
  }
  return undefined;
}

function charsetFromMeta(attrs: Map<string, string>): string | undefined {
  const charset = attrs.get('charset');
  if (charset !== undefined && charset.trim() !== '') return charset.trim();
  if ((attrs.get('http-equiv') ?? '').trim().toLowerCase() !== 'content-type') return undefined;
  const content = attrs.get('content');
  if (!content) return undefined;
  const match = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(content);
  const value = match ? (match[1] ?? match[2] ?? match[3] ?? '').trim() : '';
  return value === '' ? undefined : value;
}

/**
 * Reads `name=value` pairs from `s` starting just after a tag name, up to the closing `>`. Returns the
 * attributes (names lowercased, first occurrence wins) and the index after the tag.
 */
function readAttributes(s: string, start: number): { attrs: Map<string, string>; end: number } {
  const attrs = new Map<string, string>();
  const re = /\s*([^\s"'>/=][^\s"'>/=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?|\s*(\/)|\s*(>)/gy;
  re.lastIndex = start;
  while (re.lastIndex < s.length) {
    const at = re.lastIndex;
    const m = re.exec(s);
    if (!m) {
      re.lastIndex = at + 1; // an unexpected character such as a stray quote: skip it
      continue;
    }
    if (m[6]) return { attrs, end: re.lastIndex };
    if (m[5]) continue;
    const name = m[1]!.toLowerCase();
    if (!attrs.has(name)) attrs.set(name, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return { attrs, end: s.length };
}
