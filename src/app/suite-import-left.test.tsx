/**
 * Attack on the suite import's worker: the file is read off the page's thread, so the user can
 * leave the page, or pick a second file, while the first is still being checked (a file of heavy
 * patterns is checked for minutes). What they went to afterwards must stay on screen: the
 * import that finishes later does not pull them to its suite.
 *
 * The worker's answer is held until the test lets it through (a real worker, reading the real
 * file): which of the user's steps comes first is then the test's choice, not the machine's.
 */
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { consoleDb } from '../db/console-db';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

interface Held {
  name: string;
  terminated: boolean;
  release(): void;
}
const held: Held[] = [];
const RealWorker = globalThis.Worker;

beforeEach(() => {
  held.length = 0;
  class HeldWorker extends RealWorker {
    private entry: Held;
    private gate: Promise<void>;
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      let open!: () => void;
      this.gate = new Promise<void>((resolve) => (open = resolve));
      this.entry = { name: '', terminated: false, release: open };
      held.push(this.entry);
    }
    override postMessage(message: unknown, options?: StructuredSerializeOptions): void;
    override postMessage(message: unknown, transfer: Transferable[]): void;
    override postMessage(message: unknown, options?: StructuredSerializeOptions | Transferable[]) {
      this.entry.name = (message as { name?: string }).name ?? '';
      super.postMessage(message, options as StructuredSerializeOptions);
    }
    override set onmessage(handler: ((this: Worker, e: MessageEvent) => unknown) | null) {
      super.onmessage = handler && ((e: MessageEvent) => void this.gate.then(() => handler.call(this, e)));
    }
    override get onmessage() {
      return super.onmessage;
    }
    override terminate() {
      this.entry.terminated = true;
      super.terminate();
    }
  }
  globalThis.Worker = HeldWorker as typeof Worker;
});

afterEach(async () => {
  globalThis.Worker = RealWorker;
  for (const h of held) h.release();
  await settleConsole();
  cleanup();
});

function suiteFile(name: string, fileName: string): File {
  const c = {
    id: 'case_1',
    name: 'Case 1',
    agent: { id: 'echo-assistant' },
    api: 'platform',
    mode: 'stream',
    messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hello' }] }],
    assertions: [{ kind: 'answer-matches', pattern: 'Hello' }],
  };
  return new File([JSON.stringify({ format: 'metadata-agents-console/suite', version: 1, suite: { name }, cases: [c] })], fileName, { type: 'application/json' });
}

const suiteNamed = (name: string) => consoleDb().suites.filter((s) => s.name === name).first();

/** Lets the import of `file` finish (or finds it cancelled), and waits for what it does then. */
async function finish(fileName: string, suiteName: string) {
  const h = held.find((x) => x.name === fileName);
  expect(h, `a worker read ${fileName}`).toBeDefined();
  // Cancelled when the user left or picked another file: nothing more comes of it.
  if (h!.terminated) return;
  h!.release();
  await vi.waitFor(async () => expect(await suiteNamed(suiteName)).toBeDefined(), { timeout: 20_000 });
  // The import's last step (where it takes the user) follows the suite's write within a task.
  await consoleDb().suites.count();
  await new Promise((r) => setTimeout(r, 0));
}

it('leaving the Suites page while a file is checked leaves the user where they went', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  // Opened once first, so that a suite's page, when the import goes to it, shows at once.
  renderConsole('/suites/none');
  await screen.findByText(/No suite “none”/);
  await user.click(screen.getByRole('link', { name: 'Suites' }));
  await user.upload(await screen.findByLabelText('Suite file to import'), suiteFile('Left behind', 'left.json'));
  await screen.findByText('Checking left.json…');

  await user.click(screen.getByRole('link', { name: 'Schemas' }));
  await screen.findByRole('heading', { name: 'Schemas', level: 1 });

  await finish('left.json', 'Left behind');
  await vi.waitFor(() => expect(screen.queryByRole('heading', { name: 'Schemas', level: 1 }), 'the import that finished after the user left took them away from Schemas').not.toBeNull());
  expect(screen.queryByLabelText('Suite name')).toBeNull();
});

it('a second file picked while the first is checked: the user stays on the suite of the second', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/suites');
  const input = await screen.findByLabelText('Suite file to import');
  await user.upload(input, suiteFile('First pick', 'first.json'));
  await screen.findByText('Checking first.json…');
  await user.upload(input, suiteFile('Second pick', 'second.json'));
  await screen.findByText('Checking second.json…');

  await finish('second.json', 'Second pick');
  expect(await screen.findByLabelText<HTMLInputElement>('Suite name')).toHaveProperty('value', 'Second pick');

  await finish('first.json', 'First pick');
  expect(screen.getByLabelText<HTMLInputElement>('Suite name'), 'the first file, finished later, took the user away from the second').toHaveProperty('value', 'Second pick');
});

it('Stop checking ends the check at once, says nothing was imported, and imports nothing', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/suites');
  await user.upload(await screen.findByLabelText('Suite file to import'), suiteFile('Stopped one', 'stopped.json'));
  await screen.findByText('Checking stopped.json…');
  // The file is read before its worker is made: stopped earlier, there is no worker to end.
  await vi.waitFor(() => expect(held.some((h) => h.name === 'stopped.json')).toBe(true));
  await user.click(screen.getByRole('button', { name: 'Stop checking' }));
  expect(screen.getByRole('alert').textContent).toContain('stopped.json: you stopped checking it; nothing was imported.');
  expect(held.find((h) => h.name === 'stopped.json')?.terminated).toBe(true);
  expect(screen.queryByText('Checking stopped.json…')).toBeNull();
  expect(await suiteNamed('Stopped one')).toBeUndefined();
});
