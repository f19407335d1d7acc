import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { WEBHOOK_CONFIG_URL_FIELDS } from '../../schemas/index.js';
import { BadRequestError, ForbiddenError } from '../errors.js';
import { hostName } from '../http/hosts.js';

/*
 * The emulator never delivers to itself. A webhook configuration whose URL is the emulator's own
 * control surface or platform API (`/_emulator/partner-events` with the seeded key, `/_emulator/
 * reset`) made every delivery cause the next one: hundreds a second, forever, with idle() and
 * close() never resolving. Two guards, one for each way a URL can name the emulator:
 * - by its address: the configuration API refuses (400, naming the field) a URL whose host is a
 *   name of the address it listens on (the loopback names and 0.0.0.0 for a loopback or
 *   all-interfaces address, the address itself, the `allowedHosts` aliases) and whose port is its
 *   port; the deliverer refuses the same URLs (a configuration made before `listen()`, or restored
 *   from a snapshot), without sending;
 * - by any other route (a DNS name that resolves to it, a proxy, a port mapping, an embedded
 *   listener whose port it does not know): each delivery carries this emulator's random id in
 *   {@link SELF_DELIVERY_HEADER}, and its HTTP layer refuses (403) a request that carries it.
 */

/** The header each delivery carries with its emulator's id (random per emulator). */
export const SELF_DELIVERY_HEADER = 'x-messaging-emulator-delivery';

/** Where the emulator listens, once it does. */
export interface ListenAddress {
  /** The bound address (`127.0.0.1`, `::`, ...). */
  readonly address: string;
  readonly port: number;
}

/** The self-delivery guards of one emulator. */
export interface SelfDeliveryGuard {
  /** This emulator's id, sent in {@link SELF_DELIVERY_HEADER}. */
  readonly id: string;
  /** Why `url` is this emulator itself, or undefined when it is not (as far as its address says). */
  selfTarget(url: string): string | undefined;
  /**
   * Throws a 400 naming the field when a URL field of a webhook configuration body names this
   * emulator (the configuration API calls it before storing anything).
   */
  refuseConfigUrls(body: Readonly<Record<string, unknown>>): void;
  /** Throws a 403 when a request carries this emulator's own delivery id. */
  refuseOwnDelivery(headers: Readonly<Record<string, string | string[] | undefined>>): void;
}

/** A URL host in canonical form (`[::1]`, `127.0.0.1`), as WHATWG URL writes it; '' when none. */
function canonicalHost(name: string): string {
  const bare = name.startsWith('[') ? name : name.includes(':') ? `[${name}]` : name;
  try {
    return new URL(`http://${bare}/`).hostname;
  } catch {
    return name.toLowerCase();
  }
}

/** Loopback hosts: localhost (and its subdomains), 127.0.0.0/8, ::1 and its IPv4-mapped forms. */
function isLoopback(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    host === '[::1]' ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)
  );
}

/** The unspecified address: a connection to it reaches this machine. */
const isUnspecified = (host: string): boolean =>
  host === '0.0.0.0' || host === '[::]' || host === '[::ffff:0:0]';

/** Every address of this machine's interfaces, canonical. */
function localAddresses(): Set<string> {
  const found = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) found.add(canonicalHost(entry.address));
  }
  return found;
}

const defaultPort = (protocol: string): number => (protocol === 'https:' ? 443 : 80);

/**
 * Creates the guards for an emulator listening at `listening()` (undefined before `listen()`),
 * known also by the `aliases` (`allowedHosts`: a name, optionally with its own port).
 */
export function createSelfDeliveryGuard(
  listening: () => ListenAddress | undefined,
  aliases: readonly string[],
): SelfDeliveryGuard {
  const id = randomUUID();
  const aliasList = aliases.map((alias) => {
    const name = canonicalHost(hostName(alias));
    const port = /:(\d+)$/.exec(alias.trim())?.[1];
    return { name, port: port === undefined ? undefined : Number(port) };
  });

  function selfTarget(url: string): string | undefined {
    const bound = listening();
    if (bound === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    const host = parsed.hostname;
    const port = parsed.port === '' ? defaultPort(parsed.protocol) : Number(parsed.port);
    const own = `this emulator's own address (it listens on port ${bound.port})`;
    for (const alias of aliasList) {
      if (alias.name === host && (alias.port ?? bound.port) === port) return own;
    }
    if (port !== bound.port) return undefined;
    const listenHost = canonicalHost(bound.address);
    if (host === listenHost) return own;
    const local = isLoopback(listenHost) || isUnspecified(listenHost);
    if (local && (isLoopback(host) || isUnspecified(host))) return own;
    if (isUnspecified(listenHost) && localAddresses().has(host)) return own;
    return undefined;
  }

  return {
    id,
    selfTarget,
    refuseConfigUrls(body) {
      for (const field of WEBHOOK_CONFIG_URL_FIELDS) {
        const url = body[field];
        if (typeof url !== 'string' || url === '') continue;
        const why = selfTarget(url);
        if (why !== undefined) {
          throw new BadRequestError(
            `${field}: ${url} is ${why}: the emulator does not deliver webhooks to itself (a delivery would trigger the next, without end); give your receiver's URL`,
            { field },
          );
        }
      }
    },
    refuseOwnDelivery(headers) {
      if (headers[SELF_DELIVERY_HEADER] === id) {
        throw new ForbiddenError(
          'This request is a webhook delivery of this emulator to itself: refused (a webhook configuration points at the emulator; give your receiver’s URL)',
        );
      }
    },
  };
}
