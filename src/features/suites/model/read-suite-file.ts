import { parseSuiteFile, type ParsedSuiteFile } from '../../../engine/suites/suite-file';

/**
 * `parseSuiteFile` in a worker, so that the page goes on answering while a large file is
 * checked (its patterns compiled: minutes for a file of heavy ones). Aborted, the worker is
 * ended at once and the promise rejects with the signal's reason. In the page's thread only
 * where no worker can be made (a test in Node).
 */
export function readSuiteFile(text: string, name: string, signal?: AbortSignal): Promise<ParsedSuiteFile> {
  if (typeof Worker === 'undefined') return Promise.resolve(parseSuiteFile(text, name));
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const worker = new Worker(new URL('./suite-file.worker.ts', import.meta.url), { type: 'module', name: 'suite-file' });
    const end = () => {
      worker.terminate();
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      end();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = (e: MessageEvent<ParsedSuiteFile>) => {
      end();
      resolve(e.data);
    };
    // Said as the file's problem, not read again here: a file that broke the worker would hold the page as long.
    worker.onerror = (e) => {
      e.preventDefault();
      end();
      resolve({ ok: false, problems: [`${name}: could not be checked (${e.message || 'the checking worker failed'}).`] });
    };
    worker.onmessageerror = () => {
      end();
      resolve({ ok: false, problems: [`${name}: could not be checked (its result could not be read back).`] });
    };
    worker.postMessage({ text, name });
  });
}
