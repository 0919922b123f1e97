import { Link } from './link.tsx';

const LINKS = [
  { href: '/', label: 'Search' },
  { href: '/seeds', label: 'Seeds' },
  { href: '/domains', label: 'Domains' },
];

/** The main navigation: one link per view, the current one marked with aria-current="page". */
export function NavBar({ path }: { path: string }) {
  return (
    <nav aria-label="Main" className="nav">
      <ul>
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link href={link.href} aria-current={path === link.href ? 'page' : undefined}>
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
