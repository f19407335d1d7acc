import { Redis } from 'ioredis';
import {
  createBullMQDispatcher,
  createDeadLetterQueue,
  createWorker,
  type BullMQDispatcher,
  type DeadLetterQueue,
  type WebhookWorker,
} from '../../src/redis/index.js';
import {
  chatbotEvent,
  cleanUp,
  describeWithRedis,
  SHARED_REDIS_PORT,
  uniqueName,
  waitFor,
} from '../redis/helpers.js';
import { assertBuilt, runCli, STACK_LINE } from './run-cli.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
const REDIS_URL = `redis://127.0.0.1:${SHARED_REDIS_PORT}`;

describeRedis('messaging-webhooks dlq (child process)', () => {
  const queueName = uniqueName('dlqcli');
  const topology = ['--redis', REDIS_URL, '--queue-name', queueName, '--partitions', '2'];
  let redis: Redis;
  let dispatcher: BullMQDispatcher;
  let worker: WebhookWorker;
  let dlq: DeadLetterQueue;

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    assertBuilt();
    redis = new Redis(connection);
    dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 2 });
    dlq = createDeadLetterQueue({ connection, queueName, partitions: 2 });
    worker = createWorker({
      connection,
      queueName,
      partitions: 2,
      retry: { attempts: 1 },
      handlers: {
        onChatbot: (event) => {
          throw new Error(`handler broken for ${event.eventId}`);
        },
      },
    });
    await Promise.all([dispatcher.ready(), worker.ready()]);
    for (const eventId of ['e1', 'e2', 'e3']) {
      await dispatcher.enqueue({
        type: 'chatbot',
        payload: chatbotEvent(eventId, 'conversation'),
        requestId: `req-${eventId}`,
        receivedAt: Date.now(),
        orderingKey: 'chatbot:conversation',
        dedupeKey: `chatbot:${eventId}`,
        payloadVersion: 'v1',
      });
    }
    if (!(await waitFor(async () => (await dlq.count()) === 3, 10_000))) throw new Error('no dead letters');
    await worker.close(2000);
  });

  afterAll(async () => {
    await worker?.close(2000);
    await dispatcher?.close();
    await dlq?.close();
    if (redis) {
      await cleanUp(redis, queueName, 'none');
      await redis.quit();
    }
  });

  it('lists the dead letters with type, attempts, failures and error', async () => {
    const run = await runCli(['dlq', 'list', ...topology]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+ATTEMPTS\s+FIRST FAILURE\s+LAST FAILURE\s+ERROR$/);
    for (const eventId of ['e1', 'e2', 'e3']) {
      expect(run.stdout).toMatch(
        new RegExp(`chatbot\\s+1\\s+\\S+Z\\s+\\S+Z\\s+Error: handler broken for ${eventId}`),
      );
    }
    expect(lines.at(-1)).toBe(`3 of 3 dead letters in ${queueName}-dead.`);

    const json = await runCli(['dlq', 'list', ...topology, '--format', 'json']);
    const entries = JSON.parse(json.stdout) as { id: string; attempts: number }[];
    expect(entries.map((entry) => entry.attempts)).toEqual([1, 1, 1]);

    const show = await runCli(['dlq', 'show', entries[0]!.id, ...topology]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`id: ${entries[0]!.id}`);
    expect(show.stdout).toContain('"eventId": "e1"');
  });

  it('redrives in a dry run without changing anything, and purges only with --yes', async () => {
    const dry = await runCli(['dlq', 'redrive', '--all', '--dry-run', ...topology]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('3 dead letters would redrive (dry run: nothing changed).');
    expect(await dlq.count()).toBe(3);

    const unconfirmed = await runCli(['dlq', 'purge', '--all', ...topology]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr.trim()).toBe(
      'error: purge deletes 3 dead letters for good; add --yes to confirm',
    );
    expect(await dlq.count()).toBe(3);

    const purged = await runCli(['dlq', 'purge', '--all', '--yes', ...topology]);
    expect(purged.code).toBe(0);
    expect(purged.stdout.trim()).toBe('3 dead letters purged.');
    expect(await dlq.count()).toBe(0);
  });

  it.each([
    [
      ['dlq', 'list'],
      /^error: give --redis <url> \(or set MESSAGING_WEBHOOKS_REDIS_URL, or redis.url in the --config file\)$/m,
    ],
    [
      ['dlq', 'list', '--redis', 'http://127.0.0.1:6379'],
      /'--redis <url>' argument .* expected a redis:\/\/ or rediss:\/\/ URL/,
    ],
    [
      ['dlq', 'list', '--redis', REDIS_URL, '--partitions', 'many'],
      /'--partitions <n>' argument 'many' is invalid/,
    ],
    [
      ['dlq', 'list', '--redis', REDIS_URL, '--format', 'xml'],
      /'--format <format>' argument 'xml' is invalid. Allowed choices are table, json/,
    ],
    [
      ['dlq', 'list', '--redis', REDIS_URL, '--queue-name', 'a:b'],
      /'--queue-name <name>' argument 'a:b' is invalid/,
    ],
    [['dlq', 'show', 'no-such-id', ...topology], /^error: no dead letter "no-such-id" in /],
    [['dlq', 'redrive', ...topology], /^error: redrive: give the ids to redrive \(see dlq list\) or --all/],
    [['dlq', 'redrive', 'x', '--all', ...topology], /^error: redrive: give ids or --all, not both/],
    [['dlq', 'redrive', 'no-such-id', ...topology], /not found: no-such-id/],
  ])('refuses %j with a clear error, exit 1 and no stack trace', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(STACK_LINE);
  });
});

describeRedis('messaging-webhooks dlq prints sender text without control characters', () => {
  const queueName = uniqueName('dlqesc');
  const topology = ['--redis', REDIS_URL, '--queue-name', queueName, '--partitions', '1'];
  // A customer's text quoted by a handler's error: a title change (OSC), a screen clear (CSI),
  // an 8-bit CSI (C1) and a carriage return that would overwrite the line.
  const HOSTILE = 'hi\u001b]0;pwned\u0007\u001b[2J\u009b31m\rX';
  let redis: Redis;
  let dispatcher: BullMQDispatcher;
  let worker: WebhookWorker;
  let dlq: DeadLetterQueue;

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    assertBuilt();
    redis = new Redis(connection);
    dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 1 });
    dlq = createDeadLetterQueue({ connection, queueName, partitions: 1 });
    worker = createWorker({
      connection,
      queueName,
      partitions: 1,
      retry: { attempts: 1 },
      handlers: {
        onChatbot: () => {
          throw new Error(`cannot answer ${HOSTILE}`);
        },
      },
    });
    await Promise.all([dispatcher.ready(), worker.ready()]);
    await dispatcher.enqueue({
      type: 'chatbot',
      payload: { ...chatbotEvent('esc'), messageText: HOSTILE },
      requestId: 'req-esc',
      receivedAt: Date.now(),
      orderingKey: 'chatbot:esc',
      dedupeKey: 'chatbot:esc',
      payloadVersion: 'v1',
    });
    if (!(await waitFor(async () => (await dlq.count()) === 1, 10_000))) throw new Error('no dead letter');
    await worker.close(2000);
  });

  afterAll(async () => {
    await worker?.close(2000);
    await dispatcher?.close();
    await dlq?.close();
    if (redis) {
      await cleanUp(redis, queueName, 'none');
      await redis.quit();
    }
  });

  // eslint-disable-next-line no-control-regex -- what must not reach the terminal
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it.each([['table'], ['json']])('dlq list and dlq show (%s) escape them', async (format) => {
    const list = await runCli(['dlq', 'list', ...topology, '--format', format]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(CONTROL);
    expect(list.stdout).toContain('cannot answer hi\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m');
    const id = (await dlq.list())[0]!.id;
    const show = await runCli(['dlq', 'show', id, ...topology, '--format', format]);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(CONTROL);
    expect(show.stdout).toContain('\\u009b31m');
    // JSON stays JSON, and reads back as the original text.
    if (format === 'json') {
      const shown = JSON.parse(show.stdout) as { job: { payload: { messageText: string } } };
      expect(shown.job.payload.messageText).toBe(HOSTILE);
    }
  });
});
