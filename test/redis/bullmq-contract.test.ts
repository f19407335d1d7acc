// What the Redis mode relies on in BullMQ, pinned against the installed version: each test fails
// if a BullMQ upgrade changes the behaviour the dispatcher or worker builds on (src/redis). Only
// public API is called; where the library writes beside BullMQ (two fields on a held job's hash,
// see src/redis/queues.ts), the test shows BullMQ keeps and removes them with the job.
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { ACKED_FIELD } from '../../src/redis/queues.js';
import { deleteKeys, describeWithRedis, SHARED_REDIS_PORT, uniqueName, waitFor } from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };

describeRedis(`BullMQ behaviour the Redis mode builds on`, () => {
  const prefix = uniqueName('contract');
  let redis: Redis;
  const queues: Queue[] = [];
  const workers: Worker[] = [];
  const connections: Redis[] = [];
  /** A worker's own connection (BullMQ's blocking fetch needs `maxRetriesPerRequest: null`). */
  const workerConnection = (): Redis => {
    const duplicate = redis.duplicate({ maxRetriesPerRequest: null });
    connections.push(duplicate);
    return duplicate;
  };
  const queueOf = (label: string): Queue => {
    const queue = new Queue(`${label}`, { connection: redis, prefix });
    queues.push(queue);
    return queue;
  };

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await Promise.all(queues.map((queue) => queue.close()));
    await Promise.all(connections.map((connection) => connection.quit()));
    if (redis) {
      await deleteKeys(redis, `${prefix}:*`);
      await redis.quit();
    }
  });

  it('answers an add deduplicated by its deduplication id with the jobId of the job holding it, and adds nothing', async () => {
    const queue = queueOf('dedupe');
    const first = await queue.add(
      't',
      { n: 1 },
      { jobId: 'key.a1', deduplication: { id: 'key', ttl: 60_000 } },
    );
    const second = await queue.add(
      't',
      { n: 2 },
      { jobId: 'key.b1', deduplication: { id: 'key', ttl: 60_000 } },
    );
    expect([first.id, second.id]).toEqual(['key.a1', 'key.a1']);
    expect(await queue.getJobCountByTypes('waiting')).toBe(1);
    expect(await queue.getJob('key.b1')).toBeUndefined();
    expect(await queue.getDeduplicationJobId('key')).toBe('key.a1');
  });

  it('keeps a deduplication id with a ttl after its job completed and was removed by age, until the ttl ends', async () => {
    const queue = queueOf('outlive');
    const options = { removeOnComplete: { age: 1 } };
    await queue.add('t', {}, { ...options, jobId: 'old.a1', deduplication: { id: 'old', ttl: 60_000 } });
    const ran: string[] = [];
    workers.push(
      new Worker(
        queue.name,
        async (job: Job) => {
          ran.push(job.id ?? '');
        },
        { connection: workerConnection(), prefix },
      ),
    );
    expect(await waitFor(async () => ran.includes('old.a1'), 10_000)).toBe(true);
    // Removal by age happens when a later job completes, once the first is older than the age.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await queue.add('t', {}, { ...options, jobId: 'later.a1' });
    expect(await waitFor(async () => (await queue.getJob('old.a1')) === undefined, 10_000)).toBe(true);

    const again = await queue.add(
      't',
      {},
      { ...options, jobId: 'old.b1', deduplication: { id: 'old', ttl: 60_000 } },
    );
    expect(again.id).toBe('old.a1');
    expect(ran).toEqual(['old.a1', 'later.a1']);
  }, 20_000);

  it('promotes a delayed job to the end of the wait list, rejects promoting one that is not delayed, and keeps opts.delay and timestamp', async () => {
    const queue = queueOf('held');
    const held = await queue.add('t', {}, { jobId: 'h1', delay: 60_000 });
    await queue.add('t', {}, { jobId: 'w1' });
    expect(await held.getState()).toBe('delayed');
    await held.promote();
    // In the order they will run: the promoted job behind the one added while it was held.
    expect((await queue.getWaiting()).map((job) => job.id)).toEqual(['w1', 'h1']);
    await expect(held.promote()).rejects.toThrow();
    const stored = await queue.getJob('h1');
    expect(stored?.opts.delay).toBe(60_000);
    expect(stored?.timestamp).toBe(held.timestamp);
  });

  it('keeps a field written beside its own on a job hash through promote and processing, and removes it with the job', async () => {
    const queue = queueOf('fields');
    const held = await queue.add('t', {}, { jobId: 'f1', delay: 60_000, removeOnComplete: true });
    const key = queue.toKey('f1');
    await redis.hset(key, ACKED_FIELD, '1');
    await held.promote();
    const seen: string[] = [];
    workers.push(
      new Worker(
        queue.name,
        async (job: Job) => {
          seen.push(`${job.id}:${await redis.hget(key, ACKED_FIELD)}`);
        },
        { connection: workerConnection(), prefix },
      ),
    );
    expect(await waitFor(async () => seen.length === 1 && (await redis.exists(key)) === 0, 10_000)).toBe(
      true,
    );
    expect(seen).toEqual(['f1:1']);
  });

  it('deletes a deduplication id through its job only while the id still points to that job', async () => {
    const queue = queueOf('forget');
    const first = await queue.add('t', {}, { jobId: 'k.a1', deduplication: { id: 'k', ttl: 60_000 } });
    expect(await first.removeDeduplicationKey()).toBe(true);
    expect(await queue.getDeduplicationJobId('k')).toBeNull();
    const second = await queue.add('t', {}, { jobId: 'k.b1', deduplication: { id: 'k', ttl: 60_000 } });
    expect(second.id).toBe('k.b1');
    expect(await first.removeDeduplicationKey()).toBe(false);
    expect(await queue.getDeduplicationJobId('k')).toBe('k.b1');
  });
});
