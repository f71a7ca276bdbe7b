import { parseSuiteFile, type ParsedSuiteFile } from './suite-file';

/**
 * `parseSuiteFile` in a worker, so that the page goes on answering while a large file is
 * checked; in the page's thread where there is no worker (a test in Node).
 */
export function readSuiteFile(text: string, name: string): Promise<ParsedSuiteFile> {
  if (typeof Worker === 'undefined') return Promise.resolve(parseSuiteFile(text, name));
  return new Promise((resolve) => {
    const worker = new Worker(new URL('./suite-file.worker.ts', import.meta.url), { type: 'module', name: 'suite-file' });
    const done = (result: ParsedSuiteFile) => {
      worker.terminate();
      resolve(result);
    };
    worker.onmessage = (e: MessageEvent<ParsedSuiteFile>) => done(e.data);
    // A worker that cannot start (a policy, an old browser) or that failed: the file is read here instead.
    worker.onerror = (e) => {
      e.preventDefault();
      done(parseSuiteFile(text, name));
    };
    worker.postMessage({ text, name });
  });
}
