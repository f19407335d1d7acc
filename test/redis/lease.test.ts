// Issue 16, gap 4: a claim must not be orphaned. A claim that timed out client-side during a
// Redis stall still landed when Redis resumed and held a 30 s lease, so every redelivery within
// the sender's retry window got 503 and the event was never processed; the same when the
// receiver holding a claim died. Here a sender tries at +0, +1 s and +2 s (the emulator's retry
// model) against a private redis-server that is stalled (SIGSTOP) or whose claimer is SIGKILLed.
// Real time only where the stall and the kill need it; the assertions are "accepted, ran once".
import http from 'node:http';
import { Redis } from 'ioredis';
import { createNodeHandler, type NodeWebhookHandler } from '../../src/receiver/index.js';
import { createRedisDedupeStore, type RedisDedupeStore } from '../../src/redis/index.js';
import {
  chatbotEvent,
  describeWithRedis,
  freePort,
  post,
  startRedisServer,
  startReceiver,
  uniqueName,
  waitFor,
  type PostResult,
  type ReceiverProcess,
  type RedisServerProcess,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeRedis('dedupe leases under a Redis stall and a receiver crash (private redis-server)', () => {
  let server: RedisServerProcess | undefined;
  let admin: Redis | undefined;
  const agent = new http.Agent({ keepAlive: false });
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    server = await startRedisServer(await freePort());
    admin = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
  }, 15_000);

  afterEach(async () => {
    server?.resume();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  afterAll(async () => {
    agent.destroy();
    admin?.disconnect();
    await server?.stop();
  });

  /** An in-process receiver on the private server: Redis store, in-memory dispatcher, counted runs. */
  async function receiver(
    prefix: string,
  ): Promise<{ port: number; runs: string[]; handler: NodeWebhookHandler }> {
    const runs: string[] = [];
    const store: RedisDedupeStore = createRedisDedupeStore({
      connection: { host: '127.0.0.1', port: server!.port },
      prefix,
    });
    await store.ready();
    const handler = createNodeHandler({
      onChatbot: (event) => {
        runs.push(event.eventId);
      },
      dedupe: { store },
      retryAfterSeconds: 1,
    });
    const httpServer = http.createServer(handler);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      await new Promise((resolve) => httpServer.close(resolve));
      await handler.close(1000);
    });
    return { port: (httpServer.address() as { port: number }).port, runs, handler };
  }

  /** Sends `body` at `offsets` ms after the first attempt, to the port `target(i)` names. */
  async function sender(
    offsets: readonly number[],
    target: (attempt: number) => number,
    path: string,
    body: unknown,
  ) {
    const started = performance.now();
    return Promise.all(
      offsets.map(async (offset, attempt): Promise<PostResult> => {
        await sleep(Math.max(0, started + offset - performance.now()));
        return post(agent, target(attempt), path, body);
      }),
    );
  }

  it('accepts and runs once an event whose first claim timed out in a 1.5 s stall, with retries at +1 s and +2 s', async () => {
    const prefix = `${uniqueName('stall')}:dedupe:`;
    const { port, runs, handler } = await receiver(prefix);
    const event = chatbotEvent(uniqueName('stalled-event'));
    server!.pause();
    const resumed = sleep(1500).then(() => server!.resume());
    const answers = await sender([0, 1000, 2000], () => port, '/chatbot', event);
    await resumed;
    await handler.idle();
    const statuses = answers.map((answer) => answer.status);
    process.stdout.write(`stall: answers ${JSON.stringify(statuses)}, runs ${runs.length}\n`);
    expect({ accepted: statuses.includes(200), runs: runs.length }).toEqual({ accepted: true, runs: 1 });
    // A later redelivery is a duplicate: the claim was confirmed, not left as a lease.
    const later = await post(agent, port, '/chatbot', event);
    expect([later.status, JSON.parse(later.body)]).toEqual([200, { received: true, duplicate: true }]);
    expect(runs).toHaveLength(1);
  }, 20_000);

  it('accepts and runs once an event whose claimer was SIGKILLed holding the claim, with retries at +1 s and +2 s', async () => {
    const prefix = `${uniqueName('killed')}:dedupe:`;
    const { port, runs, handler } = await receiver(prefix);
    // The claimer's enqueue never settles, and its deadline is far away: once its claim is in
    // Redis, it holds it until it is killed.
    const claimer: ReceiverProcess = await startReceiver({
      redisPort: server!.port,
      queueName: uniqueName('unused'),
      partitions: 1,
      dedupePrefix: prefix,
      enqueueTimeoutMs: 60_000,
      hangingDispatcher: true,
    });
    cleanups.push(() => claimer.stop('SIGKILL'));
    const event = chatbotEvent(uniqueName('orphaned-event'));
    const killed = waitFor(async () => (await admin!.keys(`${prefix}*`)).length > 0, 5000).then(
      async (claimed) => {
        expect(claimed).toBe(true);
        await claimer.stop('SIGKILL');
      },
    );
    const answers = await sender(
      [0, 1000, 2000],
      (attempt) => (attempt === 0 ? claimer.port : port),
      '/chatbot',
      event,
    );
    await killed;
    await handler.idle();
    const statuses = answers.map((answer) => answer.status);
    process.stdout.write(`SIGKILL: answers ${JSON.stringify(statuses)}, runs ${runs.length}\n`);
    expect({ accepted: statuses.includes(200), runs: runs.length }).toEqual({ accepted: true, runs: 1 });
  }, 30_000);
});
