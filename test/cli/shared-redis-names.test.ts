import { Redis } from 'ioredis';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveDlqOptions } from '../../src/cli/dlq.js';
import {
  createBullMQDispatcher,
  createDeadLetterQueue,
  createWorker,
  REDIS_NAME_ENV,
  sharedRedisNames,
} from '../../src/redis/index.js';
import { resolveTopology } from '../../src/redis/queues.js';
import {
  chatbotEvent,
  deleteKeys,
  describeWithRedis,
  SHARED_REDIS_PORT,
  uniqueName,
  waitFor,
} from '../redis/helpers.js';
import { assertBuilt, runCli } from './run-cli.js';

// One configuration for the app and the CLI: the Redis names come from MESSAGING_WEBHOOKS_*
// (or the file MESSAGING_WEBHOOKS_CONFIG names) wherever they are not given, in the dispatcher,
// the worker, the dead-letter queue and the dlq commands alike.

const dir = mkdtempSync(join(tmpdir(), 'mw-names-'));
const REDIS_URL = `redis://127.0.0.1:${SHARED_REDIS_PORT}`;

/** Runs `body` with the environment variables set, then puts the environment back. */
async function withEnv<T>(values: Record<string, string>, body: () => Promise<T> | T): Promise<T> {
  const before = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  try {
    return await body();
  } finally {
    for (const [key, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

describe('the shared Redis names', () => {
  it('come from the environment first, then the configuration file', () => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ redis: { queueName: 'from-file', prefix: 'app', partitions: 4, hashTags: true } }),
    );
    expect(sharedRedisNames({ [REDIS_NAME_ENV.config]: file })).toEqual({
      queueName: 'from-file',
      prefix: 'app',
      partitions: 4,
      hashTags: true,
    });
    expect(
      sharedRedisNames({
        [REDIS_NAME_ENV.config]: file,
        [REDIS_NAME_ENV.queueName]: 'from-env',
        [REDIS_NAME_ENV.partitions]: '8',
        [REDIS_NAME_ENV.url]: REDIS_URL,
      }),
    ).toEqual({ url: REDIS_URL, queueName: 'from-env', prefix: 'app', partitions: 8, hashTags: true });
    expect(sharedRedisNames({})).toEqual({});
  });

  it.each([
    [
      { [REDIS_NAME_ENV.partitions]: 'many' },
      /^MESSAGING_WEBHOOKS_PARTITIONS: expected a whole number from 1 to 1024, got "many"$/,
    ],
    [{ [REDIS_NAME_ENV.hashTags]: 'yes' }, /^MESSAGING_WEBHOOKS_HASH_TAGS: expected true or false/],
    [
      { [REDIS_NAME_ENV.config]: '/nonexistent/mw.json' },
      /^MESSAGING_WEBHOOKS_CONFIG: cannot read \/nonexistent\/mw\.json/,
    ],
  ])('refuses a malformed value, naming where it came from: %j', (env, message) => {
    expect(() => sharedRedisNames(env)).toThrow(message);
  });

  it('refuses an unknown setting in the file (a misspelling would silently read other queues)', () => {
    const file = join(dir, 'typo.json');
    writeFileSync(file, JSON.stringify({ redis: { queuename: 'x' } }));
    expect(() => sharedRedisNames({ [REDIS_NAME_ENV.config]: file })).toThrow(
      /redis\.queuename is not a setting/,
    );
  });

  it("fill what the app's options leave unset, and never override what they set", async () => {
    await withEnv(
      {
        [REDIS_NAME_ENV.queueName]: 'orders',
        [REDIS_NAME_ENV.prefix]: 'shop',
        [REDIS_NAME_ENV.partitions]: '2',
      },
      () => {
        expect(resolveTopology({})).toMatchObject({
          queueName: 'orders',
          prefix: 'shop',
          partitionNames: ['orders-0', 'orders-1'],
          deadLetterName: 'orders-dead',
        });
        expect(resolveTopology({ queueName: 'given', partitions: 1 })).toMatchObject({
          queueName: 'given',
          prefix: 'shop',
          partitions: 1,
        });
        expect(resolveDlqOptions({ redis: REDIS_URL, format: 'table' }, process.env)).toMatchObject({
          queueName: 'orders',
          prefix: 'shop',
          partitions: 2,
        });
      },
    );
  });
});

const { describe: describeRedis, unreachable } = await describeWithRedis();

describeRedis('dlq commands and an app sharing the names through the environment', () => {
  const queueName = uniqueName('names');
  const prefix = uniqueName('prefix');
  const env = {
    [REDIS_NAME_ENV.url]: REDIS_URL,
    [REDIS_NAME_ENV.queueName]: queueName,
    [REDIS_NAME_ENV.prefix]: prefix,
    [REDIS_NAME_ENV.partitions]: '2',
  };
  const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
  let redis: Redis;

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    assertBuilt();
    redis = new Redis(connection);
    // the app: no queue names in its code, only the environment
    await withEnv(env, async () => {
      const dispatcher = createBullMQDispatcher({ connection });
      const worker = createWorker({
        connection,
        retry: { attempts: 1 },
        handlers: {
          onChatbot: () => {
            throw new Error('handler broken');
          },
        },
      });
      const dlq = createDeadLetterQueue({ connection });
      await Promise.all([dispatcher.ready(), worker.ready()]);
      for (const eventId of ['n1', 'n2']) {
        await dispatcher.enqueue({
          type: 'chatbot',
          payload: chatbotEvent(eventId),
          requestId: `req-${eventId}`,
          receivedAt: Date.now(),
          orderingKey: `chatbot:${eventId}`,
          dedupeKey: `chatbot:${eventId}`,
          payloadVersion: 'v1',
        });
      }
      const dead = await waitFor(async () => (await dlq.count()) === 2, 15_000);
      await worker.close(2000);
      await dispatcher.close();
      await dlq.close();
      if (!dead) throw new Error('no dead letters');
    });
  });
  afterAll(async () => {
    if (redis !== undefined) {
      await deleteKeys(redis, `${prefix}:*`);
      await redis.quit();
    }
  });

  it('dlq list in the same environment finds the dead letters without a flag', async () => {
    const run = await withEnv(env, () => runCli(['dlq', 'list']));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^2 of 2 dead letters in ${queueName}-dead\\.$`, 'm'));
  });

  it('dlq list looking elsewhere names the dead-letter queues it found, and the flags that select them', async () => {
    const run = await runCli(['dlq', 'list', '--redis', REDIS_URL, '--queue-name', uniqueName('empty')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^No dead letters in mwtest-empty-[0-9a-f]{8}-dead\.$/m);
    expect(run.stdout).toMatch(/^Dead-letter queues found in this Redis:$/m);
    expect(run.stdout).toContain(
      `  ${queueName}-dead (prefix ${prefix}): 2 dead letters; select it with --queue-name ${queueName} --prefix ${prefix}`,
    );
  });
});
