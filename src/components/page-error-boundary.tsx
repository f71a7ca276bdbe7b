import { Component, type ReactNode } from 'react';

/** A lazy page's file that could not be fetched: the console was rebuilt since this tab loaded it. */
export function isStaleBuild(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i.test(message);
}

interface Props {
  /** What names the page shown (its path): a new one clears the error. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error?: unknown;
  key: string;
}

/**
 * A page that fails while rendering (or whose code cannot be loaded) says so in its place;
 * the header, the connection panel and the runs in the store stay as they are, and moving to
 * another page tries again.
 */
export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.key ? null : { key: props.resetKey, error: undefined };
  }

  override render() {
    const { error } = this.state;
    if (error === undefined) return this.props.children;
    const stale = isStaleBuild(error);
    return (
      <section className="error" role="alert" aria-labelledby="page-error-title">
        <h1 id="page-error-title">{stale ? 'This page could not be loaded' : 'This page failed'}</h1>
        <p>
          {stale
            ? 'The console was updated since this tab opened, and the page’s code is no longer there. Reload to use the new version; your profiles and history are kept.'
            : `Something went wrong while showing it: ${error instanceof Error ? error.message : String(error)}. Other pages still work; a reload starts this one afresh.`}
        </p>
        <p className="toolbar">
          <button type="button" className="primary" onClick={() => window.location.reload()}>
            Reload
          </button>
          {!stale && (
            <button type="button" onClick={() => this.setState({ error: undefined })}>
              Try again
            </button>
          )}
        </p>
      </section>
    );
  }
}
