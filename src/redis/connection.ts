import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { describeValue } from '../util/options.js';

/** ioredis connection options (host, port, password, tls, db, or `sentinels` and `name`...). */
export type RedisConnectionOptions = Omit<RedisOptions, 'replyMapping'>;

/**
 * A Redis Cluster to connect to: its seed nodes, and ioredis cluster options beside them
 * (`redisOptions` holds what every node connection uses: password, TLS...).
 *
 * @example
 * const connection = { nodes: [{ host: '10.0.0.1', port: 6379 }], redisOptions: { password } };
 */
export interface RedisClusterConnection extends Omit<ClusterOptions, 'replyMapping'> {
  /** At least one node of the cluster; the others are discovered (`CLUSTER SLOTS`). */
  readonly nodes: readonly ClusterNode[];
}

/** An ioredis client made by the caller: a `Redis` (standalone or Sentinel) or a `Cluster`. */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: ioredis options, a `redis://` or `rediss://` URL, a Redis Cluster's nodes
 * (`{ nodes: [...] }`), or an ioredis `Redis` or `Cluster` instance, used as given (what each
 * factory does with a given client is in its `connection` option's documentation).
 */
export type RedisConnection = RedisConnectionOptions | string | RedisClusterConnection | RedisClient;

/** Longest wait for one Redis command of the receiver before it counts as failed. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1000;

/**
 * How a client is used:
 * - `receiver`: answers an HTTP request; must fail fast when Redis is down (no offline queue,
 *   one retry, a command timeout) so the router answers 503 well inside the sender's budget;
 * - `worker`: waits out an outage (BullMQ's blocking commands need `maxRetriesPerRequest: null`).
 */
export type ClientRole = 'receiver' | 'worker';

/** A `connection` option, checked: which of the accepted forms it is. */
export type ResolvedConnection =
  | { readonly kind: 'client'; readonly client: RedisClient }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'options'; readonly options: RedisConnectionOptions }
  | {
      readonly kind: 'cluster';
      readonly nodes: readonly ClusterNode[];
      readonly options: Omit<ClusterOptions, 'replyMapping'>;
    };

const ACCEPTED =
  'ioredis options, a redis:// URL, cluster nodes ({ nodes: [...] }) or an ioredis Redis or Cluster instance';

/**
 * An ioredis client, from this copy of ioredis or another (an app may hold its own): the
 * constructors first, then the shape BullMQ itself relies on (`duplicate`, `defineCommand`) plus
 * `isCluster`, which node-redis and other clients lack.
 */
export function isRedisClient(value: unknown): value is RedisClient {
  if (value instanceof Redis || value instanceof Cluster) return true;
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.duplicate === 'function' &&
    typeof candidate.defineCommand === 'function' &&
    typeof candidate.sendCommand === 'function' &&
    typeof candidate.isCluster === 'boolean'
  );
}

const isPlainObject = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** What a rejected value was, for the TypeError: its class name when it has one. */
function describeRejected(value: unknown): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === 'string' && name !== '' ? `an instance of ${name}` : 'an object with a prototype';
  }
  return describeValue(value);
}

/** A URL without its password, for messages. */
function withoutPassword(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  return copy.href;
}

/**
 * Checks a `connection` option at construction and says which form it is; throws a TypeError
 * naming what was expected and what was got. Nothing is silently read as something else: an
 * object that is neither plain options nor an ioredis client (a node-redis client, a class
 * instance) is refused rather than spread into options, where it would become 127.0.0.1:6379.
 */
export function resolveConnection(connection: unknown, name = 'connection'): ResolvedConnection {
  if (typeof connection === 'string') {
    let url: URL;
    try {
      url = new URL(connection);
    } catch {
      throw new TypeError(`${name}: expected ${ACCEPTED}; got a string that is not a URL`);
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new TypeError(
        `${name}: expected a redis:// or rediss:// URL, got ${JSON.stringify(withoutPassword(url))}`,
      );
    }
    return { kind: 'url', url: connection };
  }
  if (isRedisClient(connection)) return { kind: 'client', client: connection };
  if (typeof connection !== 'object' || connection === null || Array.isArray(connection)) {
    throw new TypeError(`${name}: expected ${ACCEPTED}; got ${describeRejected(connection)}`);
  }
  if (!isPlainObject(connection)) {
    throw new TypeError(`${name}: expected ${ACCEPTED}; got ${describeRejected(connection)}`);
  }
  const fields = connection as Record<string, unknown>;
  // A client of another library (or a wrapper) spread as options would become 127.0.0.1:6379.
  const methods = ['duplicate', 'sendCommand', 'connect'].filter((key) => typeof fields[key] === 'function');
  if (methods.length > 0) {
    throw new TypeError(
      `${name}: expected ${ACCEPTED}; got an object with ${methods.join(', ')} methods that is not an ioredis client`,
    );
  }
  if ('nodes' in fields) {
    const { nodes, ...options } = fields;
    if (!Array.isArray(nodes) || nodes.length === 0) {
      throw new TypeError(
        `${name}.nodes: expected a non-empty array of cluster nodes, got ${describeValue(nodes)}`,
      );
    }
    for (const key of ['host', 'port', 'path', 'sentinels'] as const) {
      if (key in options) {
        throw new TypeError(
          `${name}: cluster nodes go in \`nodes\` and per-node options in \`redisOptions\`; got \`${key}\` beside \`nodes\``,
        );
      }
    }
    return { kind: 'cluster', nodes: nodes as ClusterNode[], options: options };
  }
  if (fields.host !== undefined && typeof fields.host !== 'string') {
    throw new TypeError(`${name}.host: expected a string, got ${describeValue(fields.host)}`);
  }
  if (fields.port !== undefined && typeof fields.port !== 'number' && typeof fields.port !== 'string') {
    throw new TypeError(`${name}.port: expected a number, got ${describeValue(fields.port)}`);
  }
  return { kind: 'options', options: connection };
}

/** Whether a resolved connection is a Redis Cluster (cluster nodes or an ioredis `Cluster`). */
export const isClusterConnection = (connection: ResolvedConnection): boolean =>
  connection.kind === 'cluster' || (connection.kind === 'client' && connection.client.isCluster);

/**
 * BullMQ refuses ioredis's `keyPrefix` (its scripts build keys themselves): refuse it at
 * construction with the option to use instead.
 */
export function refuseKeyPrefix(connection: ResolvedConnection, name = 'connection'): void {
  let keyPrefix: unknown;
  if (connection.kind === 'options') keyPrefix = connection.options.keyPrefix;
  else if (connection.kind === 'cluster') keyPrefix = connection.options.keyPrefix;
  else if (connection.kind === 'client') {
    const options = connection.client.options as {
      keyPrefix?: unknown;
      redisOptions?: { keyPrefix?: unknown };
    };
    keyPrefix = options.keyPrefix ?? options.redisOptions?.keyPrefix;
  } else {
    const url = new URL(connection.url);
    keyPrefix = url.searchParams.get('keyPrefix') ?? undefined;
  }
  if (keyPrefix !== undefined && keyPrefix !== '') {
    throw new TypeError(
      `${name}: ioredis keyPrefix is not supported by BullMQ; use the \`prefix\` option instead`,
    );
  }
}

/** Where Redis is, for messages: host and port, never a password. */
export function describeConnection(connection: ResolvedConnection): string {
  const node = (value: ClusterNode | undefined): string =>
    typeof value === 'object' ? `${value.host ?? '127.0.0.1'}:${value.port ?? 6379}` : String(value);
  switch (connection.kind) {
    case 'url':
      try {
        return `Redis at ${new URL(connection.url).host}`;
      } catch {
        return 'Redis';
      }
    case 'options': {
      const { host, port, path, sentinels, name } = connection.options;
      if (sentinels !== undefined && sentinels !== null) return `Redis Sentinel master ${name ?? 'mymaster'}`;
      if (path !== undefined) return `Redis at ${path}`;
      return `Redis at ${host ?? '127.0.0.1'}:${port ?? 6379}`;
    }
    case 'cluster':
      return `Redis Cluster at ${connection.nodes.map(node).join(', ')}`;
    case 'client':
      return connection.client.isCluster ? 'the given ioredis Cluster' : 'the given ioredis client';
  }
}

/**
 * The receiver's fail-fast tuning of one Redis connection. Without `perCommand`, no ioredis
 * command timeout: the part bounds its commands itself (one timer for many, see deadlines.ts).
 */
function receiverTuning(commandTimeoutMs: number, perCommand: boolean): RedisConnectionOptions {
  return {
    maxRetriesPerRequest: 1,
    ...(perCommand ? { commandTimeout: commandTimeoutMs } : {}),
    // A command lost with its connection must fail, not run later after a 503 was answered.
    autoResendUnfulfilledCommands: false,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
  };
}

/** ioredis's own parameter type (its reply-mapping generics do not accept an optional redisOptions). */
type ClusterTuning = NonNullable<ConstructorParameters<typeof Cluster>[1]>;

/** A client to use and whether this library opened it (then it closes it; never the caller's). */
export interface OpenedClient {
  readonly client: RedisClient;
  readonly owned: boolean;
}

/**
 * The client of a part for its role. Options, a URL or cluster nodes: a new client tuned for the
 * role, owned. A given client: used as given by a receiver-side part (not closed, not retuned);
 * a worker duplicates it with \`maxRetriesPerRequest: null\` and the offline queue on (BullMQ's
 * blocking commands need both, and refuse a client without the first), keeping its address,
 * credentials, TLS and nodes, and closes that duplicate itself.
 */
export function openClient(
  connection: ResolvedConnection,
  role: ClientRole,
  commandTimeoutMs: number = DEFAULT_COMMAND_TIMEOUT_MS,
  { perCommandTimeout = true }: { readonly perCommandTimeout?: boolean } = {},
): OpenedClient {
  const receiver = role === 'receiver';
  switch (connection.kind) {
    case 'client': {
      if (receiver) return { client: connection.client, owned: false };
      const client = connection.client;
      const copy: RedisClient = client.isCluster
        ? (client as Cluster).duplicate([], {
            enableOfflineQueue: true,
            redisOptions: { ...(client as Cluster).options.redisOptions, maxRetriesPerRequest: null },
          } as ClusterTuning)
        : (client as Redis).duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
      return { client: copy, owned: true };
    }
    case 'cluster': {
      const { options, nodes } = connection;
      const tuned: ClusterOptions = receiver
        ? {
            ...options,
            enableOfflineQueue: false,
            redisOptions: { ...options.redisOptions, ...receiverTuning(commandTimeoutMs, perCommandTimeout) },
          }
        : {
            ...options,
            enableOfflineQueue: true,
            redisOptions: { ...options.redisOptions, maxRetriesPerRequest: null },
          };
      return { client: new Cluster([...nodes], tuned as ClusterTuning), owned: true };
    }
    default: {
      const tuned: RedisConnectionOptions = receiver
        ? {
            ...receiverTuning(commandTimeoutMs, perCommandTimeout),
            enableOfflineQueue: false,
            retryStrategy: (times) => Math.min(50 * times, 1000),
          }
        : { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(100 * times, 2000) };
      const client =
        connection.kind === 'url'
          ? new Redis(connection.url, tuned)
          : new Redis({ ...connection.options, ...tuned });
      return { client, owned: true };
    }
  }
}

/**
 * The servers to ask about configuration: the client itself, or a cluster's primaries (once
 * connected; `INFO` on a Cluster would go to one node picked at random).
 */
export function serversOf(client: RedisClient): Redis[] {
  return client.isCluster ? (client as Cluster).nodes('master') : [client as Redis];
}

/** Resolves once `client` is connected (it keeps reconnecting in the background until then). */
export async function waitUntilReady(client: RedisClient): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => client.once('ready', () => resolve()));
}

/** Logs ioredis errors instead of letting an unhandled 'error' event reach the console. */
export function logClientErrors(client: RedisClient, logger: Logger, what: string): void {
  let last = '';
  client.on('error', (error: Error) => {
    // A reconnect loop repeats one message many times a second: log each message once per streak.
    if (error.message === last) return;
    last = error.message;
    logger.warn({ err: error }, `${what}: redis connection error`);
  });
  client.on('ready', () => {
    last = '';
  });
}

/** `host:port` of one server, for logs. */
const serverName = (server: Redis): string =>
  `${server.options.host ?? '127.0.0.1'}:${server.options.port ?? 6379}`;

/**
 * Reads Redis's `maxmemory-policy` (every primary of a cluster) and warns loudly unless it is
 * `noeviction`: under memory pressure any other policy silently deletes queued jobs and dedupe
 * claims, which is data loss. Resolves with the policy (the first one that is not `noeviction`
 * on a cluster), or undefined when it could not be read (e.g. CONFIG disabled).
 */
export async function checkEvictionPolicy(client: RedisClient, logger: Logger): Promise<string | undefined> {
  const servers = serversOf(client);
  const policies = await Promise.all(
    servers.map(async (server) => {
      try {
        const info = await server.info('memory');
        return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
      } catch (error) {
        logger.debug({ err: error }, 'could not read maxmemory-policy');
        return undefined;
      }
    }),
  );
  let found: string | undefined;
  for (const [index, policy] of policies.entries()) {
    if (policy === undefined) continue;
    found ??= policy;
    if (policy === 'noeviction') continue;
    found = policy;
    logger.warn(
      { maxmemoryPolicy: policy, ...(client.isCluster ? { node: serverName(servers[index]!) } : {}) },
      `IMPORTANT: Redis maxmemory-policy is "${policy}"; it must be "noeviction", or Redis may evict queued webhooks and dedupe keys under memory pressure`,
    );
  }
  return found;
}

/** Closes a client this library opened: QUIT when connected, else drop the socket. */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    // QUIT can race the server closing the socket: then the client is already ending.
    if (!hasEnded(client)) client.disconnect();
  }
}

/** Read afresh (not narrowed): the status changes while a command is awaited. */
const hasEnded = (client: RedisClient): boolean => client.status === 'end';
