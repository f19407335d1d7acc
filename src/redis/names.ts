import { readFileSync } from 'node:fs';

/*
 * The one place the Redis names shared by an app and the CLI come from when not given in code or
 * on the command line: environment variables, then a JSON configuration file. The dispatcher, the
 * worker and the dead-letter queue (through `resolveTopology`) and the `dlq` commands read the same
 * resolver, so an app started with `MESSAGING_WEBHOOKS_QUEUE_NAME=orders` and `messaging-webhooks
 * dlq list` in the same environment look at the same queues. No BullMQ or ioredis import: the CLI
 * loads this for `--help`.
 */

/**
 * Default BullMQ queue name; partitions are `<name>-0` ... `<name>-<n-1>`, dead letters
 * `<name>-dead`, each wrapped in braces (`{<name>-0}`) with hash tags (a Redis Cluster).
 */
export const DEFAULT_QUEUE_NAME = 'webhooks';
/** Default number of partition queues: conversations run in parallel up to this many at a time. */
export const DEFAULT_PARTITIONS = 16;

/** The environment variables read, by setting. */
export const REDIS_NAME_ENV = {
  /** The Redis URL of the CLI's `--redis` (the app gives its `connection` in code). */
  url: 'MESSAGING_WEBHOOKS_REDIS_URL',
  queueName: 'MESSAGING_WEBHOOKS_QUEUE_NAME',
  prefix: 'MESSAGING_WEBHOOKS_QUEUE_PREFIX',
  partitions: 'MESSAGING_WEBHOOKS_PARTITIONS',
  hashTags: 'MESSAGING_WEBHOOKS_HASH_TAGS',
  /** A JSON file `{ "redis": { "url", "queueName", "prefix", "partitions", "hashTags" } }`. */
  config: 'MESSAGING_WEBHOOKS_CONFIG',
} as const;

/** The shared names: each is undefined where neither the environment nor the file sets it. */
export interface SharedRedisNames {
  readonly url?: string | undefined;
  readonly queueName?: string | undefined;
  readonly prefix?: string | undefined;
  readonly partitions?: number | undefined;
  readonly hashTags?: boolean | undefined;
}

/** Where the variables are read: `process.env`, or a record of them (tests, another runtime's env). */
export type RedisNameSource = Readonly<Record<string, string | undefined>>;

/** The process environment, or none where there is no `process` (a Worker without nodejs_compat). */
const processEnv = (): RedisNameSource => (typeof process === 'undefined' ? {} : process.env);

function fromFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TypeError(`${REDIS_NAME_ENV.config}: cannot read ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new TypeError(`${REDIS_NAME_ENV.config}: ${file} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const redis = (json as { redis?: unknown } | null)?.redis;
  if (typeof redis !== 'object' || redis === null || Array.isArray(redis)) {
    throw new TypeError(`${REDIS_NAME_ENV.config}: ${file}: expected { "redis": { "queueName": ..., ... } }`);
  }
  return redis as Record<string, unknown>;
}

const KEYS = ['url', 'queueName', 'prefix', 'partitions', 'hashTags'] as const;

/**
 * The names the environment (`MESSAGING_WEBHOOKS_*`) and the configuration file set; an
 * environment variable wins over the file. A malformed value throws a TypeError naming its
 * variable or file. `configFile` (the CLI's `--config`) wins over `MESSAGING_WEBHOOKS_CONFIG`.
 */
export function sharedRedisNames(env: RedisNameSource = processEnv(), configFile?: string): SharedRedisNames {
  const file = configFile ?? env[REDIS_NAME_ENV.config];
  const fileValues = file === undefined || file === '' ? {} : fromFile(file);
  const names: Record<string, unknown> = {};
  for (const key of KEYS) {
    const raw = env[REDIS_NAME_ENV[key]];
    const where = raw === undefined || raw === '' ? `${file ?? ''} redis.${key}` : REDIS_NAME_ENV[key];
    const value: unknown = raw === undefined || raw === '' ? fileValues[key] : raw;
    if (value === undefined) continue;
    names[key] = parseName(key, value, where);
  }
  for (const key of Object.keys(fileValues)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new TypeError(`${file ?? ''}: redis.${key} is not a setting (expected ${KEYS.join(', ')})`);
    }
  }
  return names;
}

function parseName(key: (typeof KEYS)[number], value: unknown, where: string): unknown {
  switch (key) {
    case 'partitions': {
      const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1024) {
        throw new TypeError(`${where}: expected a whole number from 1 to 1024, got ${JSON.stringify(value)}`);
      }
      return n;
    }
    case 'hashTags': {
      if (value === true || value === 'true' || value === '1') return true;
      if (value === false || value === 'false' || value === '0') return false;
      throw new TypeError(`${where}: expected true or false, got ${JSON.stringify(value)}`);
    }
    default:
      if (typeof value !== 'string' || value === '') {
        throw new TypeError(`${where}: expected a non-empty string, got ${JSON.stringify(value)}`);
      }
      return value;
  }
}

/**
 * A topology with what it leaves unset filled from {@link sharedRedisNames}: what
 * `resolveTopology` reads, so the dispatcher, the worker and the dead-letter queue agree with the
 * CLI when the environment names the queues.
 */
export function withSharedNames<
  T extends {
    readonly queueName?: string | undefined;
    readonly partitions?: number | undefined;
    readonly prefix?: string | undefined;
    readonly hashTags?: boolean | undefined;
  },
>(options: T, env?: RedisNameSource): T {
  const shared = sharedRedisNames(env);
  return {
    ...options,
    queueName: options.queueName ?? shared.queueName,
    partitions: options.partitions ?? shared.partitions,
    prefix: options.prefix ?? shared.prefix,
    hashTags: options.hashTags ?? shared.hashTags,
  };
}
