import { PatternPool, type PatternJudge, type PatternMessage } from '../../../engine/suites/pattern-judge';

/** The page's pattern judge: PatternPool over Workers (pattern.worker.ts), each ended at its judgement's budget. */
export function pagePatternJudge(options: { size?: number; budgetMs?: number } = {}): PatternJudge {
  return new PatternPool(() => {
    const worker = new Worker(new URL('./pattern.worker.ts', import.meta.url), { type: 'module', name: 'suite-patterns' });
    let ended = false;
    return {
      post: (task) => worker.postMessage(task),
      listen: (told, failed) => {
        worker.onmessage = (e: MessageEvent<PatternMessage>) => !ended && told(e.data);
        worker.onerror = (e) => {
          e.preventDefault();
          if (!ended) failed(e.message || 'the worker could not start');
        };
        worker.onmessageerror = () => !ended && failed('its answer could not be read');
      },
      terminate: () => {
        ended = true;
        worker.terminate();
      },
    };
  }, options);
}
