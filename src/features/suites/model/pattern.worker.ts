/**
 * Judges a suite's `answer-matches` patterns off the page's thread (pattern-judge.ts): a pattern
 * a file may hold ground for 22 s on a 28,000-character answer in the page's own thread, which
 * answered nothing meanwhile. Ended by the page when a judgement passes its budget.
 */
import { answerTask, type PatternTask } from '../../../engine/suites/pattern-judge';

self.onmessage = (e: MessageEvent<PatternTask>) => {
  self.postMessage(answerTask(e.data));
};
self.postMessage({ ready: true });
