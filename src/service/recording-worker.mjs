// The recorder's thread starts here: Node 20 does not hand a thread the TypeScript loader its
// process runs with (tsx), so the thread registers it before loading recording-worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./recording-worker.ts');
