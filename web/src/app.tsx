import { useEffect, useRef, type ReactNode } from 'react';
import { Link } from './components/link.tsx';
import { NavBar } from './components/nav-bar.tsx';
import { useLocation } from './router.ts';
import { DomainsView } from './views/domains-view.tsx';
import { NotFoundView } from './views/not-found-view.tsx';
import { SearchView } from './views/search-view.tsx';
import { SeedsView } from './views/seeds-view.tsx';
import { StoredView } from './views/stored-view.tsx';
import { parsePage } from './query.ts';
import { signOut, useSession } from './session.ts';
import { SignInView } from './views/sign-in-view.tsx';
import { SignOutButton } from './components/sign-out-button.tsx';
import { useDropGuard } from './drop-guard.ts';

function normalizePath(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/**
 * The app shell: skip link, header with the main navigation, and the current view in `<main>`.
 * After an in-app move to another view, focus goes to that view's search box or heading. When this
 * Lantern asks for its secret and the browser is not signed in, the sign-in page stands in for every
 * view (no view asks the API for anything until then); signed in, the header offers to sign out.
 * A file dropped anywhere but a drop box is not opened by the browser (useDropGuard).
 */
export function App() {
  const session = useSession();
  const location = useLocation();
  const path = normalizePath(location.path);
  const mainRef = useRef<HTMLElement>(null);
  const previousPath = useRef(path);
  useDropGuard(); // a file dropped beside a drop box must not make the browser open it and leave Lantern

  useEffect(() => {
    if (previousPath.current === path) return;
    previousPath.current = path;
    const main = mainRef.current;
    if (main === null) return;
    const target = main.querySelector<HTMLElement>('[data-autofocus]') ?? main.querySelector<HTMLElement>('h1');
    target?.focus({ preventScroll: true });
  }, [path]);

  const info = session.info;
  const signInNeeded = info?.required && !info.signedIn;
  let view: ReactNode;
  if (info === null)
    view = null; // asking the server whether a sign-in is needed
  else if (signInNeeded) view = <SignInView onSignedIn={session.set} />;
  else if (path === '/') view = <SearchView />;
  else if (path === '/seeds') view = <SeedsView />;
  else if (path === '/domains') view = <DomainsView />;
  else if (path === '/stored')
    view = (
      <StoredView
        url={location.params.get('url') ?? ''}
        query={location.params.get('q') ?? ''}
        page={parsePage(location.params.get('page'))}
      />
    );
  else view = <NotFoundView path={location.path} />;

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="header-inner">
          <Link href="/" className="brand">
            <svg className="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
              <path d="M12 6h8M16 6v3M10 11h12l-1.5 13h-9z" />
              <circle cx="16" cy="17.5" r="2.6" />
              <path d="M11 27h10" />
            </svg>
            <span>Lantern</span>
          </Link>
          {info !== null && !signInNeeded ? <NavBar path={path} /> : null}
          {info?.required && info.signedIn ? (
            <SignOutButton onSignOut={async () => session.set(await signOut())} />
          ) : null}
        </div>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {view}
      </main>
    </>
  );
}
