import { Redis } from 'ioredis';
import type { WebhookJob } from '../../src/dispatch/types.js';
import {
  createBullMQDispatcher,
  createDeadLetterQueue,
  createWorker,
  DeadLetterQueueError,
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
  freePort,
  waitFor,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
const CONVERSATIONS = 4;
const PER_CONVERSATION = 5;
const base = Date.parse('2026-01-01T00:00:00Z');

/** Event `e<i>` of conversation `c<c>`, received in that order. */
function jobOf(c: number, i: number, tag = ''): WebhookJob<'chatbot'> {
  const eventId = `${tag}c${c}-e${i}`;
  return {
    type: 'chatbot',
    payload: chatbotEvent(eventId, `${tag}conv-${c}`),
    requestId: `req-${eventId}`,
    receivedAt: base + i * CONVERSATIONS + c,
    orderingKey: `chatbot:${tag}conv-${c}`,
    dedupeKey: `chatbot:${eventId}`,
    payloadVersion: 'v1',
  };
}

describeRedis('dead-letter queue (BullMQ)', () => {
  const queueName = uniqueName('dlq');
  const topology = { queueName, partitions: 3 };
  let redis: Redis;
  let dispatcher: BullMQDispatcher;
  let worker: WebhookWorker;
  let dlq: DeadLetterQueue;
  let broken = true;
  const runs: string[] = [];
  const perConversation = new Map<string, string[]>();

  beforeAll(async () => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
    dispatcher = createBullMQDispatcher({ connection, ...topology });
    dlq = createDeadLetterQueue({ connection: `redis://127.0.0.1:${SHARED_REDIS_PORT}`, ...topology });
    worker = createWorker({
      connection,
      ...topology,
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 5 } },
      handlers: {
        onChatbot: (event) => {
          if (broken) throw new Error(`handler broken for ${event.eventId}`);
          runs.push(event.eventId);
          const conversation = event.chatParticipantId;
          perConversation.set(conversation, [...(perConversation.get(conversation) ?? []), event.eventId]);
        },
      },
    });
    await Promise.all([dispatcher.ready(), worker.ready()]);
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

  it('collects 20 jobs that fail every attempt, lists them, and a dry run changes nothing', async () => {
    for (let i = 0; i < PER_CONVERSATION; i++) {
      for (let c = 0; c < CONVERSATIONS; c++) expect(await dispatcher.enqueue(jobOf(c, i))).toBe('accepted');
    }
    expect(await waitFor(async () => (await dlq.count()) === 20, 20_000)).toBe(true);
    await dispatcher.idle();

    const entries = await dlq.list();
    expect(entries).toHaveLength(20);
    for (const entry of entries) {
      expect(entry.type).toBe('chatbot');
      expect(entry.attempts).toBe(2);
      expect(entry.error).toEqual({
        name: 'Error',
        message: expect.stringMatching(/^handler broken for c\d-e\d$/),
      });
      expect(entry.firstFailedAt.getTime()).toBeLessThanOrEqual(entry.lastFailedAt.getTime());
      expect(entry.redrives).toBe(0);
      expect(entry.partition).toMatch(new RegExp(`^${queueName}-[0-2]$`));
      expect(await dlq.get(entry.id)).toEqual(entry);
    }
    expect(await dlq.list({ offset: 5, limit: 3 })).toEqual(entries.slice(5, 8));
    expect(await dlq.get('no-such-id')).toBeUndefined();

    broken = false;
    const countsBefore = await dispatcher.jobCounts();
    const plan = await dlq.redrive({ dryRun: true });
    expect(plan.dryRun).toBe(true);
    expect(plan.redriven).toHaveLength(20);
    expect(await dlq.count()).toBe(20);
    expect(await dispatcher.jobCounts()).toEqual(countsBefore);
    expect(runs).toEqual([]);
  });

  it('redrives every dead letter after the fix: each runs exactly once, in conversation order', async () => {
    const report = await dlq.redrive();
    expect(report).toMatchObject({ dryRun: false, missing: [], skipped: [] });
    expect(report.redriven).toHaveLength(20);
    expect(await dlq.count()).toBe(0);
    expect(await waitFor(async () => runs.length >= 20, 20_000)).toBe(true);
    await dispatcher.idle();

    expect(new Set(runs).size).toBe(20);
    expect(runs).toHaveLength(20);
    for (let c = 0; c < CONVERSATIONS; c++) {
      expect(perConversation.get(`conv-${c}`)).toEqual(
        Array.from({ length: PER_CONVERSATION }, (_, i) => `c${c}-e${i}`),
      );
    }
    // The redriven job kept its jobId (the dedupe key): a redelivery that slips past the dedupe
    // store is ignored by BullMQ, so the event does not run a second time.
    expect(await dispatcher.enqueue(jobOf(0, 0))).toBe('accepted');
    await dispatcher.idle();
    expect(runs).toHaveLength(20);
  });

  it('dead-letters a redriven job that fails again, keeping its first failure and counting redrives', async () => {
    broken = true;
    await dispatcher.enqueue(jobOf(0, 0, 'again-'));
    expect(await waitFor(async () => (await dlq.count()) === 1, 10_000)).toBe(true);
    const [first] = await dlq.list();
    const report = await dlq.redrive({ ids: [first!.id, 'no-such-id'] });
    expect(report.redriven.map((r) => r.id)).toEqual([first!.id]);
    expect(report.missing).toEqual(['no-such-id']);
    expect(await waitFor(async () => (await dlq.get(first!.id))?.redrives === 1, 10_000)).toBe(true);
    const again = await dlq.get(first!.id);
    expect(again!.firstFailedAt).toEqual(first!.firstFailedAt);
    expect(again!.lastFailedAt.getTime()).toBeGreaterThanOrEqual(first!.lastFailedAt.getTime());
  });

  it('purges selected dead letters, then all of them', async () => {
    await dispatcher.enqueue(jobOf(1, 0, 'purge-'));
    await dispatcher.enqueue(jobOf(2, 0, 'purge-'));
    expect(await waitFor(async () => (await dlq.count()) === 3, 10_000)).toBe(true);
    const [one] = await dlq.list();
    expect(await dlq.purge({ ids: [one!.id] })).toBe(1);
    expect(await dlq.count()).toBe(2);
    expect(await dlq.purge()).toBe(2);
    expect(await dlq.count()).toBe(0);
    expect(await dlq.list()).toEqual([]);
  });

  it('rejects with a DeadLetterQueueError when Redis cannot be reached', async () => {
    const port = await freePort();
    const down = createDeadLetterQueue({ connection: { host: '127.0.0.1', port }, connectTimeoutMs: 300 });
    await expect(down.list()).rejects.toThrow(DeadLetterQueueError);
    await down.close();
  });

  it('names a misspelled option at construction', () => {
    expect(() => createDeadLetterQueue({ connection, queuName: 'x' } as never)).toThrow(TypeError);
    expect(() => createDeadLetterQueue({ connection, queuName: 'x' } as never)).toThrow(/queueName/);
  });
});
