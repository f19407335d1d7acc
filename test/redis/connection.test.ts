import { Redis } from 'ioredis';
import { pino } from 'pino';
import {
  createBullMQDispatcher,
  createDeadLetterQueue,
  createRedisDedupeStore,
  createWorker,
  type RedisConnection,
} from '../../src/redis/index.js';
import {
  chatbotEvent,
  freePort,
  pingRedis,
  quitQuietly,
  startRedisServer,
  uniqueName,
  waitFor,
  type RedisServerProcess,
} from './helpers.js';
import { describeWithRedisServer } from './servers.js';

const silent = pino({ level: 'silent' });
const js = <T>(value: unknown): T => value as T;

/** Each factory built with only a `connection` (and what it needs besides). */
const FACTORIES: readonly [string, (connection: RedisConnection) => unknown][] = [
  ['createRedisDedupeStore', (connection) => createRedisDedupeStore({ connection })],
  ['createBullMQDispatcher', (connection) => createBullMQDispatcher({ connection })],
  ['createWorker', (connection) => createWorker({ connection, handlers: {}, autorun: false })],
  ['createDeadLetterQueue', (connection) => createDeadLetterQueue({ connection })],
];

class FakeClient {
  readonly host = '10.0.0.1';
}

describe('connection: anything but options, a URL, cluster nodes or an ioredis client is refused at construction', () => {
  const REFUSED: readonly [string, unknown, RegExp][] = [
    [
      'a number',
      6379,
      /^connection: expected ioredis options, a redis:\/\/ URL, cluster nodes \(\{ nodes: \[\.\.\.\] \}\) or an ioredis Redis or Cluster instance; got a number$/,
    ],
    ['an array of nodes', [{ host: '127.0.0.1', port: 7000 }], /got an array$/],
    ['null', null, /got null$/],
    ['a Map', new Map([['host', '10.0.0.1']]), /got an instance of Map$/],
    ['an instance of another class', new FakeClient(), /got an instance of FakeClient$/],
    [
      'a plain object with client methods (another library, a wrapper)',
      { duplicate: () => undefined, sendCommand: () => undefined, isOpen: true },
      /got an object with duplicate, sendCommand methods that is not an ioredis client$/,
    ],
    [
      'host:port without a scheme',
      'localhost:6379',
      /^connection: expected a redis:\/\/ or rediss:\/\/ URL, got "localhost:6379"$/,
    ],
    [
      'an http URL, password hidden',
      'http://user:secret@10.0.0.1:6379',
      /got "http:\/\/user:\*\*\*@10\.0\.0\.1:6379\/"$/,
    ],
    ['a word', 'redis', /got a string that is not a URL$/],
    [
      'no cluster nodes',
      { nodes: [] },
      /^connection\.nodes: expected a non-empty array of cluster nodes, got an array$/,
    ],
    [
      'cluster nodes beside host',
      { nodes: [{ port: 7000 }], host: '10.0.0.1' },
      /got `host` beside `nodes`$/,
    ],
    ['a host that is not a string', { host: 6379 }, /^connection\.host: expected a string, got a number$/],
  ];
  for (const [factory, build] of FACTORIES) {
    it.each(REFUSED)(`${factory} refuses %s`, (_, connection, message) => {
      expect(() => build(js<RedisConnection>(connection))).toThrow(TypeError);
      expect(() => build(js<RedisConnection>(connection))).toThrow(message);
    });
  }

  it('refuses ioredis keyPrefix where BullMQ runs, in options or on a given client, naming `prefix` instead', () => {
    const client = new Redis({ lazyConnect: true, keyPrefix: 'app:' });
    try {
      for (const connection of [
        { lazyConnect: true, keyPrefix: 'app:' },
        client,
        { nodes: [{ port: 7000 }], keyPrefix: 'app:' },
      ]) {
        expect(() => createBullMQDispatcher({ connection })).toThrow(
          /keyPrefix is not supported by BullMQ; use the `prefix` option/,
        );
        expect(() => createWorker({ connection, handlers: {}, autorun: false })).toThrow(
          /use the `prefix` option/,
        );
        expect(() => createDeadLetterQueue({ connection })).toThrow(/use the `prefix` option/);
      }
    } finally {
      client.disconnect();
    }
  });

  it('refuses hashTags: false on a cluster, and braces in a hash-tagged queueName', () => {
    const cluster = { nodes: [{ host: '127.0.0.1', port: 7000 }], lazyConnect: true };
    expect(() => createBullMQDispatcher({ connection: cluster, hashTags: false })).toThrow(
      /^hashTags: a Redis Cluster needs them/,
    );
    expect(() => createWorker({ connection: cluster, handlers: {}, hashTags: false })).toThrow(
      /^hashTags: a Redis Cluster needs them/,
    );
    expect(() => createDeadLetterQueue({ connection: cluster, queueName: 'a{b}' })).toThrow(
      /^queueName: expected no '\{' or '\}' with hash tags, got "a\{b\}"$/,
    );
  });

  it.each([
    [{ replicas: 0 }, /^waitForReplicas\.replicas: expected an integer >= 1, got 0$/],
    [{ replicas: 1.5 }, /^waitForReplicas\.replicas: expected an integer >= 1, got 1\.5$/],
    [
      { replicas: 1, timeoutMs: 1000 },
      /^waitForReplicas\.timeoutMs: expected a whole number of ms from 1 to below the command timeout \(1000\), got 1000$/,
    ],
    [
      { replicas: 1, timeout: 100 },
      /unknown option waitForReplicas\.timeout: did you mean waitForReplicas\.timeoutMs\?/,
    ],
  ])('createBullMQDispatcher refuses waitForReplicas %j', (waitForReplicas, message) => {
    expect(() =>
      createBullMQDispatcher({ connection: { lazyConnect: true }, waitForReplicas: js(waitForReplicas) }),
    ).toThrow(message);
  });

  it('createRedisDedupeStore refuses a `client` that is not an ioredis client', () => {
    expect(() => createRedisDedupeStore({ client: js({ get: () => undefined }) })).toThrow(
      /^client: expected an ioredis Redis or Cluster instance \(or give `connection`\), got object$/,
    );
  });
});

const { describe: describeServer, missing } = describeWithRedisServer(
  'the connection tests on a private Redis',
);

describeServer(
  'connection: each accepted form reaches the Redis it names (a private redis-server, not 6379)',
  () => {
    let server: RedisServerProcess;
    let redis: Redis;

    beforeAll(async () => {
      if (missing !== undefined) throw new Error(missing);
      server = await startRedisServer(await freePort());
      redis = new Redis({ port: server.port });
    }, 30_000);

    afterAll(async () => {
      if (redis !== undefined) await quitQuietly(redis);
      await server?.stop();
    });

    /** Enqueues one event through a dispatcher on `dispatcherConnection`; resolves once a worker on `workerConnection` ran it. */
    async function roundTrip(
      dispatcherConnection: RedisConnection,
      workerConnection: RedisConnection,
      options: { hashTags?: boolean } = {},
    ): Promise<{ queueName: string; ran: string[] }> {
      const queueName = uniqueName('conn');
      const topology = { queueName, partitions: 2, logger: silent, ...options };
      const ran: string[] = [];
      const dispatcher = createBullMQDispatcher({ connection: dispatcherConnection, ...topology });
      const worker = createWorker({
        connection: workerConnection,
        ...topology,
        handlers: { onChatbot: (event) => void ran.push(event.eventId) },
      });
      try {
        await Promise.all([dispatcher.ready(), worker.ready()]);
        const outcome = await dispatcher.enqueue({
          type: 'chatbot',
          payload: chatbotEvent(`${queueName}-e1`, 'conversation'),
          requestId: 'req-1',
          receivedAt: Date.now(),
          orderingKey: 'chatbot:conversation',
          dedupeKey: `chatbot:${queueName}-e1`,
          payloadVersion: 'v1',
        });
        expect(outcome).toBe('accepted');
        expect(await waitFor(async () => ran.length === 1, 10_000)).toBe(true);
      } finally {
        await Promise.all([dispatcher.close(), worker.close(2000)]);
      }
      return { queueName, ran };
    }

    it('a redis:// URL and ioredis options', async () => {
      const { queueName } = await roundTrip(`redis://127.0.0.1:${server.port}`, {
        host: '127.0.0.1',
        port: server.port,
      });
      expect((await redis.keys(`bull:${queueName}-*`)).length).toBeGreaterThan(0);
    });

    it('an ioredis Redis instance: used as given by the dispatcher, the store and the dead-letter queue, duplicated by the worker, never closed', async () => {
      // Defaults (maxRetriesPerRequest 20), as an app makes its client: BullMQ refuses that for a
      // worker's blocking connection, so the worker must duplicate it with null.
      const client = new Redis({ port: server.port });
      const store = createRedisDedupeStore({ connection: client, prefix: `${uniqueName('conn')}:` });
      const dlq = createDeadLetterQueue({ connection: client, logger: silent });
      try {
        const { queueName, ran } = await roundTrip(client, client);
        expect(ran).toEqual([`${queueName}-e1`]);
        // On the Redis the client names, not on the default 127.0.0.1:6379.
        expect((await redis.keys(`bull:${queueName}-*`)).length).toBeGreaterThan(0);
        const shared = await pingRedis();
        if (shared.ok) {
          const onShared = new Redis({ lazyConnect: true });
          try {
            await onShared.connect();
            expect(await onShared.keys(`bull:${queueName}-*`)).toEqual([]);
          } finally {
            await quitQuietly(onShared);
          }
        }
        expect(await store.claim('k1')).toBe(true);
        expect(await dlq.count()).toBe(0);
        await Promise.all([store.close(), dlq.close()]);
        // The caller's client outlives every part built on it.
        expect(client.status).toBe('ready');
        expect(await client.ping()).toBe('PONG');
      } finally {
        await Promise.all([store.close(), dlq.close()]);
        await quitQuietly(client);
      }
    }, 30_000);

    it('hashTags: true on a single Redis (a proxy that enforces cluster slot rules) names the queues {<name>-<n>}', async () => {
      const { queueName } = await roundTrip({ port: server.port }, { port: server.port }, { hashTags: true });
      expect((await redis.keys(`bull:{${queueName}-*`)).length).toBeGreaterThan(0);
      expect(await redis.keys(`bull:${queueName}-*`)).toEqual([]);
    });
  },
);
