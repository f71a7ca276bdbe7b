/**
 * The service's own origins: where its pages are (the tool-server consent page), and so where
 * a consent may return to without `--allowed-return-origin`. They are decided from what the
 * server listens on, once it listens (the actual port, port 0 included), and from the names
 * the operator gave (`--allowed-host`); never from a request: a Host header, an absolute-form
 * target (`POST http://evil.example/…`) or an X-Forwarded-* header is whatever a client wrote.
 *
 * A name counts only when it reaches the address bound and the service answers it:
 * - bound to 127.0.0.1: `127.0.0.1` and `localhost`; to another 127.x address, that address
 *   alone (`localhost` is 127.0.0.1); to ::1: `[::1]` and `localhost`;
 * - bound to 0.0.0.0: `127.0.0.1` and `localhost`; to :: (both families): `[::1]` too;
 * - every `--allowed-host` name, whatever the address: the operator says clients reach this
 *   machine by it (and the service answers no other name but loopback ones);
 * - a bound address that is neither (a LAN address) is no origin of its own: requests naming
 *   it are refused (403) unless it is given with `--allowed-host`.
 * Scheme: http, the only one the service speaks. Behind a TLS proxy, its https origin is
 * another one: give it with `--allowed-return-origin`.
 */
export class OwnOrigins {
  private origins: string[] = [];

  constructor(private readonly allowedHosts: readonly string[] = []) {}

  /** The server listens on `address` (as bound: an IP, `0.0.0.0`, `::`) and `port`. */
  listening(address: string, port: number): void {
    for (const origin of ownOriginsOf(address, port, this.allowedHosts)) if (!this.origins.includes(origin)) this.origins.push(origin);
  }

  get list(): readonly string[] {
    return this.origins;
  }

  has(origin: string): boolean {
    return this.origins.includes(origin.toLowerCase());
  }

  /**
   * The origin an answer names for this service (the consent page's address): the one the
   * request came in on when that is one of them, so a console on `localhost` is sent to
   * `localhost`, else the first. Undefined before the server listens (in process).
   */
  namedFor(requestOrigin: string): string | undefined {
    return this.has(requestOrigin) ? requestOrigin.toLowerCase() : this.origins[0];
  }
}

export function ownOriginsOf(address: string, port: number, allowedHosts: readonly string[]): string[] {
  const names: string[] = [];
  if (address === '127.0.0.1' || address === '0.0.0.0') names.push('127.0.0.1', 'localhost');
  else if (address === '::') names.push('127.0.0.1', '[::1]', 'localhost');
  else if (address === '::1') names.push('[::1]', 'localhost');
  else if (/^127\.\d+\.\d+\.\d+$/.test(address)) names.push(address);
  names.push(...allowedHosts);
  return [...new Set(names.map((name) => new URL(`http://${name}:${port}`).origin))];
}
