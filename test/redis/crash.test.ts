import http from 'node:http';
import { Redis } from 'ioredis';
import { createBullMQDispatcher, createWorker, type WebhookWorker } from '../../src/redis/index.js';
import {
  chatbotEvent,
  cleanUp,
  describeWithRedis,
  pool,
  post,
  SHARED_REDIS_PORT,
  startReceiver,
  uniqueName,
  waitFor,
  type ReceiverProcess,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const EVENTS = 5000;
const KILL_AFTER = 2000; // answers received before the SIGKILL: well inside the burst
const PARTITIONS = 8;

describeRedis('crash: a receiver killed with SIGKILL in the middle of a burst', () => {
  const queueName = uniqueName('crash');
  const dedupePrefix = `${queueName}:dedupe:`;
  const runsKey = `${queueName}:runs`;
  const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
  let redis: Redis;
  const receivers: ReceiverProcess[] = [];
  const workers: WebhookWorker[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  /** A worker that records each callback run in Redis, so runs are counted across processes. */
  function startRecordingWorker(): WebhookWorker {
    const worker = createWorker({
      connection,
      queueName,
      partitions: PARTITIONS,
      handlers: {
        onChatbot: async (event) => {
          await redis.hincrby(runsKey, event.eventId, 1);
        },
      },
    });
    workers.push(worker);
    return worker;
  }

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });

  afterAll(async () => {
    agent.destroy();
    await Promise.all(receivers.map((receiver) => receiver.stop('SIGKILL')));
    await Promise.all(workers.map((worker) => worker.close(2000)));
    if (redis) {
      await cleanUp(redis, queueName, dedupePrefix);
      await redis.del(runsKey);
      await redis.quit();
    }
  });

  it('runs every event that got a 200 exactly once after a worker restart, and redelivered in-flight events once', async () => {
    const events = Array.from({ length: EVENTS }, (_, i) => chatbotEvent(`${queueName}-evt-${i}`));
    const config = {
      redisPort: SHARED_REDIS_PORT,
      queueName,
      partitions: PARTITIONS,
      dedupePrefix,
      leaseMs: 3000,
    };
    // A second instance stands by, as behind a load balancer, to take the sender's retries.
    const [first, second] = await Promise.all([startReceiver(config), startReceiver(config)]);
    receivers.push(first, second);
    const firstWorker = startRecordingWorker();

    const status = new Map<string, number | 'error'>();
    const inFlightAtKill: typeof events = [];
    let answered = 0;
    let killed: Promise<void> | undefined;
    await pool(events, 64, async (event) => {
      const sentBeforeKill = killed === undefined;
      const result = await post(agent, first.port, '/chatbot', event);
      status.set(event.eventId, result.status);
      if (sentBeforeKill && result.status !== 200) inFlightAtKill.push(event);
      answered += 1;
      if (answered === KILL_AFTER) killed = first.stop('SIGKILL');
    });
    await killed;
    expect(first.child.signalCode).toBe('SIGKILL');
    // The worker goes down too (gracefully) and is restarted below: what it had not run yet,
    // and what the retries add meanwhile, is left for the new one.
    await firstWorker.close(5000);
    const ranBeforeRestart = await redis.hlen(runsKey);

    const acked = events.filter((event) => status.get(event.eventId) === 200).map((event) => event.eventId);
    const unanswered = events.filter((event) => status.get(event.eventId) !== 200);
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER - 64);
    expect(unanswered.length).toBeGreaterThan(0); // the kill really cut the burst
    // Claims the dead instance held without having confirmed an enqueue.
    const claimsLeft =
      inFlightAtKill.length === 0
        ? []
        : await redis.mget(...inFlightAtKill.map((event) => `${dedupePrefix}chatbot:${event.eventId}`));
    const orphanLeases = claimsLeft.filter((value) => value?.startsWith('lease:') === true).length;

    // The sender retries what was in flight when the receiver died, at once, to the other
    // instance: 503 while the dead instance's lease holds, then accepted; an event the dead
    // instance had already queued is not queued twice (jobId).
    let retries = 0;
    await pool(inFlightAtKill, 32, async (event) => {
      for (let attempt = 0; attempt < 50; attempt++) {
        const result = await post(agent, second.port, '/chatbot', event);
        if (result.status === 200) return;
        retries += 1;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`event ${event.eventId} never got a 200`);
    });

    // The worker is restarted and drains the queues.
    startRecordingWorker();
    const expected = [...acked, ...inFlightAtKill.map((event) => event.eventId)];
    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: PARTITIONS });
    try {
      const drained = await waitFor(async () => {
        const runs = await redis.hgetall(runsKey);
        return expected.every((id) => runs[id] !== undefined);
      }, 20_000);
      expect(drained).toBe(true);
      await dispatcher.idle();
    } finally {
      await dispatcher.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // a late duplicate would show now
    const final = await redis.hgetall(runsKey);
    expect(acked.filter((id) => final[id] === undefined)).toEqual([]); // none lost
    expect(Object.entries(final).filter(([, count]) => count !== '1')).toEqual([]); // none twice
    // Only events that reached a receiver can have run.
    const sent = new Set([...acked, ...inFlightAtKill.map((event) => event.eventId)]);
    expect(Object.keys(final).filter((id) => !sent.has(id))).toEqual([]);

    process.stdout.write(
      `crash test: burst of ${EVENTS} distinct events, SIGKILL after ${KILL_AFTER} answers: ` +
        `${acked.length} got 200, ${inFlightAtKill.length} were in flight, ${unanswered.length - inFlightAtKill.length} ` +
        `never reached it; ${orphanLeases} orphan leases; in-flight redelivered at once (${retries} × 503 first); ` +
        `${ranBeforeRestart} ran before the worker stopped, ${Object.keys(final).length - ranBeforeRestart} ` +
        `after its restart, ${Object.keys(final).length} in all: ` +
        `every acked event exactly once, 0 lost, 0 twice\n`,
    );
  }, 60_000);
});
