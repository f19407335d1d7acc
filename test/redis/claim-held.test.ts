import request from 'supertest';
import { Redis } from 'ioredis';
import { createNodeHandler } from '../../src/receiver/index.js';
import { createMemoryDispatcher, type Dispatcher } from '../../src/dispatch/index.js';
import { createRedisDedupeStore, type RedisDedupeStore } from '../../src/redis/index.js';
import { captureLogger, deferred } from '../helpers/receiver.js';
import {
  chatbotEvent,
  deleteKeys,
  describeWithRedis,
  SHARED_REDIS_PORT,
  uniqueName,
  waitFor,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };

describeRedis('one event at two instances at once (a claim held by another instance)', () => {
  const prefix = `${uniqueName('claim-held')}:`;
  let redis: Redis;
  const stores: RedisDedupeStore[] = [];
  const storeOf = (): RedisDedupeStore => {
    const store = createRedisDedupeStore({ connection, prefix, leaseMs: 5000 });
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

  it('answers 503 claim_held with Retry-After and logs a warning, not a store failure', async () => {
    const enqueued = deferred();
    // Instance A: its enqueue waits, so its claim of the event is held while B gets the same event.
    const a = createNodeHandler({
      token: false,
      dedupe: { store: storeOf() },
      enqueueTimeoutMs: 10_000,
      dispatcher: (runner) => {
        const inner = createMemoryDispatcher({ runner });
        const slow: Dispatcher = {
          ...inner,
          enqueue: async (job) => {
            await enqueued.promise;
            return inner.enqueue(job);
          },
        };
        return slow;
      },
      onChatbot: () => undefined,
    });
    const logs = captureLogger('debug');
    const b = createNodeHandler({
      token: false,
      logger: logs.logger,
      dedupe: { store: storeOf() },
      onChatbot: () => undefined,
    });
    const event = chatbotEvent(`${prefix}the-one`);

    const first = request(a)
      .post('/chatbot')
      .send(event)
      .then((answer) => answer);
    // A has claimed once its lease key exists.
    expect(await waitFor(async () => (await redis.keys(`${prefix}*`)).length > 0, 5000)).toBe(true);
    const raced = await request(b).post('/chatbot').send(event);
    expect(raced.status).toBe(503);
    expect(raced.body.error.code).toBe('claim_held');
    expect(raced.headers['retry-after']).toBe('5');

    const levels = logs.lines.filter((line) => Number(line.level) >= 40);
    expect(levels.map(({ level, msg }) => [level, msg])).toEqual([[40, expect.stringMatching(/claim_held/)]]);
    // The key is personal data: logged as a reference only.
    expect(logs.text()).not.toContain('the-one');
    expect(b.stats().chatbot).toMatchObject({ received: 1, rejected: 1, acked: 0 });

    enqueued.resolve();
    expect((await first).status).toBe(200);
    // The sender's retry is answered as the duplicate it now is.
    await request(b).post('/chatbot').send(event).expect(200, { received: true, duplicate: true });
    await Promise.all([a.close(1000), b.close(1000)]);
  });
});
