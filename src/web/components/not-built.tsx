import { Link } from 'react-router';
import { getStoredUser } from '#web/lib/browser-storage.ts';

/** An honest page for a route whose capability this version does not have yet. */
export function NotBuiltPage({ title, capability }: { title: string; capability: string }) {
  const isSignedIn = getStoredUser() !== null;
  return (
    <main className="centered-page">
      <section className="card narrow" aria-labelledby="not-built-title">
        <h1 id="not-built-title">{title}</h1>
        <p>
          {capability} is not available in this version of Open RON yet. Nothing on this page is simulated: it will appear here once that capability is built.
        </p>
        <Link className="button primary" to={isSignedIn ? '/dashboard' : '/login'}>
          {isSignedIn ? 'Back to dashboard' : 'Go to sign in'}
        </Link>
      </section>
    </main>
  );
}
