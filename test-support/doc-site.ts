/**
 * Generated documentation sites for search tests: pages shaped like Sphinx output (a title with the
 * project's name after a dash, headings with "¶" permalinks, a navigation sidebar linking every
 * page, cross-references in the text), plus a table of contents and an index that are mostly links.
 * Small and deterministic; the words are written as a person would document a toy language.
 */
import type { SiteSpec } from './test-web.ts';

/** One page of a generated documentation site. */
export interface DocPage {
  path: string;
  /** The page's own title (the site's name is added after a dash, as Sphinx does). */
  title: string;
  /** Section headings (h2), each followed by its paragraph. */
  sections: Array<{ heading: string; text: string }>;
  /** Links in the text, by target path, with their words. */
  refs?: Array<{ path: string; text: string }>;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * A documentation site named `name`: its `pages`, an index page ('/'), a table of contents
 * ('/contents.html', every page and section as a link) and a general index ('/genindex.html').
 */
export function docSite(name: string, pages: readonly DocPage[]): SiteSpec {
  const out: Record<string, string> = {};
  const sidebar = `<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><ul>${pages
    .map((p) => `<li><a href="${p.path}">${escapeHtml(p.title)}</a></li>`)
    .join('')}<li><a href="/contents.html">Contents</a></li><li><a href="/genindex.html">Index</a></li></ul></div>`;
  const page = (title: string, main: string): string =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} — ${escapeHtml(name)} documentation</title></head>` +
    `<body><div class="related" role="navigation"><a href="/">${escapeHtml(name)}</a> » <a href="/genindex.html">index</a></div>` +
    `<div class="body" role="main">${main}</div>${sidebar}</body></html>`;
  for (const p of pages) {
    const refs = (p.refs ?? []).map((r) => `See also <a href="${r.path}">${escapeHtml(r.text)}</a>.`).join(' ');
    const sections = p.sections
      .map(
        (s) =>
          `<section id="${slug(s.heading)}"><h2>${escapeHtml(s.heading)}<a class="headerlink" href="#${slug(s.heading)}" title="Permalink to this heading">¶</a></h2>` +
          `<p>${escapeHtml(s.text)}</p></section>`,
      )
      .join('');
    out[p.path] = page(
      p.title,
      `<section id="top"><h1>${escapeHtml(p.title)}<a class="headerlink" href="#top">¶</a></h1>${sections}<p>${refs}</p></section>`,
    );
  }
  const toc = pages
    .map(
      (p) =>
        `<li><a href="${p.path}">${escapeHtml(p.title)}</a><ul>${p.sections
          .map((s) => `<li><a href="${p.path}#${slug(s.heading)}">${escapeHtml(s.heading)}</a></li>`)
          .join('')}</ul></li>`,
    )
    .join('');
  out['/contents.html'] = page(
    `${name} documentation contents`,
    `<h1>${escapeHtml(name)} documentation contents</h1><ul>${toc}</ul>`,
  );
  const terms = pages
    .flatMap((p) => p.sections.map((s) => ({ term: s.heading, path: `${p.path}#${slug(s.heading)}` })))
    .sort((a, b) => a.term.localeCompare(b.term));
  out['/genindex.html'] = page(
    'Index',
    `<h1>Index</h1><ul>${terms.map((t) => `<li><a href="${t.path}">${escapeHtml(t.term)}</a></li>`).join('')}</ul>`,
  );
  out['/'] = page(
    `${name} documentation`,
    `<h1>${escapeHtml(name)} documentation</h1><p>Welcome to the ${escapeHtml(name)} documentation.</p><ul>${pages
      .map((p) => `<li><a href="${p.path}">${escapeHtml(p.title)}</a></li>`)
      .join('')}</ul>`,
  );
  return { pages: out };
}

/** The pages of "Toy", a small made-up language, documented as Python documents itself. */
export const TOY_PAGES: DocPage[] = [
  {
    path: '/tutorial/datastructures.html',
    title: '5. Data Structures',
    sections: [
      {
        heading: '5.1. More on Lists',
        text: 'The list data type has some more methods: append, extend, insert and remove an item.',
      },
      {
        heading: '5.1.3. List Comprehensions',
        text: 'List comprehensions provide a concise way to create lists from sequences, with a loop and a condition in one expression.',
      },
      {
        heading: '5.1.4. Nested List Comprehensions',
        text: 'The initial expression in a list comprehension can be any expression, including another list comprehension.',
      },
    ],
    refs: [{ path: '/library/stdtypes.html', text: 'str.split' }],
  },
  {
    path: '/howto/functional.html',
    title: 'Functional Programming HOWTO',
    sections: [
      {
        heading: 'Generator expressions and list comprehensions',
        text: 'List comprehensions and generator expressions are a concise notation for operations on iterators.',
      },
      {
        heading: 'Iterators',
        text: 'An iterator is an object representing a stream of data, returning one element at a time.',
      },
    ],
    refs: [{ path: '/tutorial/datastructures.html', text: 'list comprehensions' }],
  },
  {
    path: '/faq/programming.html',
    title: 'Programming FAQ',
    sections: [
      {
        heading: 'How do I create a multidimensional list?',
        text: 'Use a list comprehension to create a list of distinct lists rather than repeating one list.',
      },
      {
        heading: 'How do I split a string into words?',
        text: 'Call the split method of the string; it returns a list of the words.',
      },
    ],
    refs: [
      { path: '/library/stdtypes.html', text: 'str.split' },
      { path: '/tutorial/datastructures.html', text: 'list comprehensions' },
    ],
  },
  {
    path: '/library/zlib.html',
    title: 'zlib — Compression compatible with gzip',
    sections: [
      {
        heading: 'List compression levels',
        text: 'The compression level is an integer from 0 to 9 controlling the level of compression.',
      },
    ],
  },
  {
    path: '/library/stdtypes.html',
    title: 'Built-in Types',
    sections: [
      {
        heading: 'Text Sequence Type — str',
        text: 'str.split(sep=None, maxsplit=-1) returns a list of the words in the string, using sep as the delimiter string.',
      },
      {
        heading: 'Sequence Types — list, tuple, range',
        text: 'Lists are mutable sequences, typically used to store collections of homogeneous items.',
      },
    ],
  },
  {
    path: '/library/os.path.html',
    title: 'os.path — Common pathname manipulations',
    sections: [
      { heading: 'Joining paths', text: 'os.path.join(path, *paths) joins one or more path components intelligently.' },
    ],
  },
  {
    path: '/library/readline.html',
    title: 'readline — GNU readline interface',
    sections: [
      {
        heading: 'Example',
        text: 'The history file is kept at os.path.join(os.path.expanduser("~"), ".toy_history") and read at startup.',
      },
    ],
    refs: [{ path: '/library/os.path.html', text: 'os.path.join' }],
  },
  {
    path: '/library/python.html',
    title: 'Python compatibility layer',
    sections: [
      {
        heading: 'Running Python code',
        text: 'Toy runs Python modules through its compatibility layer; python code can import toy modules.',
      },
    ],
  },
];
