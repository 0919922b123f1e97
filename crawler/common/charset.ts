/**
 * Charset detection and decoding of fetched bodies: the WHATWG encoding sniffing algorithm as
 * encoding-sniffer implements it (cheerio's own sniffer): a byte order mark wins over everything,
 * then the Content-Type header's charset, then a `<meta charset>` / `<meta http-equiv>` (or an XML
 * declaration) found by the spec's prescan of the first bytes (its label table, whatwg-encoding's,
 * lacks ISO-2022-JP, ISO-8859-8-I and x-mac-cyrillic: such a declaration is skipped, as an unknown
 * label is, though Node could decode them). Decoded by Node's TextDecoder (ICU,
 * native: Shift_JIS took 4x as long with iconv-lite's tables, which cheerio pairs it with). Undeclared
 * bytes are UTF-8 when they are valid UTF-8, else windows-1252 (the algorithm leaves the default to
 * the implementation; this is what browsers in Western locales effectively do).
 * Lantern's one departure from the standard, wrapped around the sniffer: a page declared UTF-8 whose
 * bytes are mostly not UTF-8 is read as windows-1252 (a server-wide `charset=utf-8` in front of a
 * legacy page stores "café" where a browser shows "caf�").
 * Kept by hand, and why: looksLikeHtml and looksBinary are WHATWG *MIME* sniffing, which neither
 * library does (file-type and the like know binary signatures, not HTML openings); mostlyNotUtf8 is
 * the departure itself; the charset parameter of Content-Type is one regular expression (Node 20's
 * util.MIMEType is experimental); windows-1252 is decoded by a table (decodeWindows1252 says why).
 * Pure: no I/O.
 */
import { isUtf8 } from 'node:buffer';
import { getEncoding } from 'encoding-sniffer';

/** How many leading bytes the `<meta>` prescan looks at (the HTML spec asks for at least 1024). */
const PRESCAN_BYTES = 4096;
/** Bytes the sniffer sees of a body that is not HTML: a byte order mark's worth, so no `<meta>` is read. */
const BOM_BYTES = 3;

/** The result of decoding: the text and the WHATWG name of the encoding that was used (lower case). */
export interface DecodedBody {
  text: string;
  charset: string;
}

/**
 * Decodes a fetched body to text, choosing the charset from (in order) a BOM, the Content-Type
 * header's charset, a `<meta>` declaration in the first 4 KiB (only when the body is HTML or its type
 * is unknown), else UTF-8 (windows-1252 if the undeclared bytes are not valid UTF-8); bytes declared
 * UTF-8 that are mostly not UTF-8 are read as windows-1252. Unknown labels are skipped, falling back
 * to the next source; ISO-8859-16 and x-user-defined (Node has no decoder) count as undeclared. Never throws.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): DecodedBody {
  const html = contentType === undefined || contentType.trim() === '' || isHtmlContentType(contentType);
  const label = contentType ? charsetFromContentType(contentType) : undefined;
  const utf8 = isUtf8(bytes);
  const sniffed = getEncoding(bytes, {
    maxBytes: html ? PRESCAN_BYTES : BOM_BYTES,
    transportLayerEncodingLabel: label,
    defaultEncoding: utf8 ? 'UTF-8' : 'windows-1252',
  });
  let decoder = decoderFor(sniffed) ?? new TextDecoder(utf8 ? 'utf-8' : 'windows-1252');
  // The departure (see the file comment): declared UTF-8, mostly not UTF-8. A BOM is never overruled.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (decoder.encoding === 'utf-8' && !utf8 && !bom && mostlyNotUtf8(bytes)) decoder = new TextDecoder('windows-1252');
  const text = decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
  return { text, charset: decoder.encoding };
}

/** Node's TextDecoder for an encoding; undefined for the WHATWG ones it lacks (ISO-8859-16, x-user-defined). */
function decoderFor(encoding: string): TextDecoder | undefined {
  try {
    return new TextDecoder(encoding);
  } catch (err) {
    if (err instanceof RangeError) return undefined; // ERR_ENCODING_NOT_SUPPORTED
    throw err;
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
  '<!doctype html',
  '<html',
  '<head',
  '<script',
  '<iframe',
  '<h1',
  '<div',
  '<font',
  '<table',
  '<a',
  '<style',
  '<title',
  '<b',
  '<body',
  '<br',
  '<p',
  '<!--',
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

/** The `charset` parameter of a Content-Type value (quotes removed), if any. */
function charsetFromContentType(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType);
  if (!match) return undefined;
  const value = (match[2] ?? match[1] ?? '').trim();
  return value === '' ? undefined : value;
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
  for (let i = 0; i < n; ) {
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
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) return false; // a UTF-16 BOM
  const n = Math.min(bytes.length, PRESCAN_BYTES);
  let count = 0;
  for (let i = 0; i < n; i++) if (isBinaryByte(bytes[i]!)) count++;
  return count > Math.max(2, n / 100);
}

/** WHATWG index-windows-1252 for bytes 0x80–0x9F; every other byte maps to the same code point. */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1_CONTROLS = /[\u0080-\u009f]/g;

/**
 * Decodes windows-1252 (which WHATWG also uses for every latin1/iso-8859-1/ascii label) by hand:
 * iconv-lite turns its five unassigned bytes (0x81, 0x8D, 0x8F, 0x90, 0x9D) into U+FFFD where WHATWG
 * keeps them as C1 controls, and Node 20.18.3+ TextDecoder decodes it as ISO-8859-1, turning € ’ “ ” –
 * into C1 control characters (nodejs/node#60888, #56542).
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin = latin1(bytes, 0, bytes.length);
  return latin.replace(C1_CONTROLS, (c) => WINDOWS_1252_C1.charAt(c.charCodeAt(0) - 0x80));
}

/** Bytes [start, end) as a string, one char per byte; fine for ASCII-compatible scanning. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)).toString('latin1');
}
