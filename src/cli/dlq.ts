import { InvalidArgumentError } from 'commander';
import type { DeadLetterEntry, DeadLetterQueue } from '../redis/dlq.js';
import { DEFAULT_PARTITIONS, DEFAULT_QUEUE_NAME, REDIS_NAME_ENV, sharedRedisNames } from '../redis/names.js';
import { CliError, messageOf, type CliIo } from './output.js';

/** A dlq command's topology with everything resolved: flags, then the shared names, then the defaults. */
interface ResolvedDlqOptions extends DlqCommandOptions {
  readonly redis: string;
  readonly queueName: string;
  readonly partitions: number;
}

/**
 * The flags, then what the app reads too (`MESSAGING_WEBHOOKS_*`, the `--config` file; see
 * src/redis/names.ts), then the library's defaults: the CLI looks where the app writes.
 */
export function resolveDlqOptions(options: DlqCommandOptions, env = process.env): ResolvedDlqOptions {
  let shared;
  try {
    shared = sharedRedisNames(env, options.config);
  } catch (error) {
    throw new CliError(messageOf(error), 1, { cause: error });
  }
  const redis = options.redis ?? shared.url;
  if (redis === undefined) {
    throw new CliError(
      `give --redis <url> (or set ${REDIS_NAME_ENV.url}, or redis.url in the --config file)`,
    );
  }
  try {
    parseRedisUrl(redis);
  } catch (error) {
    throw new CliError(`${REDIS_NAME_ENV.url}: ${messageOf(error)}`, 1, { cause: error });
  }
  const prefix = options.prefix ?? shared.prefix;
  return {
    ...options,
    redis,
    queueName: options.queueName ?? shared.queueName ?? DEFAULT_QUEUE_NAME,
    partitions: options.partitions ?? shared.partitions ?? DEFAULT_PARTITIONS,
    ...(prefix === undefined ? {} : { prefix }),
    ...(options.hashTags === undefined && shared.hashTags === true ? { hashTags: true } : {}),
  };
}

/** Options of every `dlq` subcommand (as commander hands them over, already parsed). */
export interface DlqCommandOptions {
  /** Where Redis is; else the shared names' URL (`MESSAGING_WEBHOOKS_REDIS_URL`). */
  readonly redis?: string | undefined;
  readonly queueName?: string | undefined;
  readonly partitions?: number | undefined;
  readonly prefix?: string | undefined;
  /** `--config <file>`: the shared names' JSON file (else `MESSAGING_WEBHOOKS_CONFIG`). */
  readonly config?: string | undefined;
  /** `--redis` is a node of a Redis Cluster: connect to the cluster through it. */
  readonly cluster?: boolean | undefined;
  /** Hash-tagged queue names without `--cluster` (the dispatcher's `hashTags: true`). */
  readonly hashTags?: boolean | undefined;
  readonly format: 'table' | 'json';
}

/** `--redis`: a redis:// or rediss:// URL. */
export function parseRedisUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`expected a redis:// URL such as redis://127.0.0.1:6379`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new InvalidArgumentError(`expected a redis:// or rediss:// URL, got ${url.protocol}`);
  }
  return value;
}

/** A whole number from `min` to `max` (commander `argParser`). */
export function parseWhole(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

/** `--queue-name`: as the dispatcher's `queueName` (no `:`). */
export function parseQueueName(value: string): string {
  if (value === '' || value.includes(':')) throw new InvalidArgumentError(`expected a name without ':'`);
  return value;
}

/**
 * The cluster connection of `--redis <url> --cluster`: the URL's node as the seed (the others are
 * discovered), its user, password and TLS (`rediss:`) for every node.
 */
function clusterConnectionOf(redisUrl: string): {
  nodes: { host: string; port: number }[];
  redisOptions: { username?: string; password?: string; tls?: object };
} {
  const url = new URL(redisUrl);
  return {
    nodes: [{ host: url.hostname, port: url.port === '' ? 6379 : Number(url.port) }],
    redisOptions: {
      ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
      ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  };
}

/** Opens the dead-letter queue of the options' topology (loads BullMQ only when a command runs). */
async function openDeadLetterQueue(options: ResolvedDlqOptions): Promise<DeadLetterQueue> {
  let redis: typeof import('../redis/dlq.js');
  try {
    redis = await import('../redis/dlq.js');
  } catch (error) {
    throw new CliError(
      'the dlq commands need the optional dependencies bullmq and ioredis: npm install bullmq ioredis',
      1,
      {
        cause: error,
      },
    );
  }
  return redis.createDeadLetterQueue({
    connection: options.cluster === true ? clusterConnectionOf(options.redis) : options.redis,
    queueName: options.queueName,
    partitions: options.partitions,
    prefix: options.prefix,
    ...(options.hashTags === true ? { hashTags: true } : {}),
  });
}

/** Runs `action` on an open dead-letter queue, closing it after. */
async function withDeadLetterQueue<T>(
  given: DlqCommandOptions,
  action: (dlq: DeadLetterQueue, options: ResolvedDlqOptions) => Promise<T>,
): Promise<T> {
  const options = resolveDlqOptions(given);
  const dlq = await openDeadLetterQueue(options);
  try {
    return await action(dlq, options);
  } finally {
    await dlq.close();
  }
}

/** A dead-letter queue found in Redis by its keys: its name, prefix, size and the flags that select it. */
interface FoundQueue {
  readonly name: string;
  readonly prefix: string;
  readonly flags: string;
}

/** Keys looked at, at most, when searching for dead-letter queues (SCAN is incremental: no blocking). */
const SCAN_LIMIT = 1_000_000;

/**
 * The BullMQ dead-letter queues (`<queueName>-dead`, hash-tagged or not) of the Redis the options
 * name, found by their `meta` keys (`<prefix>:<name>:meta`), each with the dead letters it holds
 * (its waiting, prioritized and delayed jobs, the states the worker leaves them in) and the flags
 * that select it.
 */
async function findDeadLetterQueues(options: ResolvedDlqOptions): Promise<FoundQueue[]> {
  const { Redis, Cluster } = await import('ioredis');
  const client =
    options.cluster === true
      ? new Cluster(clusterConnectionOf(options.redis).nodes, {
          redisOptions: clusterConnectionOf(options.redis).redisOptions,
          lazyConnect: true,
        })
      : new Redis(options.redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  try {
    const nodes = client instanceof Cluster ? (await client.connect(), client.nodes('master')) : [client];
    const keys = new Set<string>();
    for (const node of nodes) {
      let cursor = '0';
      let seen = 0;
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', '*-dead*:meta', 'COUNT', 1000);
        cursor = next;
        seen += 1000;
        for (const key of batch) keys.add(key);
      } while (cursor !== '0' && seen < SCAN_LIMIT);
    }
    const found: FoundQueue[] = [];
    for (const key of [...keys].sort()) {
      const match = /^(.*):(\{[^{}:]+-dead\}|[^{}:]+-dead):meta$/.exec(key);
      if (match === null) continue;
      const [, prefix = '', name = ''] = match;
      const base = `${prefix}:${name}`;
      const [waiting, prioritized, delayed] = await Promise.all([
        client.llen(`${base}:wait`),
        client.zcard(`${base}:prioritized`),
        client.zcard(`${base}:delayed`),
      ]);
      const count = waiting + prioritized + delayed;
      const tagged = name.startsWith('{');
      const queueName = name.replace(/^\{|\}$/g, '').replace(/-dead$/, '');
      const flags =
        `${count} dead letter${count === 1 ? '' : 's'}; select it with --queue-name ${queueName}` +
        (prefix === 'bull' ? '' : ` --prefix ${prefix}`) +
        (tagged && options.cluster !== true ? ' --hash-tags' : '');
      found.push({ name, prefix, flags });
    }
    return found;
  } finally {
    client.disconnect();
  }
}

/** The dead-letter queue's name, as the worker names it (hash-tagged on a cluster). */
const deadLetterName = (options: ResolvedDlqOptions): string =>
  options.cluster === true || options.hashTags === true
    ? `{${options.queueName}-dead}`
    : `${options.queueName}-dead`;

const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
const oneLine = (text: string, max = 60): string => {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A JSON view of an entry: what `list --format json` prints (the payload only in `show`). */
function summary(entry: DeadLetterEntry): Record<string, unknown> {
  return {
    id: entry.id,
    type: entry.type,
    requestId: entry.requestId,
    partition: entry.partition,
    attempts: entry.attempts,
    redrives: entry.redrives,
    error: entry.error,
    receivedAt: entry.receivedAt.toISOString(),
    firstFailedAt: entry.firstFailedAt.toISOString(),
    lastFailedAt: entry.lastFailedAt.toISOString(),
  };
}

/** `dlq list`: one line per dead letter, oldest first. */
export async function listCommand(
  given: DlqCommandOptions & { readonly limit?: number | undefined },
  io: CliIo,
): Promise<number> {
  return withDeadLetterQueue(given, async (dlq, options) => {
    const entries = await dlq.list(given.limit === undefined ? {} : { limit: given.limit });
    if (options.format === 'json') {
      io.out(JSON.stringify(entries.map(summary), null, 2));
      return entries.length;
    }
    const total = await dlq.count();
    if (entries.length === 0) {
      io.out(
        `No dead letters in ${deadLetterName(options)}${options.prefix === undefined ? '' : ` (prefix ${options.prefix})`}.`,
      );
      const others = (await findDeadLetterQueues(options)).filter(
        (found) => !(found.name === deadLetterName(options) && found.prefix === (options.prefix ?? 'bull')),
      );
      if (others.length === 0) {
        io.out('No other dead-letter queue (BullMQ queue named *-dead) found in this Redis.');
      } else {
        io.out('Dead-letter queues found in this Redis:');
        for (const found of others) io.out(`  ${found.name} (prefix ${found.prefix}): ${found.flags}`);
      }
      return 0;
    }
    const rows = entries.map((entry) => [
      entry.id,
      entry.type,
      String(entry.attempts),
      iso(entry.firstFailedAt),
      iso(entry.lastFailedAt),
      oneLine(`${entry.error.name}: ${entry.error.message}`),
    ]);
    const header = ['ID', 'TYPE', 'ATTEMPTS', 'FIRST FAILURE', 'LAST FAILURE', 'ERROR'];
    const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
    for (const row of [header, ...rows]) {
      io.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
    }
    io.out(
      `${entries.length} of ${total} dead letter${total === 1 ? '' : 's'} in ${deadLetterName(options)}.`,
    );
    return entries.length;
  });
}

/** `dlq show <id>`: the whole record, payload and stack included. */
export async function showCommand(id: string, given: DlqCommandOptions, io: CliIo): Promise<void> {
  await withDeadLetterQueue(given, async (dlq, options) => {
    const entry = await dlq.get(id);
    if (entry === undefined)
      throw new CliError(`no dead letter ${JSON.stringify(id)} in ${deadLetterName(options)}`);
    const shown = { ...summary(entry), job: entry.record.job, stack: entry.record.error.stack };
    if (options.format === 'json') {
      io.out(JSON.stringify(shown, null, 2));
      return;
    }
    for (const [key, value] of Object.entries(summary(entry))) {
      io.out(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    }
    io.out(`payload: ${JSON.stringify(entry.record.job.payload, null, 2)}`);
    if (entry.record.error.stack !== undefined) io.out(`stack:\n${entry.record.error.stack}`);
  });
}

/** Which dead letters a command acts on: the ids given, or `--all`; never neither nor both. */
function selection(
  ids: readonly string[],
  all: boolean | undefined,
  verb: string,
): readonly string[] | undefined {
  if (ids.length > 0 && all === true) throw new CliError(`${verb}: give ids or --all, not both`);
  if (ids.length === 0 && all !== true) {
    throw new CliError(`${verb}: give the ids to ${verb} (see dlq list) or --all`);
  }
  return ids.length > 0 ? ids : undefined;
}

/** `dlq redrive [ids...] --all --dry-run`. Resolves false when a requested id was missing. */
export async function redriveCommand(
  ids: readonly string[],
  options: DlqCommandOptions & { readonly all?: boolean; readonly dryRun?: boolean },
  io: CliIo,
): Promise<boolean> {
  const wanted = selection(ids, options.all, 'redrive');
  return withDeadLetterQueue(options, async (dlq) => {
    const report = await dlq.redrive({ ids: wanted, dryRun: options.dryRun === true });
    if (options.format === 'json') {
      io.out(JSON.stringify(report, null, 2));
    } else {
      const verb = report.dryRun ? 'would redrive' : 'redriven';
      for (const item of report.redriven) io.out(`${verb}: ${item.id} (${item.type}) → ${item.partition}`);
      for (const item of report.skipped) io.out(`skipped: ${item.id}: ${item.reason}`);
      for (const id of report.missing) io.err(`not found: ${id}`);
      io.out(
        `${report.redriven.length} dead letter${report.redriven.length === 1 ? '' : 's'} ${verb}${report.dryRun ? ' (dry run: nothing changed)' : ''}.`,
      );
    }
    return report.missing.length === 0;
  });
}

/** `dlq purge [ids...] --all --yes`. */
export async function purgeCommand(
  ids: readonly string[],
  options: DlqCommandOptions & { readonly all?: boolean; readonly yes?: boolean },
  io: CliIo,
): Promise<void> {
  const wanted = selection(ids, options.all, 'purge');
  await withDeadLetterQueue(options, async (dlq) => {
    if (options.yes !== true) {
      const count = wanted?.length ?? (await dlq.count());
      throw new CliError(
        `purge deletes ${count} dead letter${count === 1 ? '' : 's'} for good; add --yes to confirm`,
      );
    }
    const removed = await dlq.purge({ ids: wanted });
    io.out(`${removed} dead letter${removed === 1 ? '' : 's'} purged.`);
  });
}
