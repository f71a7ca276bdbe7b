import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bodies from this size on leave enough garbage behind to matter. */
export const LARGE_BODY_BYTES = 256 * 1024;

/** How long no large body has to come before the collection runs. */
export const QUIET_MS = 1_000;

let collect: (() => void) | undefined;

/** V8's full collection, without exposing `gc` to anything else. */
function fullCollection(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

/**
 * A 1 MB body parses into tens of MB of objects (96,000 keys, 350,000 small objects), which
 * live through the request's work and so are moved to V8's old generation. There they stay
 * until V8's next full collection, which a quiet service may not run for minutes: after a
 * burst of large bodies its RSS stayed 50 to 100 MB above where it was. So once a second has
 * passed without another large body, one full collection runs (tens of ms, while the
 * service is quiet). A steady stream of large bodies never waits on it: V8 collects then as
 * it always does.
 */
export class LargeBodyCollector {
  private timer: NodeJS.Timeout | undefined;

  /** `collect`: the collection to run (tests watch it). */
  constructor(
    private readonly quietMs = QUIET_MS,
    private readonly collect: () => void = () => fullCollection()(),
  ) {}

  /** Notes that `req` was answered. */
  answered(req: IncomingMessage): void {
    const large = Number(req.headers['content-length'] ?? 0) >= LARGE_BODY_BYTES || req.headers['transfer-encoding'] !== undefined;
    if (!large) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.collect();
    }, this.quietMs).unref();
  }
}
