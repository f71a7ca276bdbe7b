import type { IncomingMessage, ServerResponse } from 'node:http';

/** A Connect-style handler, as Vite's servers and the console's own server chain them. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
