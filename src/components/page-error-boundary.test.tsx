import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { lazy, Suspense, useState } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { PageErrorBoundary } from './page-error-boundary';

afterEach(cleanup);

/** A page whose code the server no longer has (the console was rebuilt while this tab was open). */
const GonePage = lazy(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module: http://127.0.0.1/assets/schemas-page-old.js')));

function Broken(): never {
  throw new Error('cannot read the schema');
}

function Pages() {
  const [page, setPage] = useState<'gone' | 'broken' | 'fine'>('gone');
  return (
    <>
      <nav>
        <button type="button" onClick={() => setPage('broken')}>to broken</button>
        <button type="button" onClick={() => setPage('fine')}>to fine</button>
      </nav>
      <PageErrorBoundary resetKey={page}>
        <Suspense fallback={<p>Loading…</p>}>{page === 'gone' ? <GonePage /> : page === 'broken' ? <Broken /> : <p>Fine page</p>}</Suspense>
      </PageErrorBoundary>
    </>
  );
}

it('a page whose code is gone says the console was updated and offers a reload; another page then shows; the rest of the console stays', async () => {
  const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    render(<Pages />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/The console was updated since this tab opened/);
    expect(screen.getByRole('button', { name: 'Reload' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    // The rest of the page is still there and works.
    screen.getByRole('button', { name: 'to broken' }).click();
    await waitFor(() => expect(screen.getByRole('alert').textContent).toMatch(/Something went wrong while showing it: cannot read the schema/));
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
    screen.getByRole('button', { name: 'to fine' }).click();
    expect(await screen.findByText('Fine page')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  } finally {
    quiet.mockRestore();
  }
});
