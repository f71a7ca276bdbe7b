/**
 * The recorder's thread: makes each exchange's recording file (recording-build.ts) from what
 * the proxy saw, and hands the file's bytes back for the recorder to write.
 */
import { parentPort } from 'node:worker_threads';
import { recordingFileBytes, recordingOf, type ExchangeInput } from './recording-build.ts';

export type RecordingJob = { id: number; input: ExchangeInput };
export type RecordingJobResult = { ready: true } | { id: number; bytes: Uint8Array } | { id: number; error: string };

const port = parentPort!;
port.on('message', ({ id, input }: RecordingJob) => {
  let answer: RecordingJobResult;
  try {
    answer = { id, bytes: recordingFileBytes(recordingOf(input)) };
  } catch (err) {
    answer = { id, error: (err as Error).message };
  }
  port.postMessage(answer, 'bytes' in answer ? [answer.bytes.buffer as ArrayBuffer] : []);
});
port.postMessage({ ready: true } satisfies RecordingJobResult);
