/**
 * PDF files for tests and benchmarks, made here with text we know: well-formed documents through pdf-lib
 * (a maintained PDF writer) with an embedded DejaVu Sans (from the dejavu-fonts-ttf package, so
 * Cyrillic and Greek need no font installed on the machine), and hostile ones written byte by byte
 * where no library would make them: encrypted with a user password (the standard security handler,
 * revision 2, RC4), truncated, nested thousands of levels deep, a decompression bomb.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';

const require = createRequire(import.meta.url);
const DEJAVU = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSans.ttf');

/** A page of a test PDF: lines of text, the first printed large (a heading) when `heading` is set. */
export interface PdfPageSpec {
  lines: string[];
  heading?: boolean;
}

/** A well-formed PDF whose pages hold exactly the given lines (any script DejaVu Sans covers). */
export async function textPdf(spec: { title?: string; pages: PdfPageSpec[] }): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(readFileSync(DEJAVU), { subset: true });
  if (spec.title !== undefined) doc.setTitle(spec.title);
  for (const p of spec.pages) {
    const page = doc.addPage([595, 842]);
    let y = 780;
    p.lines.forEach((line, i) => {
      const size = p.heading && i === 0 ? 22 : 11;
      page.drawText(line, { x: 50, y, size, font });
      y -= size * 1.6;
    });
  }
  return Buffer.from(await doc.save());
}

/** A PDF of `pages` pages of ordinary prose (about 2,500 characters each), for the extraction benchmark. */
export async function longPdf(pages: number): Promise<Buffer> {
  const words = [
    'lantern',
    'telescope',
    'orbit',
    'lens',
    'mirror',
    'focus',
    'aperture',
    'eyepiece',
    'mount',
    'star',
    'planet',
    'nebula',
  ];
  const specs: PdfPageSpec[] = [];
  for (let p = 0; p < pages; p++) {
    const lines: string[] = [];
    for (let l = 0; l < 40; l++) {
      const line: string[] = [];
      for (let w = 0; w < 10; w++) line.push(words[(p * 7 + l * 3 + w * 5) % words.length]);
      lines.push(`${line.join(' ')} ${p + 1}.${l + 1}`);
    }
    specs.push({ lines });
  }
  return textPdf({ title: `A manual of ${pages} pages`, pages: specs });
}

/** Assembles a PDF from object bodies (object n is objects[n - 1]), with a correct xref table. */
export function assemblePdf(objects: Array<string | Buffer>, trailer: string): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`),
      Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
      Buffer.from('\nendobj\n'),
    ]);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(
    Buffer.from(
      `${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailer} >>\nstartxref\n${offset}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** A stream object's text: the dictionary with its length, and the data. */
function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** The objects of a one-page document showing `line` in Helvetica: catalog, pages, page, content, font. */
function onePage(content: Buffer, extraPage = ''): Array<string | Buffer> {
  return [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R ${extraPage}>>`,
    stream('', content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
}

function showText(line: string): Buffer {
  return Buffer.from(`BT /F1 14 Tf 50 780 Td (${line.replace(/[()\\]/g, '\\$&')}) Tj ET`, 'latin1');
}

/** RC4, the cipher of the PDF standard security handler's revision 2. */
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = data[n] ^ s[(s[i] + s[j]) & 255];
  }
  return out;
}

const PAD = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');
const md5 = (...parts: Buffer[]): Buffer => createHash('md5').update(Buffer.concat(parts)).digest();
const padded = (password: string): Buffer => Buffer.concat([Buffer.from(password, 'latin1'), PAD]).subarray(0, 32);

/**
 * A one-page PDF saying `line`, encrypted (standard security handler, revision 2, 40-bit RC4) with the
 * user password `password`: without it the text cannot be read.
 */
export function encryptedPdf(line: string, password: string): Buffer {
  const id = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
  const permissions = -4;
  const o = rc4(md5(padded(`${password}-owner`)).subarray(0, 5), padded(password));
  const p = Buffer.alloc(4);
  p.writeInt32LE(permissions);
  const key = md5(padded(password), o, p, id).subarray(0, 5);
  const u = rc4(key, PAD);
  const objectKey = (n: number): Buffer =>
    md5(key, Buffer.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, 0, 0])).subarray(0, 10);
  const objects = onePage(Buffer.alloc(0));
  objects[3] = stream('', rc4(objectKey(4), showText(line)));
  objects.push(
    `<< /Filter /Standard /V 1 /R 2 /O <${o.toString('hex')}> /U <${u.toString('hex')}> /P ${permissions} >>`,
  );
  return assemblePdf(objects, `/Encrypt 6 0 R /ID [<${id.toString('hex')}> <${id.toString('hex')}>]`);
}

/** The first `fraction` of a PDF's bytes (a download cut short). */
export function truncatedPdf(pdf: Buffer, fraction = 0.5): Buffer {
  return pdf.subarray(0, Math.floor(pdf.length * fraction));
}

/** A one-page PDF whose page carries an array nested `depth` levels deep (a parser's recursion trap). */
export function nestedPdf(depth: number): Buffer {
  return assemblePdf(onePage(showText('nested'), `/Trap ${'['.repeat(depth)}${']'.repeat(depth)} `), '');
}

/**
 * A one-page PDF whose content stream is `megabytes` MiB of spaces compressed twice (FlateDecode twice):
 * a few KiB on the wire that a reader must inflate to the full size (a decompression bomb).
 */
export function bombPdf(megabytes: number): Buffer {
  const inner = zlib.deflateSync(Buffer.alloc(megabytes * 1024 * 1024, 0x20), { level: 9 });
  const outer = zlib.deflateSync(inner, { level: 9 });
  const objects = onePage(Buffer.alloc(0));
  objects[3] = stream('/Filter [/FlateDecode /FlateDecode]', outer);
  return assemblePdf(objects, '');
}

/** A one-page PDF in Helvetica saying `line` (hand-written, no embedded font). */
export function simplePdf(line: string): Buffer {
  return assemblePdf(onePage(showText(line)), '');
}
