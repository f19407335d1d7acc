/**
 * The `Host` check against DNS rebinding: a page of another site can point its own name at
 * 127.0.0.1 and then read and drive the emulator as a same-origin page (its Origin matches the
 * Host, so the Origin check alone lets it through). Its requests still carry its name in `Host`,
 * so only the names the emulator is known by are served: the loopback names, the address it
 * listens on, and the names the user adds (`allowedHosts`, e.g. a container's service name).
 */

/** Names every emulator answers to, whatever the port: the loopback names. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** The name part of a `Host` header or `host[:port]` (lower case; an IPv6 literal keeps its brackets). */
export function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']');
    return end === -1 ? trimmed : trimmed.slice(0, end + 1);
  }
  const colon = trimmed.indexOf(':');
  // a bare IPv6 address (two colons or more) is its own name
  if (colon === -1 || trimmed.indexOf(':', colon + 1) !== -1) {
    return colon === -1 ? trimmed : `[${trimmed}]`;
  }
  return trimmed.slice(0, colon);
}

/**
 * A `Host` header as RFC 9110 allows it: a host name or an IPv4 address, or an IPv6 literal in
 * brackets, then an optional port. Anything else (`localhost:1@evil.example`, a user-info part, a
 * second colon, a path) is refused whole: splitting it at the first colon would read `localhost`
 * and serve a name no client asked for, which `/_emulator/openapi.json` then advertised.
 */
const HOST_HEADER = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?)(?::\d{1,5})?$/i;

/**
 * Checks a request's `Host` header. `listening` gives the names of the address the server listens
 * on (none before `listen()`); `allowed` the names the user added. A port is not compared: the
 * attack is a foreign name, and an embedded listener does not know the port it is served on.
 */
export function createHostCheck(
  allowed: readonly string[],
  listening: () => readonly string[],
): (host: string | undefined) => boolean {
  const names = new Set([...LOOPBACK_NAMES, ...allowed.map(hostName)]);
  return (host) => {
    if (host === undefined || !HOST_HEADER.test(host.trim())) return false;
    const name = hostName(host);
    return names.has(name) || listening().some((address) => hostName(address) === name);
  };
}

/**
 * Validates the `allowedHosts` option: host names or addresses (an optional port is ignored).
 * Throws a TypeError naming the bad entry.
 */
export function checkAllowedHosts(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(`allowedHosts must be an array of host names, got ${typeof value}`);
  }
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'string' || !/^(\[[0-9a-f:.]+\]|[^\s/:@[\]]+)(:\d+)?$/i.test(entry.trim())) {
      throw new TypeError(
        `allowedHosts: expected host names such as "emulator" or "emulator.internal:4010", got ${JSON.stringify(entry)}`,
      );
    }
  }
  return value as string[];
}
