import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { extractPage, extractPageSteps, MIN_CONTENT_CHARS, rawLinkCap, SLICE_CHARS } from './extract.ts';
import { limitNesting, MAX_OPEN_ELEMENTS } from './nesting-limit.ts';

const PAGE = 'https://example.org/dir/page.html';
const extract = (html: string, maxLinks?: number) => extractPage(html, PAGE, { productToken: 'LanternBot', maxLinks });
const urls = (html: string) => extract(html).links.map((l) => l.url);

describe('extractPage: title, description, headings', () => {
  test('title is whitespace-collapsed and entities decoded', () => {
    assert.equal(
      extract('<html><head><title>\n  Hello   &amp;\twelcome </title></head><body><h1>Other</h1></body></html>').title,
      'Hello & welcome',
    );
  });

  test('<script> inside a title stays literal text', () => {
    assert.equal(extract('<title>Hi <script>alert(1)</script></title><p>body').title, 'Hi <script>alert(1)</script>');
  });

  test('title falls back to the first h1, then to empty', () => {
    assert.equal(extract('<title> </title><h2>Two</h2><h1>One  first</h1><h1>One second</h1>').title, 'One first');
    assert.equal(extract('<p>no title</p>').title, '');
  });

  test('title is capped at 300 chars; an svg <title> is not the page title', () => {
    assert.equal(extract(`<title>${'x'.repeat(400)}</title>`).title.length, 300);
    assert.equal(extract('<svg><title>icon</title></svg><h1>Real</h1>').title, 'Real');
  });

  test('meta description wins over og:description, which is the fallback', () => {
    assert.equal(
      extract('<meta property="og:description" content="og"><meta name="Description" content=" the   desc ">')
        .description,
      'the desc',
    );
    assert.equal(extract('<meta property="og:description" content="og text">').description, 'og text');
    assert.equal(extract('<p>x').description, '');
    assert.equal(extract(`<meta name="description" content="${'d'.repeat(1500)}">`).description.length, 1000);
  });

  test('h1–h3 in document order, collapsed, nested markup flattened; h4 ignored', () => {
    const page = extract(
      '<h2>Second\n level</h2><h4>four</h4><h1>First <em>one</em></h1><nav><h3>Menu</h3></nav><h3> </h3>',
    );
    assert.deepEqual(page.headings, ['Second level', 'First one', 'Menu']);
  });

  test('a <br> or block inside a heading separates words', () => {
    assert.deepEqual(extract('<h1>Line one<br>Line two</h1><h2><div>a</div><div>b</div></h2>').headings, [
      'Line one Line two',
      'a b',
    ]);
  });

  test('at most 50 headings, each at most 300 chars', () => {
    const html = Array.from({ length: 60 }, (_, i) => `<h2>h${i} ${'y'.repeat(400)}</h2>`).join('');
    const { headings } = extract(html);
    assert.equal(headings.length, 50);
    assert.ok(headings.every((h) => h.length === 300));
    assert.ok(headings[49]!.startsWith('h49 '));
  });

  test('lang comes from <html lang>', () => {
    assert.equal(extract('<html lang=" en-GB "><p>x</p></html>').lang, 'en-GB');
    assert.equal(extract('<html><p>x</p></html>').lang, undefined);
  });
});

describe('extractPage: text', () => {
  test('scripts, styles, noscript, template, svg and iframe never reach the text', () => {
    const { text } = extract(`<head><style>.a{color:red}</style><script>var secret = 1;</script></head>
      <body><p>visible</p><noscript>enable js</noscript><template><p>tpl</p></template>
      <svg><text>svgtext</text></svg><iframe>frame</iframe><script type="application/ld+json">{"x":1}</script></body>`);
    assert.equal(text, 'visible');
  });

  test('nav, header, footer, aside and scripts are dropped when a <main> exists', () => {
    const { text } = extract(`<header><a href="/">Site name</a></header><nav>Home About</nav>
      <main><h1>Article</h1><p>The body.</p><script>track()</script></main>
      <aside>Related</aside><div role="navigation">Crumbs</div><footer>Copyright</footer>`);
    assert.equal(text, 'Article\nThe body.');
  });

  test('a header inside an article is content, aria-hidden is not', () => {
    const { text } = extract(`<article><header><h1>Post</h1><p>by me</p></header><p>Words.</p>
      <span aria-hidden="true">icon</span><footer>tags</footer></article>`);
    assert.equal(text, 'Post\nby me\nWords.\ntags');
  });

  test('chrome is dropped when there is enough other text, even without <main>', () => {
    const long = 'word '.repeat(MIN_CONTENT_CHARS / 5 + 10).trim();
    const { text } = extract(`<nav>Menu</nav><div><p>${long}</p></div><footer>Foot</footer>`);
    assert.equal(text, long);
  });

  test('chrome is kept when it is nearly all the page has', () => {
    assert.equal(extract('<nav>Menu A</nav><p>short</p><footer>Foot</footer>').text, 'Menu A\nshort\nFoot');
  });

  test('words never glue across block tags; inline tags do not split words', () => {
    assert.equal(extract('<p>a</p><p>b</p>').text, 'a\nb');
    assert.equal(extract('<div>one<div>two</div>three</div><ul><li>x<li>y</ul>').text, 'one\ntwo\nthree\nx\ny');
    assert.equal(extract('<table><tr><td>c1</td><td>c2</td></tr></table>line<br>break').text, 'c1\nc2\nline\nbreak');
    assert.equal(extract('<p>bo<b>ld</b> and <a href="/x">li</a>nk</p>').text, 'bold and link');
  });

  test('whitespace and &nbsp; are collapsed', () => {
    assert.equal(extract('<p>  lots \n\n of\t\tspace&nbsp;&nbsp;here </p>').text, 'lots of space here');
  });

  test('text is capped at 200,000 chars', () => {
    const para = `<p>${'abcdefghi '.repeat(1000)}</p>`;
    const { text } = extract(para.repeat(30));
    assert.equal(text.length, 200_000);
  });

  test('malformed HTML: unclosed tags and stray end tags do not throw and keep the text', () => {
    const page = extract('<div><p>unclosed <b>bold <i>italic</div></div></span>after stray<table><td>cell<p>in');
    assert.equal(page.text, 'unclosed bold italic\nafter stray\ncell\nin');
  });

  test('garbage and pathological nesting do not throw', () => {
    assert.doesNotThrow(() => extract('<<<>>><a href=">"<p <!-- </ div>&#xFFFFFF;&bogus;\u0000<'));
    const deep = extract(`${'<div>'.repeat(50_000)}deep${'</div>'.repeat(10)}`);
    assert.equal(deep.text, 'deep');
    assert.equal(extract('').text, '');
  });
});

describe('extractPage: links', () => {
  test('relative links resolve against the page URL; fragments dropped, entities decoded', () => {
    assert.deepEqual(
      urls(
        '<a href="other.html#part">o</a><a href="/root?q=1#x">r</a><a href="#top">t</a><a href="q?a=1&amp;b=2">e</a>',
      ),
      [
        'https://example.org/dir/other.html',
        'https://example.org/root?q=1',
        'https://example.org/dir/page.html',
        'https://example.org/dir/q?a=1&b=2',
      ],
    );
  });

  test('an absolute <base href> is used for resolution', () => {
    assert.deepEqual(
      urls('<head><base href="https://cdn.example.net/base/"></head><a href="x">x</a><a href="/y">y</a>'),
      ['https://cdn.example.net/base/x', 'https://cdn.example.net/y'],
    );
  });

  test('a relative <base href> resolves against the page URL', () => {
    assert.deepEqual(urls('<base href="../other/sub/"><a href="x.html">x</a>'), [
      'https://example.org/other/sub/x.html',
    ]);
  });

  test('an invalid or javascript: base is ignored', () => {
    assert.deepEqual(urls('<base href="http://[::bad"><a href="x">x</a>'), ['https://example.org/dir/x']);
    assert.deepEqual(urls('<base href="javascript:alert(1)//"><a href="x">x</a>'), ['https://example.org/dir/x']);
  });

  test('only http(s) links survive; unparsable hrefs are skipped silently', () => {
    const html = `<a href="javascript:void(0)">j</a><a href=" JavaScript:x">j2</a><a href="mailto:a@b.c">m</a>
      <a href="tel:+123">t</a><a href="data:text/html,hi">d</a><a href="ftp://example.org/f">f</a>
      <a href="http://[bad">bad</a><a href="https://ok.example/">ok</a><a>no href</a><area href="/map">`;
    assert.deepEqual(urls(html), ['https://ok.example/', 'https://example.org/map']);
  });

  test('rel=nofollow is detected; a URL is nofollow only if every link to it is', () => {
    const { links } = extract(`<a rel="NoFollow ugc" href="/n">n</a><a rel="sponsored" href="/s">s</a>
      <a rel="nofollow" href="/both">1</a><a href="/both#again">2</a>`);
    assert.deepEqual(links, [
      { url: 'https://example.org/n', nofollow: true },
      { url: 'https://example.org/s', nofollow: false },
      { url: 'https://example.org/both', nofollow: false },
    ]);
  });

  test('links are deduped and capped at maxLinks, counting distinct dropped URLs', () => {
    const html = Array.from({ length: 10 }, (_, i) => `<a href="/p${i}">${i}</a><a href="/p${i}#dup">again</a>`).join(
      '',
    );
    const page = extract(html, 3);
    assert.deepEqual(
      page.links.map((l) => l.url),
      ['https://example.org/p0', 'https://example.org/p1', 'https://example.org/p2'],
    );
    assert.equal(page.droppedLinks, 7);
    assert.equal(extract(html).droppedLinks, 0);
    assert.equal(extract(html).links.length, 10);
  });

  test('a page of 100,000 links: the first maxLinks kept, and only the first rawLinkCap hrefs read at all', () => {
    const html = `<title>many</title><p>${Array.from({ length: 100_000 }, (_, i) => `<a href="/l/${i}">${i}</a>`).join('\n')}</p><p>the end</p>`;
    const page = extract(html, 5000);
    assert.equal(page.links.length, 5000);
    assert.equal(page.links[4999]!.url, 'https://example.org/l/4999');
    assert.equal(rawLinkCap(5000), 20_000);
    assert.equal(page.droppedLinks, 20_000 - 5000, 'hrefs past the cap are not even resolved');
    assert.ok(
      page.text.startsWith('0 1 2 3') && page.text.length === 200_000,
      'the text is read as ever (up to its cap)',
    );
  });

  test('in slices: a big page is parsed SLICE_CHARS at a time, with the same result as at once', () => {
    const html = `<title>Big</title>${Array.from({ length: 3000 }, (_, i) => `<h2>H${i}</h2><p>word${i} <a href="/p${i}">l</a></p>`).join('')}`;
    assert.ok(html.length > 4 * SLICE_CHARS);
    const steps = extractPageSteps(html, PAGE, { productToken: 'LanternBot' });
    let slices = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) slices++;
    assert.ok(slices >= Math.floor(html.length / SLICE_CHARS), `${slices} pauses for ${html.length} chars`);
    assert.deepEqual(step.value, extract(html));
    assert.equal(step.value.links.length, 3000);
  });

  test('canonical is absolute, fragment-free, and honours <base>', () => {
    assert.equal(extract('<link rel="Canonical" href="/canon#x">').canonical, 'https://example.org/canon');
    assert.equal(
      extract('<base href="https://b.example/d/"><link rel="alternate canonical" href="c">').canonical,
      'https://b.example/d/c',
    );
    assert.equal(extract('<link rel="canonical" href="javascript:x">').canonical, undefined);
    assert.equal(extract('<p>none</p>').canonical, undefined);
  });
});

describe('extractPage: robots meta', () => {
  test('collects meta robots and token-specific values, ignoring other bots', () => {
    const page = extract(`<meta name="robots" content="noindex"><meta name="ROBOTS" content="NOINDEX, NOFOLLOW">
      <meta name="LanternBot" content="noindex"><meta name="lanternbot" content="nofollow">
      <meta name="googlebot" content="none"><meta name="robots">`);
    assert.deepEqual(page.metaRobots, ['noindex', 'NOINDEX, NOFOLLOW']);
    assert.deepEqual(page.metaForToken, ['noindex', 'nofollow']);
  });
});

describe('limitNesting', () => {
  test('ordinary pages come back untouched (same string)', () => {
    const page = `<html><body>${'<div><p>para<br><img src=x></p></div>'.repeat(3000)}</body></html>`;
    assert.equal(limitNesting(page), page);
    const scripted = `<div><script>${'"<div>"+'.repeat(2000)}''</script><!-- ${'<b>'.repeat(2000)} --></div>`;
    assert.equal(limitNesting(scripted), scripted);
  });

  test('start tags beyond the limit are flattened and their end tags neutralized', () => {
    const extra = 500;
    const html = `${'<div>'.repeat(MAX_OPEN_ELEMENTS + extra)}x${'</div>'.repeat(MAX_OPEN_ELEMENTS + extra)}<p>after</p>`;
    const limited = limitNesting(html);
    assert.equal(limited.split('<div></div>').length - 1, extra);
    assert.equal(limited.split('</div>').length - 1, MAX_OPEN_ELEMENTS + extra);
    assert.equal(extract(html).text, 'x\nafter');
  });

  test('text and links deep inside a pathological page survive, in order', () => {
    const n = 3000;
    const html = Array.from({ length: n }, (_, i) => `<div class="d"><a href="/l${i}">w${i}</a>`).join('');
    const page = extract(html);
    assert.equal(page.links.length, n);
    assert.equal(page.links[n - 1]!.url, `https://example.org/l${n - 1}`);
    const words = page.text.split(/\s+/);
    assert.deepEqual(
      words,
      Array.from({ length: n }, (_, i) => `w${i}`),
    );
  });
});

describe('extractPage: what links say', () => {
  test("a heading's permalink mark is no text of the page or its heading, and no link", () => {
    const page =
      extract(`<main><h2>List Comprehensions<a class="headerlink" href="#list-comprehensions" title="Permalink">¶</a></h2>
      <p>Make lists.<a href="#x">#</a> See <a href="#sec">section 3</a>.</p></main>`);
    assert.deepEqual(page.headings, ['List Comprehensions']);
    assert.ok(!page.text.includes('¶') && !/#/.test(page.text), page.text);
    assert.ok(page.text.includes('section 3'), 'a link to a place on the page with words keeps them');
    assert.deepEqual(
      page.links.map((l) => l.url),
      [PAGE],
    );
  });

  test('content links keep their words; navigation links count as links only', () => {
    const page = extract(`<nav><a href="/a">Home</a></nav><main><p>Read <a href="/a">the   <b>guide</b></a> and
      <a href="/b">${'word '.repeat(40)}</a> or <a href="/c"><img alt=""></a>.</p></main><footer><a href="/d">Legal</a></footer>`);
    assert.deepEqual(
      page.links.map((l) => l.url.slice(-2)),
      ['/a', '/b', '/c', '/d'],
    );
    assert.deepEqual(
      page.anchors.map((a) => [a.url.slice(-2), a.text.length > 0 ? a.text.slice(0, 9) : '']),
      [
        ['/a', 'the guide'],
        ['/b', 'word word'],
        ['/c', ''],
      ],
    );
    assert.ok(page.anchors[1]!.text.length <= 80, 'anchor text is bounded');
  });

  test('link density: a table of contents is nearly all links, an article hardly any', () => {
    const toc = extract(
      `<main><h1>Contents</h1><ul>${Array.from({ length: 30 }, (_, i) => `<li><a href="/p${i}">Chapter ${i} of the book</a></li>`).join('')}</ul></main>`,
    );
    const article = extract(
      `<main><h1>Lists</h1><p>${'A list holds items in order and can grow. '.repeat(20)} See <a href="/x">lists</a>.</p></main>`,
    );
    assert.ok(toc.linkDensity > 0.9, String(toc.linkDensity));
    assert.ok(article.linkDensity < 0.05, String(article.linkDensity));
    assert.equal(extract('<p></p>').linkDensity, 0);
  });
});
