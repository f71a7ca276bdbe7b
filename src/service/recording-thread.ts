/**
 * The recorder's own thread (recording-worker.ts), which makes recording files off the thread
 * that forwards requests. Making a 20 MB answer's recording held that thread for a second or
 * more: every tab's streams stalled meanwhile, and a stop signal went unanswered, so tsx's
 * runner (which kills a process that does not take a signal within 60 ms) killed the console's
 * server with the recording unwritten. Where the thread cannot start, the files are made on
 * the calling thread, as before.
 */
import { Worker } from 'node:worker_threads';
import { recordingFileBytes, recordingOf, type ExchangeInput } from './recording-build.ts';
import type { RecordingJob, RecordingJobResult } from './recording-worker.ts';

interface Pending {
  input: ExchangeInput;
  resolve(bytes: Uint8Array): void;
  reject(err: Error): void;
}

/** Made on the calling thread: a recording the thread could not make is still made. */
function madeHere(input: ExchangeInput): Promise<Uint8Array> {
  return new Promise((resolve) => resolve(recordingFileBytes(recordingOf(input))));
}

export class RecordingThread {
  private worker: Worker | undefined;
  private state: 'idle' | 'starting' | 'ready' | 'failed' = 'idle';
  /** Jobs waiting for the thread to be ready. */
  private queued: Pending[] = [];
  /** Jobs the thread has (their bodies moved to it). */
  private readonly sent = new Map<number, Pending>();
  private nextId = 1;

  /** The bytes of `input`'s recording file. `input`'s bodies are moved to the thread: the caller must not use them after. */
  make(input: ExchangeInput): Promise<Uint8Array> {
    if (this.state === 'failed') return madeHere(input);
    return new Promise((resolve, reject) => {
      const job = { input, resolve, reject };
      if (this.state === 'ready') this.send(job);
      else {
        this.queued.push(job);
        this.start();
      }
    });
  }

  private start(): void {
    if (this.state !== 'idle') return;
    this.state = 'starting';
    let worker: Worker;
    try {
      worker = new Worker(new URL('./recording-worker.mjs', import.meta.url), { name: 'recorder' });
    } catch (err) {
      return this.fail(err as Error);
    }
    this.worker = worker;
    // The console's server runs for as long as it serves; this thread never keeps it alive.
    worker.unref();
    worker.on('message', (m: RecordingJobResult) => {
      if ('ready' in m) {
        this.state = 'ready';
        for (const job of this.queued.splice(0)) this.send(job);
        return;
      }
      const job = this.sent.get(m.id);
      this.sent.delete(m.id);
      if ('bytes' in m) job?.resolve(m.bytes);
      else job?.reject(new Error(m.error));
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`it exited (${code})`)));
  }

  private send(job: Pending): void {
    const id = this.nextId++;
    this.sent.set(id, job);
    const { requestBody, responseBody } = job.input;
    const moved = [requestBody.buffer, ...(responseBody ? [responseBody.buffer] : [])] as ArrayBuffer[];
    this.worker!.postMessage({ id, input: job.input } satisfies RecordingJob, moved);
  }

  private fail(err: Error): void {
    if (this.state === 'failed') return;
    const started = this.state === 'ready';
    this.state = 'failed';
    void this.worker?.terminate();
    console.error(
      `[record] The recorder's thread ${started ? 'stopped' : 'could not start'} (${err.message}); recordings are made on the server's own thread from now on.`,
    );
    for (const job of this.sent.values()) job.reject(new Error("the recorder's thread stopped while making it"));
    this.sent.clear();
    for (const job of this.queued.splice(0)) madeHere(job.input).then(job.resolve, job.reject);
  }
}
