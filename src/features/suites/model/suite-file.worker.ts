/**
 * Reads a suite file off the page's thread: checking every pattern of a file at the limits
 * (20,000 long ones, each compiled for linear-time matching) took 43 s, and the page answered
 * nothing meanwhile.
 */
import { parseSuiteFile } from '../../../engine/suites/suite-file';

self.onmessage = (e: MessageEvent<{ text: string; name: string }>) => {
  self.postMessage(parseSuiteFile(e.data.text, e.data.name));
};
