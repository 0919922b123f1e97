/**
 * Bookmark exports as each browser writes them, for import tests and the import benchmark: the Netscape
 * bookmark file format (doctype, `<DL><p>` lists, `<DT><H3>` folders with the browsers' own attributes,
 * `<DT><A HREF>` bookmarks with ADD_DATE, ICON, TAGS, SHORTCUTURL, `<DD>` notes) as Chrome, Edge, Firefox
 * and Safari export it, with nested folders, entities and non-Latin titles, and the entries an import must
 * refuse (`javascript:` bookmarklets, Firefox's `place:` queries, `data:` and `file:` addresses).
 */

const HEADER = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file.
     It will be read and overwritten.
     DO NOT EDIT! -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
`;

const ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAAXNSR0IArs4c6QAAAERJREFUOI1jYBgFo2AUjIJRMApGwSgYBaNgFIyCUTAKRsEoGAWjYBSMglEwCkbBKBgFo2AUjIJRMApGwSgYBaNgFIyCUQAAuYQEEUo2sgAAAABJRU5ErkJggg==';

/** Chrome's export: the bookmarks bar is a PERSONAL_TOOLBAR_FOLDER folder, "Other bookmarks" likewise a folder. */
export const CHROME_EXPORT = `${HEADER}<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1700000000" LAST_MODIFIED="1700000100" PERSONAL_TOOLBAR_FOLDER="true">Bookmarks bar</H3>
    <DL><p>
        <DT><A HREF="https://example.org/" ADD_DATE="1700000001" ICON="${ICON}">Example &amp; Co</A>
        <DT><H3 ADD_DATE="1700000002" LAST_MODIFIED="1700000003">Dev Tools</H3>
        <DL><p>
            <DT><A HREF="https://doc.rust-lang.org/book/?x=1&amp;y=2" ADD_DATE="1700000004">The Rust &lt;Book&gt;</A>
            <DT><H3 ADD_DATE="1700000005" LAST_MODIFIED="1700000006">Библиотеки</H3>
            <DL><p>
                <DT><A HREF="https://пример.рф/статья" ADD_DATE="1700000007">Статья 📚</A>
            </DL><p>
            <DT><A HREF="javascript:(function(){alert(document.title)})()" ADD_DATE="1700000008">Show title</A>
        </DL><p>
        <DT><A HREF="https://example.org/#top" ADD_DATE="1700000009">Example again</A>
    </DL><p>
    <DT><H3 ADD_DATE="1700000010" LAST_MODIFIED="1700000011">Other bookmarks</H3>
    <DL><p>
        <DT><A HREF="chrome://settings/" ADD_DATE="1700000012">Settings</A>
        <DT><A HREF="https://news.example.com/it&#39;s" ADD_DATE="1700000013">It&#39;s news</A>
    </DL><p>
</DL><p>
`;

/** Edge's export: Chrome's layout, with "Favorites bar" and "Other favorites". */
export const EDGE_EXPORT = `${HEADER}<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1700000000" LAST_MODIFIED="1700000100" PERSONAL_TOOLBAR_FOLDER="true">Favorites bar</H3>
    <DL><p>
        <DT><A HREF="https://learn.example.net/docs/" ADD_DATE="1700000001">Docs</A>
        <DT><H3 ADD_DATE="1700000002" LAST_MODIFIED="1700000003">Work / Projects</H3>
        <DL><p>
            <DT><A HREF="https://tracker.example.net/board?id=7" ADD_DATE="1700000004">Board</A>
            <DT><A HREF="data:text/html,&lt;h1&gt;hi&lt;/h1&gt;" ADD_DATE="1700000005">A data page</A>
        </DL><p>
    </DL><p>
    <DT><H3 ADD_DATE="1700000006" LAST_MODIFIED="1700000007">Other favorites</H3>
    <DL><p>
        <DT><A HREF="https://recipes.example.com/soup" ADD_DATE="1700000008">Soup</A>
    </DL><p>
</DL><p>
`;

/** Firefox's export: "Bookmarks Menu" is the outer list; toolbar and unfiled folders are flagged; tags and place: queries. */
export const FIREFOX_EXPORT = `${HEADER.replace(
  '<TITLE>',
  `<meta http-equiv="Content-Security-Policy"
      content="default-src 'self'; script-src 'none'; img-src data: *; object-src 'none'"></meta>
<TITLE>`,
)}<H1>Bookmarks Menu</H1>

<DL><p>
    <DT><A HREF="place:parent=menu________&amp;queryType=1&amp;sort=12&amp;maxResults=10&amp;excludeQueries=1" ADD_DATE="1700000000" LAST_MODIFIED="1700000000">Recently Bookmarked</A>
    <DT><H3 ADD_DATE="1700000001" LAST_MODIFIED="1700000002">Mozilla Firefox</H3>
    <DL><p>
        <DT><A HREF="https://support.mozilla.example/products/firefox" ADD_DATE="1700000003" LAST_MODIFIED="1700000003" ICON_URI="https://support.mozilla.example/favicon.ico" ICON="${ICON}">Get Help</A>
    </DL><p>
    <DT><H3 ADD_DATE="1700000004" LAST_MODIFIED="1700000005" PERSONAL_TOOLBAR_FOLDER="true">Bookmarks Toolbar</H3>
    <DD>Add bookmarks to this folder to see them displayed on the Bookmarks Toolbar
    <DL><p>
        <DT><A HREF="https://doc.rust-lang.org/book/?y=2&amp;x=1" ADD_DATE="1700000006" LAST_MODIFIED="1700000006" SHORTCUTURL="rb" TAGS="rust,Reading List">Rust book (Firefox)</A>
        <DD>The book, from the toolbar
        <DT><H3 ADD_DATE="1700000007" LAST_MODIFIED="1700000008">Ελληνικά</H3>
        <DL><p>
            <DT><A HREF="https://greek.example.org/καλημέρα" ADD_DATE="1700000009">Καλημέρα κόσμε</A>
        </DL><p>
    </DL><p>
    <DT><H3 ADD_DATE="1700000010" LAST_MODIFIED="1700000011" UNFILED_BOOKMARKS_FOLDER="true">Other Bookmarks</H3>
    <DL><p>
        <DT><A HREF="place:sort=8&amp;maxResults=10" ADD_DATE="1700000012">Most Visited</A>
        <DT><A HREF="file:///home/me/notes.pdf" ADD_DATE="1700000013">Local notes</A>
        <DT><A HREF="https://user:secret@private.example.com/" ADD_DATE="1700000014">With a password</A>
    </DL><p>
</DL>
`;

/** Safari's export: folders at the top level (Favorites, Bookmarks Menu), a Reading List folder with previews. */
export const SAFARI_EXPORT = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
\t<HTML>
\t<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
\t<Title>Bookmarks</Title>
\t<H1>Bookmarks</H1>
\t<DT><H3 FOLDED>Favorites</H3>
\t<DL><p>
\t\t<DT><A HREF="https://www.apple.example/">Apple</A>
\t\t<DT><H3 FOLDED>Recipes &amp; Food</H3>
\t\t<DL><p>
\t\t\t<DT><A HREF="https://recipes.example.com/soup">Soup (Safari)</A>
\t\t\t<DT><A HREF="https://recipes.example.com/bread">Bread</A>
\t\t</DL><p>
\t</DL><p>
\t<DT><H3 FOLDED>Bookmarks Menu</H3>
\t<DL><p>
\t</DL><p>
\t<DT><H3 FOLDED id="com.apple.ReadingList">Reading List</H3>
\t<DL><p>
\t\t<DT><A HREF="https://blog.example.org/post">A long read</A>
\t\t<DD>The first lines of the post, as Safari keeps them
\t\t<DT><A HREF="">Nothing here</A>
\t</DL><p>
</HTML>
`;

/**
 * A Chrome-style export of `n` bookmarks on `hosts` distinct hosts, in folders three deep (with
 * favicons, as real exports carry them), for the import benchmark and the size test.
 */
export function largeBookmarkExport(n: number, opts: { hosts?: number; icons?: boolean } = {}): string {
  const hosts = opts.hosts ?? Math.max(1, Math.floor(n / 10));
  const parts: string[] = [
    `${HEADER}<H1>Bookmarks</H1>\n<DL><p>\n    <DT><H3 PERSONAL_TOOLBAR_FOLDER="true">Bookmarks bar</H3>\n    <DL><p>\n`,
  ];
  const perFolder = 50;
  for (let i = 0; i < n; i++) {
    if (i % perFolder === 0) {
      if (i > 0) parts.push('            </DL><p>\n        </DL><p>\n');
      const f = i / perFolder;
      parts.push(
        `        <DT><H3 ADD_DATE="1700000000">Topic ${f % 40}</H3>\n        <DL><p>\n            <DT><H3>Sub ${f}</H3>\n            <DL><p>\n`,
      );
    }
    const icon = opts.icons === false ? '' : ` ICON="${ICON}"`;
    parts.push(
      `                <DT><A HREF="https://site${i % hosts}.example/page/${i}?ref=bookmarks&amp;n=${i}" ADD_DATE="${1700000000 + i}"${icon}>Page ${i} — a bookmark &amp; its title</A>\n`,
    );
  }
  if (n > 0) parts.push('            </DL><p>\n        </DL><p>\n');
  parts.push('    </DL><p>\n</DL><p>\n');
  return parts.join('');
}
