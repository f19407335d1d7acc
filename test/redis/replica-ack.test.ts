// `waitForReplicas` against a primary without the replicas it asks for (private redis-servers):
// an event answered 503 must not run (its sender was told it was refused, and retries), the
// receiver must not call itself ready, and once a replica is back the sender's redelivery is
// accepted and the event runs once. A job held past its hold (nobody acknowledged it) is
// discarded by the worker, its claim deleted, unless a receiver acknowledged it meanwhile.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { WebhookJob } from '../../src/dispatch/types.js';
import { createNodeHandler, type NodeWebhookHandler } from '../../src/receiver/index.js';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  createWorker,
  type BullMQDispatcher,
} from '../../src/redis/index.js';
import { ACKED_FIELD } from '../../src/redis/queues.js';
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
import { command } from './servers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();
const silent = pino({ level: 'silent' });

/** A chatbot job as the pipeline builds it. */
function jobOf(eventId: string, conversation: string): WebhookJob<'chatbot'> {
  return {
    type: 'chatbot',
    payload: chatbotEvent(eventId, conversation),
    requestId: `req-${eventId}`,
    receivedAt: Date.now(),
    orderingKey: `chatbot:${conversation}`,
    dedupeKey: `chatbot-${eventId}`,
    payloadVersion: 'v1',
  };
}

describeRedis('waitForReplicas without the replicas (private redis-servers)', () => {
  let primary: RedisServerProcess | undefined;
  let replica: RedisServerProcess | undefined;
  let admin: Redis;
  const agent = new http.Agent({ keepAlive: true });
  const cleanups: (() => Promise<unknown>)[] = [];
  const connection = (): { host: string; port: number } => ({ host: '127.0.0.1', port: primary!.port });

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    primary = await startRedisServer(await freePort());
    admin = new Redis({ ...connection(), maxRetriesPerRequest: 1 });
    admin.on('error', () => undefined);
  }, 15_000);

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    agent.destroy();
    if (admin !== undefined) await quitQuietly(admin);
    await replica?.stop();
    await primary?.stop();
  }, 30_000);

  function recordingWorker(queueName: string, runs: string[]) {
    const worker = createWorker({
      connection: connection(),
      queueName,
      partitions: 1,
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

  it('does not run an event answered 503 for want of replicas, is not ready meanwhile, and runs it once when a redelivery is acknowledged', async () => {
    const queueName = uniqueName('replicas');
    const store = createRedisDedupeStore({
      connection: connection(),
      prefix: `${queueName}:d:`,
      logger: silent,
    });
    const dispatcher: BullMQDispatcher = createBullMQDispatcher({
      connection: connection(),
      queueName,
      partitions: 1,
      waitForReplicas: { replicas: 1, timeoutMs: 100 },
      logger: silent,
    });
    // The same queue without the acknowledgement: a control job added after the refused one.
    const control = createBullMQDispatcher({
      connection: connection(),
      queueName,
      partitions: 1,
      logger: silent,
    });
    const handler: NodeWebhookHandler = createNodeHandler({
      onChatbot: () => undefined,
      dedupe: { store },
      dispatcher,
      retryAfterSeconds: 1,
    });
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close(1000);
      await control.close();
    });
    const port = (server.address() as AddressInfo).port;
    const runs: string[] = [];
    const worker = recordingWorker(queueName, runs);
    await Promise.all([store.ready(), dispatcher.ready(), control.ready(), worker.ready()]);

    // No replica: not ready, before any event and after.
    expect(await waitFor(async () => handler.health().reasons.includes('replicas_missing'), 10_000)).toBe(
      true,
    );
    const event = chatbotEvent(`${queueName}-refused`, 'conversation-1');
    const first = await post(agent, port, '/chatbot', event);
    expect(first.status).toBe(503);
    expect(handler.health()).toMatchObject({ ready: false, reasons: ['replicas_missing'] });
    expect(dispatcher.health()).toEqual({ ready: false, reasons: ['replicas_missing'] });

    // A job added after the refused one, on the same partition, runs: the worker has passed the
    // refused event's place in the queue without running it.
    const later = jobOf(`${queueName}-control`, 'conversation-1');
    expect(await control.enqueue(later)).toBe('accepted');
    expect(await waitFor(async () => runs.includes(later.payload.eventId), 10_000)).toBe(true);
    expect(runs).toEqual([later.payload.eventId]);

    // A replica comes back: ready again, and the sender's retry is accepted and runs once.
    replica = await startRedisServer(await freePort());
    await command(replica.port, 'REPLICAOF', '127.0.0.1', primary!.port);
    expect(
      await waitFor(
        async () =>
          (await command(replica!.port, 'INFO', 'replication')) !== undefined && handler.health().ready,
        15_000,
      ),
    ).toBe(true);
    // the sender retries while the answer is 503: a loaded machine can take longer than the 100 ms
    // WAIT to replicate, which is a 503 like any other
    let retry = await post(agent, port, '/chatbot', event);
    let refusals = 0;
    for (; refusals < 20 && retry.status === 503; refusals += 1) {
      retry = await post(agent, port, '/chatbot', event);
    }
    // the retry that releases the held job is no duplicate; after a refused retry whose release
    // went through, the next one is answered as the duplicate it then is
    expect([retry.status, JSON.parse(retry.body)]).toEqual([
      200,
      refusals === 0 ? { received: true } : expect.objectContaining({ received: true }),
    ]);
    expect(await waitFor(async () => runs.length === 2, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second run would show now
    expect(runs).toEqual([later.payload.eventId, event.eventId]);
    // Accepted now: a further redelivery is the duplicate it is.
    const again = await post(agent, port, '/chatbot', event);
    expect([again.status, JSON.parse(again.body)]).toEqual([200, { received: true, duplicate: true }]);
  }, 60_000);

  it('discards a job held past its hold with nobody acknowledging it, deleting its claim; runs one a receiver acknowledged', async () => {
    const queueName = uniqueName('held');
    const queue = new Queue(`${queueName}-0`, { connection: admin });
    cleanups.push(() => queue.close());
    const runs: string[] = [];
    // Held as the dispatcher holds them (a short hold here): one never acknowledged, one
    // acknowledged by a receiver whose release did not happen (the hold let it out).
    const unacked = jobOf(`${queueName}-unacked`, 'c1');
    const acked = jobOf(`${queueName}-acked`, 'c2');
    for (const job of [unacked, acked]) {
      await queue.add('chatbot', job, {
        jobId: `${job.dedupeKey!}.x1`,
        delay: 300,
        deduplication: { id: job.dedupeKey!, ttl: 60_000 },
      });
    }
    await admin.hset(queue.toKey(`${acked.dedupeKey!}.x1`), ACKED_FIELD, '1');
    recordingWorker(queueName, runs);

    expect(await waitFor(async () => runs.length > 0, 10_000)).toBe(true);
    expect(
      await waitFor(
        async () => (await queue.getJobCountByTypes('delayed', 'waiting', 'active')) === 0,
        10_000,
      ),
    ).toBe(true);
    expect(runs).toEqual([acked.payload.eventId]);
    // The discarded event's claim is gone: a later delivery of it is accepted afresh.
    expect(await queue.getDeduplicationJobId(unacked.dedupeKey!)).toBeNull();
    expect(await queue.getDeduplicationJobId(acked.dedupeKey!)).toBe(`${acked.dedupeKey!}.x1`);
  }, 30_000);
});
