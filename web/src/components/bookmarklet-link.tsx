import { useEffect, useRef, useState } from 'react';

/**
 * The "Add to Lantern" bookmarklet: dragged to the bookmarks bar, it opens this Lantern's Seeds view in a
 * new tab with the current page's address and title filled in (`/seeds?add=…&title=…`). It never adds
 * anything itself: the person confirms with "Add seed". React refuses javascript: URLs in JSX, so the
 * link's href is set on the element directly; clicked here, it explains how it is used instead.
 */
export function bookmarkletCode(origin: string): string {
  const target = JSON.stringify(`${origin}/seeds?add=`);
  return `javascript:(()=>{window.open(${target}+encodeURIComponent(location.href)+'&title='+encodeURIComponent(document.title),'_blank')})()`;
}

/** The bookmarklet link with its instructions; a click on it here says how to use it (it works from the bookmarks bar). */
export function BookmarkletLink() {
  const ref = useRef<HTMLAnchorElement>(null);
  const [explained, setExplained] = useState(false);
  useEffect(() => {
    ref.current?.setAttribute('href', bookmarkletCode(window.location.origin));
  }, []);
  return (
    <p className="bookmarklet-row">
      <a
        ref={ref}
        className="bookmarklet button"
        onClick={(event) => {
          event.preventDefault();
          setExplained(true);
        }}
        title="Drag this to your bookmarks bar"
      >
        Add to Lantern
      </a>{' '}
      <span className="hint">
        Drag this to your bookmarks bar; on any page, click it to open this form with the page filled in, then confirm.
      </span>
      <span role="status" className="bookmarklet-explained">
        {explained ? (
          <span className="notice info">
            Add to Lantern is a bookmarklet: it does nothing on this page. Drag it to your bookmarks bar (or bookmark
            it); then, on a page you want to keep, click it in the bar: this form opens with that page filled in, for
            you to check and add.
          </span>
        ) : null}
      </span>
    </p>
  );
}
