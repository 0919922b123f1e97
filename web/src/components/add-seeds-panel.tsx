import { useId, type ReactNode } from 'react';

/**
 * The add and import forms behind one "Add seeds" button: open while there are no seeds (or a page is
 * being added from the bookmarklet), folded away once there are, so the library comes first. Folded, the
 * forms stay mounted (hidden), keeping what was typed and what they last said.
 */
export function AddSeedsPanel({
  open,
  onToggle,
  children,
}: {
  open: boolean;
  onToggle: (open: boolean) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div className="add-seeds">
      <button
        type="button"
        className="button add-seeds-toggle"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        onClick={() => onToggle(!open)}
      >
        <span aria-hidden="true" className="disclosure-mark">
          {open ? '▾' : '▸'}
        </span>{' '}
        Add seeds
      </button>
      <div id={`${id}-panel`} className="add-seeds-panel" hidden={!open}>
        {children}
      </div>
    </div>
  );
}
