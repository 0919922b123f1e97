import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from 'react';
import { navigate } from '../router.ts';

/** Props of an in-app link: a normal anchor whose plain left clicks navigate without a page load. */
export interface LinkProps extends AnchorHTMLAttributes<HTMLAnchorElement> {
  href: string;
  children: ReactNode;
}

/** An in-app link; modified clicks (new tab, etc.) keep the browser's default behaviour. */
export function Link({ href, onClick, children, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event);
    if (event.defaultPrevented) return;
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (rest.target !== undefined && rest.target !== '_self') return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={handleClick} {...rest}>
      {children}
    </a>
  );
}
