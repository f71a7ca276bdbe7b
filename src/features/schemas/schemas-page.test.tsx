/**
 * Every answer on the schemas pages, against the reference service the browser test project
 * serves on this origin: what it says, and where focus goes after a change. Each test failed
 * on 8e37cee.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ConnectionContext, fingerprintOf, type ActiveConnection } from '../../lib/connection';
import { SchemasPage } from './schemas-page';

// Public demo tokens of the reference service (README, "Demo tokens").
const GLOBAL = 'sandbox-global-3f9c2a7d41e8b605';
const SALES = 'sandbox-sales-8b1e6d0c93a2f457';

/** Status, time and size of one answer, as the page writes them. */
const SUMMARY = (status: number) => new RegExp(`^Status ${status} · \\d+ ms · \\d+(\\.\\d+)? (B|kB)$`);

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => cleanup());

let groups = 0;
/** A group no other test uses (the service's database lives as long as the test run). */
const newGroup = () => `nc${Date.now().toString(36)}${groups++}`;

function connectionWith(token: string): ActiveConnection {
  return {
    baseUrl: '',
    token,
    profileId: 'test',
    profileLabel: 'Test',
    mode: 'same-origin',
    target: '',
    scopes: [],
    fingerprint: fingerprintOf(token),
    displayBaseUrl: window.location.origin,
    outcomes: {},
    recordOutcome: () => undefined,
    screenShare: false,
  };
}

/** The schemas page of `group` as the app mounts it, with `connection`; rendered again with another to switch tokens. */
function schemasPage(group: string, client: QueryClient, connection: ActiveConnection) {
  return (
    <StrictMode>
      <QueryClientProvider client={client}>
        <ConnectionContext.Provider value={connection}>
          <MemoryRouter initialEntries={[`/schemas/${group}`]}>
            <Routes>
              <Route path="/schemas/:group" element={<SchemasPage />} />
            </Routes>
          </MemoryRouter>
        </ConnectionContext.Provider>
      </QueryClientProvider>
    </StrictMode>
  );
}

const newClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

function renderSchemas(group: string, token = GLOBAL) {
  return render(schemasPage(group, newClient(), connectionWith(token)));
}

/** Opens the editor of a one-key schema and adds a second key named `name`. */
async function editAddingKey(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(await screen.findByRole('button', { name: 'Edit schema' }));
  await user.click(screen.getByRole('button', { name: 'Add key' }));
  await user.type(screen.getByRole('textbox', { name: 'Key 2 name' }), name);
}

async function putSchema(group: string) {
  const res = await fetch(`/rest/api/index/custom-metadata/schema/${group}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${GLOBAL}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ metadataKeys: [{ name: 'title', propertyType: 'TEXT' }] }),
  });
  expect(res.status).toBe(200);
}

const summaryIn = (el: HTMLElement) => el.querySelector('.response-summary')?.textContent ?? '';

it('a group without a schema shows the 404 answer’s status, time and size', async () => {
  const group = newGroup();
  renderSchemas(group);
  const none = await screen.findByRole('region', { name: `No schema defined for group “${group}”` });
  expect(summaryIn(none)).toMatch(SUMMARY(404));
});

it('a schema read shows its status, time and size', async () => {
  const group = newGroup();
  await putSchema(group);
  renderSchemas(group);
  await screen.findByRole('table', { name: `Keys of group ${group}` });
  expect(summaryIn(document.body)).toMatch(SUMMARY(200));
});

it('creating a schema moves focus to the confirmation, which shows the PUT answer’s status, time and size', async () => {
  const group = newGroup();
  const user = userEvent.setup();
  renderSchemas(group);
  await user.click(await screen.findByRole('button', { name: `Create a schema for ${group}` }));
  await user.type(screen.getByRole('textbox', { name: 'Key 1 name' }), 'title');
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  await user.click(screen.getByRole('button', { name: 'Create schema' }));

  const notice = await screen.findByText(`Schema of ${group} created.`);
  const box = notice.closest<HTMLElement>('.notice')!;
  await waitFor(() => expect(document.activeElement).toBe(box));
  expect(summaryIn(box)).toMatch(SUMMARY(200));
  // The schema read again after the save has its own answer, and focus stays on the confirmation.
  await screen.findByRole('table', { name: `Keys of group ${group}` });
  expect(document.activeElement).toBe(box);
});

it('saving an edited schema moves focus to the confirmation, not to the page body', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  renderSchemas(group);
  await editAddingKey(user, 'owner');
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  await user.click(screen.getByRole('button', { name: 'Save schema' }));

  const notice = await screen.findByText(`Schema of ${group} saved.`);
  const box = notice.closest<HTMLElement>('.notice')!;
  await waitFor(() => expect(document.activeElement).toBe(box));
  expect(document.activeElement).not.toBe(document.body);
  expect(summaryIn(box)).toMatch(SUMMARY(200));
});

it('Edit schema by keyboard starts in the first key’s name, and Cancel returns focus to Edit schema, never to the page body', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  renderSchemas(group);
  (await screen.findByRole('button', { name: 'Edit schema' })).focus();
  await user.keyboard('{Enter}');
  await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Key 1 name' })));
  screen.getByRole('button', { name: 'Cancel' }).focus();
  await user.keyboard('{Enter}');
  await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Edit schema' })));
});

it('Review changes by keyboard takes focus to the review, and Back to editing to Review changes, never to the page body', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  renderSchemas(group);
  await editAddingKey(user, 'owner');
  screen.getByRole('button', { name: 'Review changes' }).focus();
  await user.keyboard('{Enter}');
  const heading = await screen.findByRole('heading', { name: `Review changes to ${group}` });
  expect(document.activeElement).toBe(heading);
  // The next Tabs go through the review to its Save.
  await user.tab();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Save schema' }));
  await user.tab();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Back to editing' }));
  await user.keyboard('{Enter}');
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Review changes' }));
  // The edits are still there.
  expect((screen.getByRole('textbox', { name: 'Key 2 name' }) as HTMLInputElement).value).toBe('owner');
});

it('deleting a schema moves focus to the confirmation, which shows the DELETE answer’s status, time and size', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  renderSchemas(group);
  await user.click(await screen.findByRole('button', { name: 'Delete schema' }));
  await user.click(within(screen.getByRole('group', { name: 'Confirm deletion' })).getByRole('button', { name: 'Delete' }));

  const notice = await screen.findByText(`Schema of ${group} deleted.`);
  const box = notice.closest<HTMLElement>('.notice')!;
  await waitFor(() => expect(document.activeElement).toBe(box));
  expect(summaryIn(box)).toMatch(SUMMARY(200));
  // The group read again is now without a schema; focus has not fallen to the body meanwhile.
  await screen.findByRole('region', { name: `No schema defined for group “${group}”` });
  expect(document.activeElement).toBe(box);
});

it('by keyboard, Delete schema asks first with Cancel focused; Escape answers Cancel, focus returns to Delete schema, and nothing is deleted', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  renderSchemas(group);
  const del = await screen.findByRole('button', { name: 'Delete schema' });
  del.focus();
  await user.keyboard('{Enter}');
  const question = screen.getByRole('group', { name: 'Confirm deletion' });
  expect(document.activeElement).toBe(within(question).getByRole('button', { name: 'Cancel' }));
  await user.keyboard('{Escape}');
  expect(screen.queryByRole('group', { name: 'Confirm deletion' })).toBeNull();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete schema' }));
  // Cancel by click returns focus there too.
  await user.click(screen.getByRole('button', { name: 'Delete schema' }));
  await user.click(within(screen.getByRole('group', { name: 'Confirm deletion' })).getByRole('button', { name: 'Cancel' }));
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete schema' }));
  // The schema is still there.
  expect(screen.getByRole('button', { name: 'Edit schema' })).toBeTruthy();
});

it('removing a document’s values shows the answer’s status, time and size, as setting them does', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  renderSchemas(group);
  const form = await screen.findByRole('form', { name: `Document values in ${group}` });
  await user.type(within(form).getByLabelText('Document id'), 'DOC-NC-1');
  await user.type(within(form).getByLabelText(/^title \(/), 'Quarterly plan');
  await user.click(within(form).getByRole('button', { name: 'Set values' }));
  await within(form).findByText(/^Values set on DOC-NC-1/);
  expect(summaryIn(form)).toMatch(SUMMARY(200));

  await user.click(within(form).getByRole('button', { name: 'Remove all values' }));
  await within(form).findByText(`All ${group} values removed from DOC-NC-1.`);
  expect(summaryIn(form)).toMatch(SUMMARY(200));
});

it('a refused read is an error whose body is never called a match: its conformance is told neutrally, with status, time and size', async () => {
  renderSchemas('hr', SALES);
  const alert = await screen.findByRole('alert');
  await within(alert).findByRole('heading', { name: /^401 Unauthorized/ });
  // The lens loads its chunk, then gives its verdict.
  const badge = await within(alert).findByRole('button', { name: /as documented|difference|matches/ });
  expect(badge.textContent).not.toMatch(/matches/);
  expect(badge.textContent).toMatch(/^=error body as documented/);
  expect(badge.closest('.spec-badge')!.className).not.toMatch(/spec-match/);
  expect(summaryIn(alert)).toMatch(SUMMARY(401));
});

it('another token for the same server keeps the schema being edited: its save is refused 401 with the edits kept, and saved once the token can', async () => {
  const HR = 'sandbox-hr-52d7a9f10c6e3b84';
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  const client = newClient();
  const page = (connection: ActiveConnection) => schemasPage(group, client, connection);
  const { rerender } = render(page(connectionWith(GLOBAL)));
  await editAddingKey(user, 'owner');

  // A token whose scope is another group's, pasted into the same profile.
  rerender(page({ ...connectionWith(HR), scopes: ['custommetadata:hr'] }));
  expect(await screen.findByText(/will be refused with 401 for group/)).toBeTruthy();
  expect(screen.getByRole('heading', { name: `Edit schema of ${group}` })).toBeTruthy();
  expect(screen.getByRole('textbox', { name: 'Key 2 name' })).toHaveProperty('value', 'owner');
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  // The diff is against the schema the edits started from: only the new key is added.
  expect([...document.querySelectorAll('.diff li')].map((li) => li.textContent)).toEqual(['+ owner: TEXT']);
  await user.click(screen.getByRole('button', { name: 'Save schema' }));
  expect(await screen.findByText(/401/, { selector: '.error' })).toBeTruthy();

  rerender(page(connectionWith(GLOBAL)));
  await user.click(await screen.findByRole('button', { name: 'Save schema' }));
  expect(await screen.findByText(`Schema of ${group} saved.`)).toBeTruthy();
  const saved = await (await fetch(`/rest/api/index/custom-metadata/schema/${group}`, { headers: { Authorization: `Bearer ${GLOBAL}` } })).json();
  expect(saved.metadataKeys.map((k: { name: string }) => k.name)).toEqual(['title', 'owner']);
});

it('a schema saved with another token of the same server shows as saved when the first token is pasted back', async () => {
  const EVERYTHING = 'sandbox-everything-7e2a5c8d1b4f9063';
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  const client = newClient();
  const page = (connection: ActiveConnection) => schemasPage(group, client, connection);
  const { rerender } = render(page(connectionWith(GLOBAL)));
  await editAddingKey(user, 'owner');

  // Another token of the same server, pasted while editing: the edits are kept and saved with it.
  rerender(page(connectionWith(EVERYTHING)));
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  await user.click(screen.getByRole('button', { name: 'Save schema' }));
  expect(await screen.findByText(`Schema of ${group} saved.`)).toBeTruthy();
  await screen.findByRole('cell', { name: 'owner' });

  // The first token pasted back: the same server's schema, which now has the key just saved.
  rerender(page(connectionWith(GLOBAL)));
  const table = await screen.findByRole('table', { name: `Keys of group ${group}` });
  await waitFor(() => expect(within(table).queryByRole('cell', { name: 'owner' })).not.toBeNull(), { timeout: 3000 });
});

it('Cancel on a schema being created returns focus to Create a schema, never to the page body', async () => {
  const group = newGroup();
  const user = userEvent.setup();
  renderSchemas(group);
  (await screen.findByRole('button', { name: `Create a schema for ${group}` })).focus();
  await user.keyboard('{Enter}');
  screen.getByRole('button', { name: 'Cancel' }).focus();
  await user.keyboard('{Enter}');
  await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: `Create a schema for ${group}` })));
});

it('a Cancel of a schema being created does not pull focus, much later, from the confirmation of a save to Edit schema', async () => {
  const group = newGroup();
  const user = userEvent.setup();
  renderSchemas(group);
  await user.click(await screen.findByRole('button', { name: `Create a schema for ${group}` }));
  await user.click(screen.getByRole('button', { name: 'Cancel' }));
  await user.click(await screen.findByRole('button', { name: `Create a schema for ${group}` }));
  await user.type(screen.getByRole('textbox', { name: 'Key 1 name' }), 'title');
  await user.click(screen.getByRole('button', { name: 'Review changes' }));
  await user.click(screen.getByRole('button', { name: 'Create schema' }));
  const box = (await screen.findByText(`Schema of ${group} created.`)).closest<HTMLElement>('.notice')!;
  await screen.findByRole('table', { name: `Keys of group ${group}` });
  await screen.findByRole('button', { name: 'Edit schema' });
  expect(document.activeElement).toBe(box);
});

it('the editor kept open across a token change leaves focus where the user put it', async () => {
  const group = newGroup();
  await putSchema(group);
  const user = userEvent.setup();
  const client = newClient();
  const { rerender } = render(schemasPage(group, client, connectionWith(GLOBAL)));
  await user.click(await screen.findByRole('button', { name: 'Edit schema' }));
  const add = screen.getByRole('button', { name: 'Add key' });
  add.focus();
  rerender(schemasPage(group, client, connectionWith(SALES)));
  await new Promise((r) => setTimeout(r, 300));
  expect(screen.getByRole('button', { name: 'Add key' })).toBe(add);
  expect(document.activeElement).toBe(add);
});
