import { Link } from '../components/link.tsx';
import { useTitle } from '../use-title.ts';

/** Shown for a path the app does not know. */
export function NotFoundView({ path }: { path: string }) {
  useTitle('Not found');
  return (
    <section className="view" aria-labelledby="not-found-heading">
      <h1 id="not-found-heading" tabIndex={-1}>
        Page not found
      </h1>
      <p>
        There is nothing at <code>{path}</code>. <Link href="/">Go to Search</Link>.
      </p>
    </section>
  );
}
