// The Redis dedupe store with the BullMQ dispatcher claims inside BullMQ's add: one Redis command
// (one round trip) per event, whether new or a redelivery, against a private redis-server watched
// with MONITOR; and what that keeps: one acceptance per event, a late add a redelivery dedupes
// against, the three-step claim with any other dispatcher.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createNodeHandler, type NodeWebhookHandler } from '../../src/receiver/index.js';
import { createMemoryDispatcher, createJobRunner } from '../../src/dispatch/index.js';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  createWorker,
  type BullMQDispatcher,
  type RedisDedupeStore,
  type WebhookWorker,
} from '../../src/redis/index.js';
import { createStatsRecorder } from '../../src/pipeline/stats.js';
import {
  chatbotEvent,
  describeWithRedis,
  freePort,
  post,
  quitQuietly,
  startRedisServer,
  uniqueName,
  waitFor,
  type RedisServerProcess,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();
const silent = pino({ level: 'silent' });

describeRedis('the dedupe claim made inside the BullMQ add (private redis-server)', () => {
  let server: RedisServerProcess | undefined;
  let admin: Redis;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    server = await startRedisServer(await freePort());
    admin = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
  }, 15_000);

  afterEach(async () => {
    server?.resume();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  afterAll(async () => {
    agent.destroy();
    if (admin !== undefined) await quitQuietly(admin);
    await server?.stop();
  });

  interface Receiver {
    readonly port: number;
    readonly handler: NodeWebhookHandler;
    readonly store: RedisDedupeStore;
    readonly dispatcher: BullMQDispatcher;
    readonly queueName: string;
  }

  async function receiver(enqueueTimeoutMs = 2000): Promise<Receiver> {
    const connection = { host: '127.0.0.1', port: server!.port };
    const queueName = uniqueName('claim');
    const store = createRedisDedupeStore({ connection, prefix: `${queueName}:dedupe:`, logger: silent });
    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 4, logger: silent });
    const handler = createNodeHandler({
      onChatbot: () => undefined, // declares the type: it is enqueued, a worker runs it
      dedupe: { store },
      dispatcher,
      enqueueTimeoutMs,
      retryAfterSeconds: 1,
    });
    await Promise.all([store.ready(), dispatcher.ready()]);
    const httpServer = http.createServer(handler);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
      await handler.close(1000);
    });
    return { port: (httpServer.address() as AddressInfo).port, handler, store, dispatcher, queueName };
  }

  function recordingWorker(queueName: string, runs: string[]): WebhookWorker {
    const worker = createWorker({
      connection: { host: '127.0.0.1', port: server!.port },
      queueName,
      partitions: 4,
      logger: silent,
      handlers: {
        onChatbot: (event) => {
          runs.push(event.eventId);
        },
      },
    });
    cleanups.push(() => worker.close(2000));
    return worker;
  }

  it('sends one Redis command per event, new or redelivered: BullMQ add script with the claim in it', async () => {
    const { port, queueName } = await receiver();
    const events = Array.from({ length: 40 }, (_, i) => chatbotEvent(`${queueName}-e${i}`));
    // Warm up: the first add loads BullMQ's script (EVAL after EVALSHA's NOSCRIPT).
    expect((await post(agent, port, '/chatbot', chatbotEvent(`${queueName}-warm`))).status).toBe(200);

    const monitor = await admin.monitor();
    const commands: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // Commands a client sent, not those a script ran; not the readiness probes' PINGs.
      if (source !== 'lua' && args[0]?.toLowerCase() !== 'ping') commands.push(args[0]!.toLowerCase());
    });
    const answers: string[] = [];
    for (const event of events) answers.push((await post(agent, port, '/chatbot', event)).body);
    for (const event of events.slice(0, 10)) answers.push((await post(agent, port, '/chatbot', event)).body);
    // MONITOR lines arrive after the replies: wait for all of them.
    await waitFor(async () => commands.length >= 50, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    monitor.disconnect();

    expect(answers.filter((body) => body === '{"received":true}')).toHaveLength(40);
    expect(answers.filter((body) => body === '{"received":true,"duplicate":true}')).toHaveLength(10);
    expect(commands).toEqual(Array.from({ length: 50 }, () => 'evalsha'));
    // One job per accepted event (the warm-up's too), each under a claim jobId of its own (the
    // dispatcher's tag and a counter), not the dedupe key: that is the deduplication id.
    const jobIds = (await admin.keys(`bull:*${queueName}*`))
      .map((key) => key.slice(key.lastIndexOf(':') + 1))
      .filter((id) => /^c[A-Za-z0-9_-]{12}\.[0-9a-z]+$/.test(id));
    expect(new Set(jobIds).size).toBe(41);
    expect(new Set(jobIds.map((id) => id.split('.')[0])).size).toBe(1);
  }, 30_000);

  it('accepts exactly one of many concurrent deliveries of one event and runs it once', async () => {
    const { port, queueName } = await receiver();
    const runs: string[] = [];
    recordingWorker(queueName, runs);
    const event = chatbotEvent(`${queueName}-raced`);
    const answers = await Promise.all(Array.from({ length: 40 }, () => post(agent, port, '/chatbot', event)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 40 }, () => 200));
    expect(answers.filter((answer) => !answer.body.includes('duplicate'))).toHaveLength(1);
    expect(await waitFor(async () => runs.length > 0, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second run would show now
    expect(runs).toEqual([event.eventId]);
  }, 30_000);

  it('answers 503 when Redis stalls past the deadline; the add landing afterwards makes the retry a duplicate, run once', async () => {
    const { port, queueName, handler } = await receiver(1000);
    const runs: string[] = [];
    const event = chatbotEvent(`${queueName}-stalled`);
    server!.pause();
    const first = await post(agent, port, '/chatbot', event);
    server!.resume();
    expect(first.status).toBe(503);
    // The add sent before the stall runs when Redis resumes: the job and its claim land together.
    expect(
      await waitFor(async () => {
        const retry = await post(agent, port, '/chatbot', event);
        return retry.status === 200 && retry.body.includes('duplicate');
      }, 10_000),
    ).toBe(true);
    recordingWorker(queueName, runs);
    expect(await waitFor(async () => runs.length > 0, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(runs).toEqual([event.eventId]);
    const { rejected, duplicates } = handler.stats().chatbot;
    expect({ rejected, duplicates }).toEqual({ rejected: 1, duplicates: 1 });
  }, 30_000);

  it('claims, enqueues and confirms in three steps with any other dispatcher', async () => {
    const store = createRedisDedupeStore({
      connection: { host: '127.0.0.1', port: server!.port },
      logger: silent,
    });
    cleanups.push(() => store.close());
    const runner = createJobRunner({ handlers: {}, logger: silent, stats: createStatsRecorder() });
    expect(store.claimAndEnqueue(createMemoryDispatcher({ runner }), 1000)).toBeUndefined();
  });
});
