import { pino } from 'pino';
import request from 'supertest';
import { Redis } from 'ioredis';
import { createNodeHandler } from '../../src/receiver/index.js';
import { digestDedupeKey } from '../../src/dedupe/index.js';
import {
  createBullMQDispatcher,
  createRedisDedupeStore,
  DedupeClaimPendingError,
  type RedisDedupeStore,
} from '../../src/redis/index.js';
import {
  chatbotEvent,
  cleanUp,
  deleteKeys,
  describeWithRedis,
  freePort,
  SHARED_REDIS_PORT,
  startRedisServer,
  uniqueName,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };

describeRedis('Redis dedupe store', () => {
  const prefix = `${uniqueName('store')}:`;
  let redis: Redis;
  const stores: RedisDedupeStore[] = [];
  const storeOf = (options: { leaseMs?: number; ttlMs?: number } = {}): RedisDedupeStore => {
    const store = createRedisDedupeStore({ connection, prefix, ...options });
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    if (redis) {
      await deleteKeys(redis, `${prefix}*`);
      await redis.quit();
    }
  });

  it('claims a key once across instances, under the library prefix, with the lease then the TTL', async () => {
    const [a, b] = [storeOf({ leaseMs: 5000, ttlMs: 60_000 }), storeOf({ leaseMs: 5000, ttlMs: 60_000 })];
    const outcomes = await Promise.allSettled([
      a.claim('chatbot:e1'),
      b.claim('chatbot:e1'),
      b.claim('chatbot:e1'),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value)).toHaveLength(1);
    // Until the winner confirms its enqueue, a redelivery is told to come back (503), not acked.
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(2);
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(rejected?.status === 'rejected' && rejected.reason instanceof DedupeClaimPendingError).toBe(true);
    expect(await redis.pttl(`${prefix}chatbot:e1`)).toBeLessThanOrEqual(5000);

    await (outcomes[0]?.status === 'fulfilled' && outcomes[0].value ? a : b).confirm('chatbot:e1');
    expect(await redis.get(`${prefix}chatbot:e1`)).toBe('done');
    expect(await redis.pttl(`${prefix}chatbot:e1`)).toBeGreaterThan(5000);
    expect(await b.claim('chatbot:e1')).toBe(false);
  });

  it('releases only its own lease, so a redelivery is accepted after a failed enqueue', async () => {
    const [a, b] = [storeOf(), storeOf()];
    expect(await a.claim('chatbot:e2')).toBe(true);
    await b.release('chatbot:e2'); // not b's claim: kept
    await expect(b.claim('chatbot:e2')).rejects.toBeInstanceOf(DedupeClaimPendingError);
    await a.release('chatbot:e2');
    expect(await b.claim('chatbot:e2')).toBe(true);
  });

  it('lets a redelivery through once the lease of a claimer that died has run out', async () => {
    const dead = storeOf({ leaseMs: 100 });
    expect(await dead.claim('chatbot:e3')).toBe(true);
    await dead.close(); // stops renewing, as a dead process would
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await storeOf().claim('chatbot:e3')).toBe(true);
  });

  it('renews a live claim past its lease until it is confirmed', async () => {
    const live = storeOf({ leaseMs: 150 });
    expect(await live.claim('chatbot:e4')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await expect(storeOf().claim('chatbot:e4')).rejects.toBeInstanceOf(DedupeClaimPendingError);
    await live.confirm('chatbot:e4');
    expect(await storeOf().claim('chatbot:e4')).toBe(false);
  });

  it('rejects bad options', () => {
    expect(() => createRedisDedupeStore({})).toThrow(TypeError);
    expect(() => createRedisDedupeStore({ connection, ttlMs: 0 })).toThrow(TypeError);
    expect(() => createRedisDedupeStore({ connection, leaseMs: 50 })).toThrow(/leaseMs/);
    expect(() => createRedisDedupeStore({ connection, client: redis })).toThrow(TypeError);
  });
});

describeRedis('receiver with the Redis store and the BullMQ dispatcher (in process)', () => {
  const queueName = uniqueName('seam');
  const prefix = `${queueName}:dedupe:`;
  let redis: Redis;

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });

  afterAll(async () => {
    if (redis) {
      await cleanUp(redis, queueName, prefix);
      await redis.quit();
    }
  });

  it('answers 200 once the job is in Redis, 200 duplicate after, the claim kept ttlMs in the job add', async () => {
    const store = createRedisDedupeStore({ connection, prefix, ttlMs: 60_000 });
    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 2 });
    const handler = createNodeHandler({ onChatbot: () => undefined, dedupe: { store }, dispatcher });
    try {
      const event = chatbotEvent(`${queueName}-a`);
      const first = await request(handler).post('/chatbot').send(event);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ received: true });
      // With the BullMQ dispatcher the claim is BullMQ's deduplication id, set by the add itself:
      // no lease under the store's prefix, one claim in the partition queue, kept ttlMs.
      const digest = digestDedupeKey('chatbot', event.eventId);
      expect(await redis.exists(prefix + digest)).toBe(0);
      const claims = await Promise.all(
        dispatcher.queues().map((queue) => queue.getDeduplicationJobId(digest)),
      );
      const holders = claims.filter((id) => id !== null);
      // held by the job of the add, under the dispatcher's claim jobId; the key is in its data
      expect(holders).toEqual([expect.stringMatching(/^c[A-Za-z0-9_-]{12}\.1$/)]);
      const holding = dispatcher.queues()[claims.findIndex((id) => id !== null)]!;
      expect((await holding.getJob(holders[0]!))?.data).toMatchObject({ dedupeKey: digest });
      const ttls = await Promise.all(
        dispatcher.queues().map((queue) => redis.pttl(queue.toKey(`de:${digest}`))),
      );
      expect(ttls.filter((ttl) => ttl > 0 && ttl <= 60_000)).toHaveLength(1);
      expect((await dispatcher.jobCounts()).waiting).toBe(1);
      const again = await request(handler).post('/chatbot').send(event);
      expect(again.body).toEqual({ received: true, duplicate: true });
      expect((await dispatcher.jobCounts()).waiting).toBe(1);
    } finally {
      await handler.close(1000);
    }
  });

  it('answers 503 and releases the claim when the job cannot be added', async () => {
    const store = createRedisDedupeStore({ connection, prefix });
    const dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 2 });
    await dispatcher.close(); // 'closed' from now on: the add cannot happen
    const handler = createNodeHandler({ onChatbot: () => undefined, dedupe: { store }, dispatcher });
    try {
      const event = chatbotEvent(`${queueName}-b`);
      const answer = await request(handler).post('/chatbot').send(event);
      expect(answer.status).toBe(503);
      expect(await redis.exists(`${prefix}chatbot:${event.eventId}`)).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describeRedis('eviction policy check', () => {
  it('warns loudly when maxmemory-policy is not noeviction', async () => {
    if (unreachable) throw new Error(unreachable);
    const server = await startRedisServer(await freePort());
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const admin = new Redis({ host: '127.0.0.1', port: server.port });
    try {
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const store = createRedisDedupeStore({ connection: { host: '127.0.0.1', port: server.port }, logger });
      await store.ready();
      await store.close();
      expect(lines.join('\n')).toMatch(/maxmemory-policy is \\"allkeys-lru\\"; it must be \\"noeviction\\"/);

      lines.length = 0;
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      const quiet = createRedisDedupeStore({ connection: { host: '127.0.0.1', port: server.port }, logger });
      await quiet.ready();
      await quiet.close();
      expect(lines).toEqual([]);
    } finally {
      await admin.quit();
      await server.stop();
    }
  });
});
