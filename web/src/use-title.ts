import { useEffect } from 'react';

/** Sets the document title to "<title> — Lantern" while the calling view is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title === '' ? 'Lantern' : `${title} — Lantern`;
  }, [title]);
}
