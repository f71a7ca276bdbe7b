/**
 * A worker thread of `npm run suite` that judges `answer-matches` patterns (pattern-judge.ts):
 * the CLI's own thread stays free to read streams and to stop at Ctrl+C while a pattern runs,
 * and a judgement past its budget is ended with the thread.
 */
import { parentPort } from 'node:worker_threads';
import { answerTask, type PatternTask } from '../src/engine/suites/pattern-judge.ts';

parentPort!.on('message', (task: PatternTask) => parentPort!.postMessage(answerTask(task)));
parentPort!.postMessage({ ready: true });
