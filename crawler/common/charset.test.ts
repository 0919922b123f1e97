import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, isHtmlContentType, looksBinary, looksLikeHtml, mostlyNotUtf8 } from './charset.ts';

const ascii = (s: string): number[] => [...Buffer.from(s, 'latin1')];
const bytes = (...parts: Array<number[] | string>): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? ascii(p) : p)));
const NIHON_SJIS = [0x93, 0xfa, 0x96, 0x7b]; // 日本 in Shift_JIS

describe('decodeBody: byte order marks', () => {
  test('UTF-8 BOM is stripped and wins over a header charset', () => {
    const body = bytes([0xef, 0xbb, 0xbf], [...Buffer.from('héllo', 'utf8')]);
    assert.deepEqual(decodeBody(body, 'text/html; charset=windows-1252'), { text: 'héllo', charset: 'utf-8' });
  });

  test('UTF-16LE BOM wins over header and meta', () => {
    const body = bytes([0xff, 0xfe], [...Buffer.from('<meta charset="utf-8">é日', 'utf16le')]);
    assert.deepEqual(decodeBody(body, 'text/html; charset=utf-8'), {
      text: '<meta charset="utf-8">é日',
      charset: 'utf-16le',
    });
  });

  test('UTF-16BE BOM', () => {
    const le = Buffer.from('hé', 'utf16le');
    const be = Buffer.from(le).swap16();
    assert.deepEqual(decodeBody(bytes([0xfe, 0xff], [...be]), undefined), { text: 'hé', charset: 'utf-16be' });
  });
});

describe('decodeBody: Content-Type header', () => {
  test('charset=windows-1252 maps 0xE9 to é', () => {
    assert.deepEqual(decodeBody(bytes('caf', [0xe9]), 'text/html; charset=windows-1252'), {
      text: 'café',
      charset: 'windows-1252',
    });
  });

  test('windows-1252 maps 0x80-0x9F to their WHATWG characters, not C1 controls', () => {
    const r = decodeBody(bytes([0x80, 0x92, 0x93, 0x94, 0x96, 0x81, 0x9f, 0xff]), 'text/html; charset=windows-1252');
    assert.equal(r.text, '€’“”–\u0081Ÿÿ');
  });

  test('quoted, upper-case ISO-8859-1 label resolves to windows-1252', () => {
    const r = decodeBody(bytes('caf', [0xe9]), 'Text/HTML; Charset="ISO-8859-1"');
    assert.equal(r.text, 'café');
    assert.equal(r.charset, 'windows-1252');
  });

  test('header charset wins over a <meta charset>', () => {
    const body = bytes('<meta charset="shift_jis">', [...Buffer.from('é', 'utf8')]);
    assert.deepEqual(decodeBody(body, 'text/html; charset=utf-8'), {
      text: '<meta charset="shift_jis">é',
      charset: 'utf-8',
    });
  });

  test('an unknown header label falls through to the meta declaration', () => {
    const body = bytes('<meta charset="shift_jis">', NIHON_SJIS);
    assert.equal(decodeBody(body, 'text/html; charset=no-such-charset').charset, 'shift_jis');
  });
});

describe('decodeBody: <meta> prescan', () => {
  test('<meta charset="shift_jis"> decodes 日本', () => {
    const body = bytes('<!doctype html><html><head><meta charset="shift_jis"><title>', NIHON_SJIS, '</title>');
    const r = decodeBody(body, 'text/html');
    assert.equal(r.charset, 'shift_jis');
    assert.match(r.text, /<title>日本<\/title>/);
  });

  test('http-equiv content-type form, with no Content-Type header at all', () => {
    const body = bytes(
      '<html><head><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1252"></head>caf',
      [0xe9],
    );
    const r = decodeBody(body, undefined);
    assert.equal(r.charset, 'windows-1252');
    assert.ok(r.text.endsWith('café'));
  });

  test('unquoted charset attribute after other attributes and a quoted ">"', () => {
    const body = bytes('<link title="a>b" href=x><meta name=x content="y" charset=shift_jis>', NIHON_SJIS);
    assert.ok(decodeBody(body, 'text/html').text.endsWith('日本'));
  });

  test('a meta inside a comment is ignored', () => {
    const body = bytes('<!-- <meta charset="shift_jis"> -->', [...Buffer.from('é', 'utf8')]);
    assert.deepEqual(decodeBody(body, 'text/html'), { text: '<!-- <meta charset="shift_jis"> -->é', charset: 'utf-8' });
  });

  test('a meta beyond the first 4 KiB is ignored', () => {
    const body = bytes(' '.repeat(5000), '<meta charset="shift_jis">', [...Buffer.from('日本', 'utf8')]);
    assert.equal(decodeBody(body, 'text/html').charset, 'utf-8');
  });

  test('a meta naming UTF-16 means UTF-8', () => {
    const body = bytes('<meta charset="utf-16">', [...Buffer.from('é', 'utf8')]);
    assert.deepEqual(decodeBody(body, 'text/html'), { text: '<meta charset="utf-16">é', charset: 'utf-8' });
  });

  test('a non-HTML body is not prescanned for meta', () => {
    const body = bytes('<meta charset="shift_jis">', [...Buffer.from('日本', 'utf8')]);
    assert.deepEqual(decodeBody(body, 'text/plain'), { text: '<meta charset="shift_jis">日本', charset: 'utf-8' });
  });

  test('works on a Uint8Array view with a byte offset', () => {
    const backing = bytes('garbage!', '<meta charset="shift_jis">', NIHON_SJIS);
    const view = backing.subarray(8);
    assert.deepEqual(decodeBody(view, 'text/html'), { text: '<meta charset="shift_jis">日本', charset: 'shift_jis' });
  });
});

describe('decodeBody: fallbacks', () => {
  test('an unknown meta label falls back to UTF-8', () => {
    const body = bytes('<meta charset="klingon-8">', [...Buffer.from('日本', 'utf8')]);
    assert.deepEqual(decodeBody(body, 'text/html'), { text: '<meta charset="klingon-8">日本', charset: 'utf-8' });
  });

  test('an unknown header label with no meta falls back to UTF-8', () => {
    assert.deepEqual(decodeBody(bytes([...Buffer.from('日本', 'utf8')]), 'text/html; charset=bogus'), {
      text: '日本',
      charset: 'utf-8',
    });
  });

  test('undeclared valid UTF-8 is UTF-8', () => {
    assert.deepEqual(decodeBody(bytes([...Buffer.from('naïve 日本', 'utf8')]), 'text/html'), {
      text: 'naïve 日本',
      charset: 'utf-8',
    });
  });

  test('undeclared bytes that are not valid UTF-8 fall back to windows-1252', () => {
    assert.deepEqual(decodeBody(bytes('caf', [0xe9, 0x80]), 'text/html'), { text: 'café€', charset: 'windows-1252' });
  });

  test('binary garbage never throws, whatever the declared type', () => {
    let seed = 42;
    const garbage = new Uint8Array(20_000);
    for (let i = 0; i < garbage.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      garbage[i] = seed >>> 24;
    }
    garbage.set(ascii('<meta charset="'), 100); // an unterminated declaration in the middle of it
    for (const type of [
      undefined,
      '',
      'text/html',
      'application/octet-stream',
      'text/html; charset=utf-16be',
      'text/html; charset=',
    ]) {
      const r = decodeBody(garbage, type);
      assert.equal(typeof r.text, 'string');
      assert.ok(r.text.length > 0);
    }
    assert.deepEqual(decodeBody(new Uint8Array(0), undefined), { text: '', charset: 'utf-8' });
  });
});

describe('decodeBody: every declaration decodes', () => {
  test('every WHATWG label, in the header, a <meta> or an XML declaration, decodes without throwing', () => {
    const labels = [
      'utf-8',
      'utf-16',
      'utf-16be',
      'ibm866',
      'iso-8859-2',
      'iso-8859-16',
      'koi8-u',
      'macintosh',
      'windows-874',
      'windows-1258',
      'gbk',
      'gb18030',
      'big5',
      'euc-jp',
      'iso-2022-jp',
      'shift_jis',
      'euc-kr',
      'x-user-defined',
      'replacement',
      'x-mac-cyrillic',
    ];
    for (const label of labels) {
      for (const [body, type] of [
        [bytes('caf', [0xe9, 0x80, 0xff]), `text/html; charset=${label}`],
        [bytes(`<meta charset="${label}">caf`, [0xe9]), 'text/html'],
        [bytes(`<?xml version="1.0" encoding="${label}"?><p>caf`, [0xe9]), 'application/xhtml+xml'],
      ] as const) {
        const r = decodeBody(body, type);
        assert.ok(r.text.length > 0 && r.charset !== '', `${label} in ${type}: ${JSON.stringify(r)}`);
      }
    }
    for (const label of ['x-user-defined', 'iso-8859-16']) {
      assert.deepEqual(
        decodeBody(bytes('caf', [0xe9]), `text/html; charset=${label}`),
        { text: 'café', charset: 'windows-1252' },
        `${label}: no decoder, as if undeclared`,
      );
    }
  });
});

describe('decodeBody: a page declared UTF-8 that is really windows-1252', () => {
  const legacy = bytes(
    '<p>Caf',
    [0xe9],
    ' cr',
    [0xe8],
    'me ',
    [0x96],
    ' ',
    [0x93],
    'quoted',
    [0x94],
    ' 10 ',
    [0x80],
    '</p>',
  );
  const expected = '<p>Café crème – “quoted” 10 €</p>';

  test('declared by the Content-Type header: read as windows-1252', () => {
    assert.deepEqual(decodeBody(legacy, 'text/html; charset=utf-8'), { text: expected, charset: 'windows-1252' });
  });

  test('declared by <meta charset="utf-8">: read as windows-1252', () => {
    const body = bytes('<meta charset="utf-8">', [...legacy]);
    assert.deepEqual(decodeBody(body, 'text/html'), {
      text: `<meta charset="utf-8">${expected}`,
      charset: 'windows-1252',
    });
  });

  test('real UTF-8 with one stray bad byte stays UTF-8 (the bad byte becomes U+FFFD)', () => {
    const body = bytes([...Buffer.from('naïve café 日本 ', 'utf8')], [0xe9], ' end');
    assert.deepEqual(decodeBody(body, 'text/html; charset=utf-8'), {
      text: 'naïve café 日本 \ufffd end',
      charset: 'utf-8',
    });
  });

  test('UTF-8 cut off inside its last character (a capped body) stays UTF-8', () => {
    const whole = Buffer.from('é日本', 'utf8');
    const r = decodeBody(whole.subarray(0, whole.length - 1), 'text/html; charset=utf-8');
    assert.equal(r.charset, 'utf-8');
    assert.ok(r.text.startsWith('é日'));
  });

  test('mostlyNotUtf8 counts invalid sequences against valid multi-byte ones', () => {
    assert.equal(mostlyNotUtf8(bytes('plain ascii')), false);
    assert.equal(mostlyNotUtf8(bytes('caf', [0xe9])), true);
    assert.equal(
      mostlyNotUtf8(bytes([...Buffer.from('é', 'utf8')], [0xff])),
      false,
      'one valid, one invalid: a tie is UTF-8',
    );
    assert.equal(mostlyNotUtf8(bytes([0xc0, 0x80])), true, 'overlong lead byte');
  });
});

describe('looksBinary', () => {
  const random = (n: number) => {
    let seed = 7;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      out[i] = seed >>> 24;
    }
    return out;
  };

  test('images, archives and random bytes are binary', () => {
    assert.equal(looksBinary(bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d], 'IHDR')), true);
    assert.equal(
      looksBinary(bytes([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03])),
      true,
      'gzip without Content-Encoding',
    );
    assert.equal(looksBinary(random(10_000)), true);
  });

  test('text is not binary: HTML, legacy bytes, UTF-16 with a BOM, a couple of stray control characters, nothing', () => {
    assert.equal(looksBinary(bytes('<!doctype html><title>x</title><p>caf', [0xe9], '</p>\r\n\t')), false);
    assert.equal(looksBinary(bytes([0xff, 0xfe], [...Buffer.from('<p>hello</p>', 'utf16le')])), false);
    assert.equal(looksBinary(bytes('<p>a', [0x01], 'b', [0x02], 'c', ' and a lot more text here to read</p>')), false);
    assert.equal(looksBinary(bytes('ISO-2022-JP uses ', [0x1b], '$B escapes')), false);
    assert.equal(looksBinary(new Uint8Array(0)), false);
  });
});

describe('isHtmlContentType', () => {
  test('accepts HTML and XHTML types, case-insensitive, parameters ignored', () => {
    assert.equal(isHtmlContentType('text/html'), true);
    assert.equal(isHtmlContentType('TEXT/HTML; charset=utf-8'), true);
    assert.equal(isHtmlContentType(' application/xhtml+xml ;q=1'), true);
  });

  test('rejects other types and a missing type', () => {
    assert.equal(isHtmlContentType(undefined), false);
    assert.equal(isHtmlContentType(''), false);
    assert.equal(isHtmlContentType('text/plain'), false);
    assert.equal(isHtmlContentType('application/json; x=text/html'), false);
    assert.equal(isHtmlContentType('text/htmlx'), false);
  });
});

describe('looksLikeHtml', () => {
  test('recognizes HTML openings after whitespace and a BOM', () => {
    assert.equal(looksLikeHtml(bytes('<!DOCTYPE html><html>')), true);
    assert.equal(looksLikeHtml(bytes('\n\t  <HTML lang=en>')), true);
    assert.equal(looksLikeHtml(bytes([0xef, 0xbb, 0xbf], '<p>hi')), true);
    assert.equal(looksLikeHtml(bytes('<!-- c -->')), true);
  });

  test('rejects non-HTML bodies', () => {
    assert.equal(looksLikeHtml(bytes('{"a": 1}')), false);
    assert.equal(looksLikeHtml(bytes('<?xml version="1.0"?>')), false);
    assert.equal(looksLikeHtml(bytes('<pre>')), false); // <p followed by 'r', not a space or '>'
    assert.equal(looksLikeHtml(bytes([0x89, 0x50, 0x4e, 0x47])), false);
    assert.equal(looksLikeHtml(new Uint8Array(0)), false);
  });
});
