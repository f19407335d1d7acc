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

const INSTANCES = 4;
const DELIVERIES = 1000;
const PARTITIONS = 2;

describeRedis('multi-instance: four receiver processes share one Redis', () => {
  const queueName = uniqueName('multi');
  const dedupePrefix = `${queueName}:dedupe:`;
  const runsKey = `${queueName}:runs`;
  const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
  let redis: Redis;
  let receivers: ReceiverProcess[] = [];
  let worker: WebhookWorker | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
    receivers = await Promise.all(
      Array.from({ length: INSTANCES }, () =>
        startReceiver({ redisPort: SHARED_REDIS_PORT, queueName, partitions: PARTITIONS, dedupePrefix }),
      ),
    );
  }, 30_000);

  afterAll(async () => {
    agent.destroy();
    await Promise.all(receivers.map((receiver) => receiver.stop('SIGKILL')));
    await worker?.close(2000);
    if (redis) {
      await cleanUp(redis, queueName, dedupePrefix);
      await redis.del(runsKey);
      await redis.quit();
    }
  });

  it('runs one chatbot eventId delivered 1,000 times across the instances exactly once', async () => {
    worker = createWorker({
      connection,
      queueName,
      partitions: PARTITIONS,
      handlers: {
        onChatbot: async (event) => {
          await redis.hincrby(runsKey, event.eventId, 1);
        },
      },
    });
    const event = chatbotEvent(`${queueName}-the-one`);
    const answers = new Map<number | 'error', number>();
    let firstAcceptances = 0;
    const deliveries = Array.from({ length: DELIVERIES }, (_, i) => receivers[i % INSTANCES]!);
    await pool(deliveries, 48, async (receiver) => {
      const { status, body } = await post(agent, receiver.port, '/chatbot', event);
      if (status === 200 && !body.includes('duplicate')) firstAcceptances += 1;
      answers.set(status, (answers.get(status) ?? 0) + 1);
    });

    // Every delivery was answered: 200 (the first, then duplicates) or 503 while the first
    // claim was still being enqueued (the sender retries those).
    expect([...answers.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    // The shared dedupe store let exactly one delivery through; BullMQ's jobId would have
    // caught a second add, but the store must not rely on it.
    expect(firstAcceptances).toBe(1);

    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: PARTITIONS });
    try {
      expect(await waitFor(async () => (await redis.hlen(runsKey)) === 1, 15_000)).toBe(true);
      await dispatcher.idle();
    } finally {
      await dispatcher.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second run would show now
    expect(await redis.hgetall(runsKey)).toEqual({ [event.eventId]: '1' });
    process.stdout.write(
      `multi-instance test: ${DELIVERIES} deliveries of one eventId over ${INSTANCES} processes: ` +
        `${answers.get(200) ?? 0} × 200, ${answers.get(503) ?? 0} × 503; 1 callback run\n`,
    );
  }, 45_000);
});
