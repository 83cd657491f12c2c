import { Component, type ErrorInfo, type ReactNode } from 'react';
import { wipeBrowserState } from '#web/lib/browser-storage.ts';

interface RouteErrorBoundaryProps {
  routeName: string;
  children: (attempt: number) => ReactNode;
}

interface RouteErrorBoundaryState {
  error: Error | null;
  attempt: number;
}

/** The route-level error screen: 'Something went wrong' with Try Again, Go Back and Go to Dashboard. */
export class RouteErrorBoundary extends Component<RouteErrorBoundaryProps, RouteErrorBoundaryState> {
  state: RouteErrorBoundaryState = { error: null, attempt: 0 };

  static getDerivedStateFromError(error: unknown): Partial<RouteErrorBoundaryState> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`Error in ${this.props.routeName}`, error, info.componentStack);
  }

  private reset = () => this.setState((state) => ({ error: null, attempt: state.attempt + 1 }));

  render() {
    const { error, attempt } = this.state;
    if (!error) return this.props.children(attempt);
    return <RouteErrorScreen routeName={this.props.routeName} error={error} onReset={this.reset} />;
  }
}

export function RouteErrorScreen({ routeName, error, onReset }: { routeName: string; error: Error; onReset: () => void }) {
  return (
    <main className="error-screen" role="alert">
      <h1>Something went wrong</h1>
      <p>An error occurred while loading {routeName}</p>
      <p className="error-message">{error.message}</p>
      {error.stack ? (
        <details>
          <summary>Stack trace</summary>
          <pre>{error.stack}</pre>
        </details>
      ) : null}
      <p className="hint">If this keeps happening, try clearing your browser cache and reloading.</p>
      <div className="actions">
        <button type="button" className="button primary" onClick={onReset}>
          Try Again
        </button>
        <button type="button" className="button" onClick={() => window.history.back()}>
          Go Back
        </button>
        <button type="button" className="button" onClick={() => window.location.assign('/dashboard')}>
          Go to Dashboard
        </button>
      </div>
    </main>
  );
}

export function AppErrorScreen() {
  const nuclearClear = async () => {
    await wipeBrowserState();
    const url = new URL(window.location.href);
    url.searchParams.set('_cb', Date.now().toString(36));
    window.location.replace(url.toString());
  };
  return (
    <main className="error-screen" role="alert">
      <h1>Application Error</h1>
      <p>The application encountered an unexpected error.</p>
      <p className="hint">This is often caused by browser cache issues after updates.</p>
      <div className="actions">
        <button type="button" className="button primary" onClick={() => window.location.reload()}>
          Refresh Page
        </button>
        <button type="button" className="button danger" onClick={() => void nuclearClear()}>
          Nuclear Clear &amp; Reload
        </button>
      </div>
    </main>
  );
}

/** App level: catches what no route boundary caught. */
export class AppErrorBoundary extends Component<{ children: ReactNode }, { hasError: boolean }> {
  state = { hasError: false };

  static getDerivedStateFromError() {
    return { hasError: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('Application error', error, info.componentStack);
  }

  render() {
    return this.state.hasError ? <AppErrorScreen /> : this.props.children;
  }
}
