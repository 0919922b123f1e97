// A page-level guard against a file dropped where nothing takes it: the browser would open the file in the
// tab and leave Lantern (and whatever the person had typed). Drop zones handle their own drops first.
import { useEffect } from 'react';

/** Whether a drag carries files (not text or a link dragged within the page). Pure. */
export function carriesFiles(types: readonly string[] | DOMStringList | undefined): boolean {
  if (types === undefined) return false;
  return Array.from(types as ArrayLike<string>).includes('Files');
}

/**
 * Cancels the browser's own handling of a file dragged over or dropped anywhere on the page (it would
 * navigate to the file), once any drop zone or view listener had its turn. While a file is dragged
 * outside a drop zone the pointer shows that nothing will happen there.
 */
export function useDropGuard(): void {
  useEffect(() => {
    const onDragOver = (event: DragEvent): void => {
      if (!carriesFiles(event.dataTransfer?.types)) return;
      if (event.defaultPrevented) return; // a drop zone took it, with its own effect
      event.preventDefault();
      if (event.dataTransfer !== null) event.dataTransfer.dropEffect = 'none';
    };
    const onDrop = (event: DragEvent): void => {
      if (carriesFiles(event.dataTransfer?.types)) event.preventDefault();
    };
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('drop', onDrop);
    };
  }, []);
}
