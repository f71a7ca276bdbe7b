/**
 * The CLI's pattern judge: PatternPool (src/engine/suites/pattern-judge.ts) over worker_threads.
 * A worker is TypeScript run by tsx, which a worker thread does not inherit from the CLI's
 * own: a small bootstrap registers tsx in the thread, then loads scripts/pattern-worker.ts.
 */
import { Worker } from 'node:worker_threads';
import { PatternPool, type PatternJudge, type PatternMessage } from '../src/engine/suites/pattern-judge.ts';

// Resolved here, by the CLI's own resolution (the ESM entry): a worker started from code has no module of its own to resolve from.
const TSX_API = import.meta.resolve('tsx/esm/api');
const ENTRY = new URL('./pattern-worker.ts', import.meta.url).href;
const BOOT = `import(${JSON.stringify(TSX_API)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY)}); })`;

/** A heavy pattern compiles to tens of MB; a worker past this is ended (its judgement fails), never the CLI. */
const WORKER_HEAP_MB = 256;

export function nodePatternJudge(options: { size?: number; budgetMs?: number } = {}): PatternJudge {
  return new PatternPool(() => {
    const worker = new Worker(BOOT, { eval: true, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    // A worker never keeps the CLI alive: the judgement's own timer does, while it runs.
    worker.unref();
    let ended = false;
    return {
      post: (task) => worker.postMessage(task),
      listen: (told, failed) => {
        worker.on('message', (m: PatternMessage) => !ended && told(m));
        worker.on('error', (err) => !ended && failed(err.message));
        worker.on('exit', (code) => !ended && failed(`it exited with code ${code}`));
      },
      terminate: () => {
        ended = true;
        void worker.terminate();
      },
    };
  }, options);
}
