import { Redis } from 'ioredis';
import { createBot, SessionConflictError } from '../../src/index.js';
import { createRedisSessionStore, type RedisSessionStore } from '../../src/redis/index.js';
import { buildChatbotEvent } from '../../src/testing/index.js';
import { sha256Base64url } from '../../src/util/sha256.js';
import { deleteKeys, describeWithRedis, SHARED_REDIS_PORT, uniqueName } from '../redis/helpers.js';
import { createReceiver, quickRetry } from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };

describeRedis('Redis session store', () => {
  const prefix = `${uniqueName('session')}:`;
  let redis: Redis;
  const stores: RedisSessionStore[] = [];
  const storeOf = (options: { ttlMs?: number } = {}): RedisSessionStore => {
    const store = createRedisSessionStore({ connection, prefix, ...options });
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

  it('two instances racing on one conversation lose no update: the second write fails, its job is retried on the first one’s state', async () => {
    // Two receivers (two instances, each with its own Redis client) get one event each of the same
    // conversation at the same moment: both read count 0 before either writes. Without the
    // compare-and-set both would write 1; with it one write fails and its retry writes 2.
    let release!: () => void;
    const bothRead = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstReads = 0;
    const failures: unknown[] = [];
    const instance = () => {
      const bot = createBot({
        session: { store: storeOf(), initial: () => ({ count: 0, by: [] as number[] }) },
      });
      bot.on('chatbot:INCOMING:TEXT', async (ctx) => {
        const { count } = ctx.session;
        if (ctx.attempt === 1) {
          if (++firstReads === 2) release();
          await bothRead;
        }
        ctx.session.count = count + 1;
        ctx.session.by.push(Number(ctx.payload.messageText));
      });
      return createReceiver(
        { ...bot.handlers(), onError: (error) => void failures.push(error) },
        { retry: quickRetry(3) },
      );
    };
    const [a, b] = [instance(), instance()];
    const conversation = uniqueName('chat');
    const say = (text: string) =>
      buildChatbotEvent({ chatParticipantId: conversation, messageType: 'TEXT', messageText: text });
    expect(await Promise.all([a.send('chatbot', say('1')), b.send('chatbot', say('2'))])).toEqual([200, 200]);
    await Promise.all([a.idle(), b.idle()]);

    const stored = await storeOf().read(`chatbot:${conversation}`);
    const session = JSON.parse(stored!.data) as { count: number; by: number[] };
    expect(session.count).toBe(2);
    expect([...session.by].sort()).toEqual([1, 2]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(SessionConflictError);
    expect(a.stats().chatbot.succeeded + b.stats().chatbot.succeeded).toBe(2);
  });

  it('keeps a session across a restart: a new store (a new process) reads what the old one wrote', async () => {
    const conversation = uniqueName('chat');
    const say = (text: string) =>
      buildChatbotEvent({ chatParticipantId: conversation, messageType: 'TEXT', messageText: text });
    const run = async (text: string): Promise<string | undefined> => {
      const store = createRedisSessionStore({ connection, prefix });
      let seen: string | undefined;
      const bot = createBot({
        session: { store, initial: () => ({ name: undefined as string | undefined }) },
      });
      bot.command('name', (ctx) => {
        ctx.session.name = ctx.match;
      });
      bot.command('who', (ctx) => {
        seen = ctx.session.name;
      });
      const receiver = createReceiver(bot.handlers());
      await receiver.send('chatbot', say(text));
      await receiver.idle();
      await receiver.close();
      await store.close();
      return seen;
    };
    await run('/name Ada');
    expect(await run('/who')).toBe('Ada');
  });

  it('stores a session under the digest of its key, with the TTL, and deletes it on null', async () => {
    const store = storeOf({ ttlMs: 60_000 });
    const key = `incoming:+27831234567:${uniqueName('number')}`;
    expect(await store.write(key, '{"a":1}', undefined)).toBe(true);
    const redisKey = prefix + sha256Base64url(key);
    expect(await redis.hget(redisKey, 'd')).toBe('{"a":1}');
    const ttl = await redis.pttl(redisKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.keys(`${prefix}*+27831234567*`)).toEqual([]);
    const record = await store.read(key);
    expect(await store.write(key, '{"a":2}', 'not-the-version')).toBe(false);
    expect(await store.write(key, undefined, record!.version)).toBe(true);
    expect(await redis.exists(redisKey)).toBe(0);
    expect(await store.read(key)).toBeUndefined();
  });

  it('never takes a version read before a delete for the record written after it', async () => {
    const store = storeOf();
    const key = uniqueName('aba');
    await store.write(key, '"first"', undefined);
    const stale = await store.read(key);
    await store.write(key, undefined, stale!.version);
    await store.write(key, '"second"', undefined);
    expect(await store.write(key, '"lost"', stale!.version)).toBe(false);
    expect((await store.read(key))?.data).toBe('"second"');
  });

  it('uses a given client as given and leaves it open', async () => {
    const client = new Redis(connection);
    const store = createRedisSessionStore({ client, prefix });
    expect(await store.write('given', '1', undefined)).toBe(true);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });

  it('checks its options', () => {
    expect(() => createRedisSessionStore({})).toThrow(/exactly one of `connection` or `client`/);
    expect(() => createRedisSessionStore({ connection, ttlMs: 0 })).toThrow(
      /ttlMs: expected a positive number/,
    );
    expect(() => createRedisSessionStore({ connection, prefx: 'x' } as never)).toThrow(/did you mean prefix/);
  });
});
