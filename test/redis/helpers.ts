import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { fixtures } from '../../src/testing/fixtures.js';
import type { ChatbotEvent } from '../../src/schemas/index.js';

export const SHARED_REDIS_PORT = 6379;
const REQUIRED = process.env.REQUIRE_REDIS === '1';

/** Whether something answers PING on 127.0.0.1:`port`; the reason when not. */
export async function pingRedis(
  port = SHARED_REDIS_PORT,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: Error | undefined;
  client.on('error', (error: Error) => {
    cause = error;
  });
  try {
    await client.connect();
    await client.ping();
    return { ok: true };
  } catch (error) {
    const message = (cause ?? (error as Error)).message;
    return { ok: false, reason: `Redis on 127.0.0.1:${port} is unreachable (${message})` };
  } finally {
    // No reconnects (retryStrategy null): a failed client is done; disconnect() would wait up
    // to 2 s for a socket that closed already.
    if (client.status === 'ready') await client.quit();
    else if (client.stream?.destroyed !== true) client.disconnect();
  }
}

/**
 * `describe` when Redis answers or REQUIRE_REDIS=1 (then the suite fails with the reason);
 * `describe.skip` with a printed reason otherwise.
 */
export async function describeWithRedis(): Promise<{
  describe: jest.Describe;
  unreachable: string | undefined;
}> {
  const gate = await pingRedis();
  if (gate.ok) return { describe, unreachable: undefined };
  if (REQUIRED) return { describe, unreachable: gate.reason };
  process.stdout.write(`skipping Redis tests: ${gate.reason} (set REQUIRE_REDIS=1 to fail instead)\n`);
  return { describe: describe.skip, unreachable: gate.reason };
}

/** Closes a test's client whatever state an outage left it in. */
export async function quitQuietly(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  await client.quit().catch(() => {
    // QUIT can race the server closing the socket: then the client is already ending.
    if (client.status !== 'end') client.disconnect();
  });
}

/** A unique name for this test run, usable as a BullMQ queue name (no ':'). */
export const uniqueName = (label: string): string => `mwtest-${label}-${randomUUID().slice(0, 8)}`;

/** Deletes every key matching `pattern` (SCAN, not KEYS). */
export async function deleteKeys(client: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== '0');
}

/** Removes a test run's BullMQ queues and dedupe keys. */
export async function cleanUp(client: Redis, queueName: string, dedupePrefix: string): Promise<void> {
  await deleteKeys(client, `bull:${queueName}-*`);
  await deleteKeys(client, `${dedupePrefix}*`);
}

const DIST = path.resolve(process.cwd(), 'dist');

/** The child processes run the built library: fail clearly when it is missing. */
function assertBuilt(): void {
  if (!existsSync(path.join(DIST, 'redis', 'index.js'))) {
    throw new Error('dist/redis/index.js is missing: run `npm run build` before the Redis tests');
  }
}

/** What a receiver child is told. */
export interface ReceiverConfig {
  readonly redisPort: number;
  readonly queueName: string;
  readonly partitions: number;
  readonly dedupePrefix: string;
  readonly leaseMs?: number;
  readonly enqueueTimeoutMs?: number;
  /**
   * A dispatcher whose enqueue never settles, instead of BullMQ: a request's claim lands and the
   * receiver then holds it, unanswered, until it is killed (the lease tests' crash window).
   */
  readonly hangingDispatcher?: boolean;
}

/**
 * The receiver child: the BUILT library behind node:http with the Redis store and BullMQ
 * dispatcher. Run with `node --input-type=module -e` rather than kept as a .mjs file, so that
 * `eslint .` (typed, project-service) has no untyped script to trip on.
 */
function receiverScript(): string {
  const dist = (file: string): string => JSON.stringify(pathToFileURL(path.join(DIST, file)).href);
  return `
import http from 'node:http';
import { createNodeHandler } from ${dist('index.js')};
import { createBullMQDispatcher, createRedisDedupeStore } from ${dist('redis/index.js')};
const config = JSON.parse(process.env.MW_RECEIVER);
const connection = { host: '127.0.0.1', port: config.redisPort };
const store = createRedisDedupeStore({ connection, prefix: config.dedupePrefix, leaseMs: config.leaseMs });
const dispatcher = config.hangingDispatcher
  ? {
      enqueue: () => new Promise(() => undefined),
      idle: async () => undefined,
      close: async () => true,
      counts: () => ({ queued: 0, running: 0 }),
      ready: async () => undefined,
    }
  : createBullMQDispatcher({ connection, queueName: config.queueName, partitions: config.partitions });
const noop = () => undefined;
const handler = createNodeHandler({
  onChatbot: noop, // declares the type as handled, so it is enqueued; the worker runs it
  dedupe: { store },
  dispatcher,
  enqueueTimeoutMs: config.enqueueTimeoutMs ?? 2000,
  retryAfterSeconds: 1,
});
await Promise.all([store.ready(), dispatcher.ready()]);
const server = http.createServer(handler);
server.listen(0, '127.0.0.1', () => process.stdout.write('LISTENING ' + server.address().port + '\\n'));
process.on('SIGTERM', () => {
  server.close();
  void handler.close(5000).then(() => process.exit(0));
});
`;
}

/** A running receiver child process. */
export interface ReceiverProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** Sends `signal` and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns a receiver child and resolves once it listens (bounded: 15 s). */
export function startReceiver(config: ReceiverConfig): Promise<ReceiverProcess> {
  assertBuilt();
  const child = spawn(process.execPath, ['--input-type=module', '-e', receiverScript()], {
    env: { ...process.env, NODE_OPTIONS: '', MW_RECEIVER: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`receiver did not start within 15 s: ${stderr}`));
    }, 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /LISTENING (\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), child, stop });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`receiver exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });
}

/** The answer to one POST: the status, or 'error' when the connection failed. */
export interface PostResult {
  readonly status: number | 'error';
  readonly body: string;
  readonly ms: number;
}

/** POSTs JSON to 127.0.0.1:`port` (bounded: 10 s). */
export function post(agent: http.Agent, port: number, urlPath: string, body: unknown): Promise<PostResult> {
  const started = performance.now();
  const data = JSON.stringify(body);
  return new Promise((resolve) => {
    const done = (status: number | 'error', body = ''): void =>
      resolve({ status, body, ms: performance.now() - started });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method: 'POST',
        agent,
        timeout: 10_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => done(res.statusCode ?? 'error', text));
        res.on('error', () => done('error'));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done('error'));
    req.end(data);
  });
}

/** Runs `fn` over `items` with at most `concurrency` at once; `stop()` ends early. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    while (next < items.length && !stop()) {
      const index = next++;
      await fn(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
}

/** A valid v1 chatbot event with its own eventId and conversation. */
export function chatbotEvent(eventId: string, chatParticipantId = `participant-${eventId}`): ChatbotEvent {
  return { ...fixtures.chatbot.v1.INCOMING, eventId, chatParticipantId };
}

/** Polls `check` every 50 ms until it resolves true or `timeoutMs` passes; resolves whether it did. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A free TCP port on 127.0.0.1 (closed again before returning). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A private redis-server child on `port` (no persistence), for the outage test. */
export interface RedisServerProcess {
  readonly port: number;
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server keeps its connections but answers nothing (a hung Redis). */
  pause(): void;
  resume(): void;
}

/** Starts `redis-server` on `port` and resolves once it answers PING (bounded: 10 s). */
export async function startRedisServer(port: number): Promise<RedisServerProcess> {
  // Its own directory: a replica writes the RDB it receives there, and nothing lands in the tree.
  const dir = mkdtempSync(path.join(tmpdir(), 'mw-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      rmSync(dir, { recursive: true, force: true });
      resolve();
    }),
  );
  child.once('error', () => undefined);
  const up = await waitFor(async () => (await pingRedis(port)).ok, 10_000);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  if (!up) {
    await stop();
    throw new Error(`redis-server did not start on port ${port}`);
  }
  return { port, stop, pause: () => child.kill('SIGSTOP'), resume: () => child.kill('SIGCONT') };
}
