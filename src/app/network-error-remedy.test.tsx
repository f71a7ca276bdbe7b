/**
 * A request to an instance, directly from the browser, that gets no answer (unreachable, or no
 * CORS for this page) names its remedy: connect through the console's server, by the name the
 * Connect to list gives that choice, so it can be found there.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { freshBrowser, renderConsole, settleConsole } from './test-console';

afterEach(async () => {
  await settleConsole();
  cleanup();
});

it('says which Connect to choice goes through the console’s server, as the list names it', async () => {
  freshBrowser('some-token', {
    profiles: [{ id: 'reference', label: 'Far instance', mode: 'direct', target: 'http://127.0.0.1:9', scopes: [], remember: false, outcomes: {} }],
    activeId: 'reference',
    screenShare: false,
  });
  renderConsole('/schemas/sales');
  const failure = await screen.findByText(/The browser got no answer from/, undefined, { timeout: 10_000 });
  const connectTo = screen.getByLabelText('Connect to');
  const proxy = within(connectTo).getAllByRole('option').find((o) => (o as HTMLOptionElement).value === 'proxy')!;
  // The option says "(start with --upstream)" until the console's server was started so: its name is what comes before.
  const name = proxy.textContent!.replace(/ \(start with --upstream\)$/, '');
  expect(failure.textContent).toContain(`choose “${name}” under Connect to`);
});
