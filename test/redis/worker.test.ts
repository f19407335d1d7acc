import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { DeadLetter, WebhookJob } from '../../src/dispatch/types.js';
import {
  createBullMQDispatcher,
  createWorker,
  type BullMQDispatcher,
  type DeadLetterRecord,
  type WebhookWorker,
} from '../../src/redis/index.js';
import {
  chatbotEvent,
  cleanUp,
  describeWithRedis,
  SHARED_REDIS_PORT,
  uniqueName,
  waitFor,
} from './helpers.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };

/** A chatbot job as the pipeline would build it. */
function jobOf(eventId: string, conversation: string): WebhookJob<'chatbot'> {
  const payload = chatbotEvent(eventId, conversation);
  return {
    type: 'chatbot',
    payload,
    requestId: `req-${eventId}`,
    receivedAt: Date.now(),
    orderingKey: `chatbot:${conversation}`,
    dedupeKey: `chatbot:${eventId}`,
    payloadVersion: 'v1',
  };
}

describeRedis('BullMQ worker', () => {
  const queueName = uniqueName('worker');
  let redis: Redis;
  let dispatcher: BullMQDispatcher;
  const workers: WebhookWorker[] = [];

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
    dispatcher = createBullMQDispatcher({ connection, queueName, partitions: 3 });
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.close(2000)));
  });

  afterAll(async () => {
    await dispatcher?.close();
    if (redis) {
      await cleanUp(redis, queueName, 'none');
      await redis.quit();
    }
  });

  it('runs each conversation in arrival order, one at a time across two workers, retries included', async () => {
    const seen = new Map<string, string[]>();
    const running = new Map<string, number>();
    let overlaps = 0;
    const failuresLeft = new Map([['c0-e0', 2]]);
    const attempts: number[] = [];
    const handlers = {
      onChatbot: async (event: { eventId: string; chatParticipantId: string }, ctx: { attempt: number }) => {
        const conversation = event.chatParticipantId;
        running.set(conversation, (running.get(conversation) ?? 0) + 1);
        if ((running.get(conversation) ?? 0) > 1) overlaps += 1;
        try {
          // Uneven callback times: two workers on one partition would finish out of order.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
          const left = failuresLeft.get(event.eventId) ?? 0;
          if (left > 0) {
            failuresLeft.set(event.eventId, left - 1);
            attempts.push(ctx.attempt);
            throw new Error('flaky');
          }
          seen.set(conversation, [...(seen.get(conversation) ?? []), event.eventId]);
        } finally {
          running.set(conversation, (running.get(conversation) ?? 1) - 1);
        }
      },
    };
    const retry = { attempts: 3, backoff: { type: 'fixed', delay: 20 } } as const;
    // Two workers: as good as two processes for BullMQ (separate connections and locks).
    for (let i = 0; i < 2; i++) {
      workers.push(createWorker({ connection, queueName, partitions: 3, retry, handlers }));
    }
    await Promise.all(workers.map((worker) => worker.ready()));
    const expected = new Map<string, string[]>();
    for (let i = 0; i < 15; i++) {
      for (let c = 0; c < 4; c++) {
        const id = `c${c}-e${i}`;
        const conversation = `conv-${queueName}-${c}`;
        expect(await dispatcher.enqueue(jobOf(id, conversation))).toBe('accepted');
        expected.set(conversation, [...(expected.get(conversation) ?? []), id]);
      }
    }
    await dispatcher.idle();
    expect(new Map([...seen].sort())).toEqual(new Map([...expected].sort()));
    expect(overlaps).toBe(0);
    expect(attempts).toEqual([1, 2]);
  }, 20_000);

  it('adds one job per dedupe key: a second enqueue of the same event is ignored', async () => {
    const runs: string[] = [];
    const job = jobOf(`dup-${queueName}`, 'conv-dup');
    expect(await dispatcher.enqueue(job)).toBe('accepted');
    expect(await dispatcher.enqueue(job)).toBe('accepted');
    workers.push(
      createWorker({
        connection,
        queueName,
        partitions: 3,
        handlers: { onChatbot: (event) => void runs.push(event.eventId) },
      }),
    );
    await dispatcher.idle();
    expect(runs).toEqual([job.payload.eventId]);
  });

  it('dead-letters an event that fails every attempt: onError per attempt, onDeadLetter once, <name>-dead queue', async () => {
    const errors: boolean[] = [];
    const deadLetters: DeadLetter[] = [];
    workers.push(
      createWorker({
        connection,
        queueName,
        partitions: 3,
        retry: { attempts: 2, backoff: { delay: 10 } },
        handlers: {
          onChatbot: () => {
            throw new Error('always broken');
          },
          onError: (_error, ctx) => void errors.push(ctx.willRetry),
          onDeadLetter: (deadLetter) => void deadLetters.push(deadLetter),
        },
      }),
    );
    const job = jobOf(`dead-${queueName}`, 'conv-dead');
    const undeduplicated = { ...jobOf(`dead2-${queueName}`, 'conv-dead'), dedupeKey: undefined };
    await dispatcher.enqueue(job);
    await dispatcher.enqueue(undeduplicated); // BullMQ's own (integer) id
    await dispatcher.idle();
    expect(errors).toEqual([true, false, true, false]);
    expect(deadLetters.map((deadLetter) => deadLetter.job.requestId)).toEqual([
      job.requestId,
      undeduplicated.requestId,
    ]);
    expect(deadLetters[0]?.attempts).toBe(2);
    expect(deadLetters[0]?.job.dedupeKey).toBe(job.dedupeKey);
    const deadConnection = redis.duplicate();
    const dead = new Queue<DeadLetterRecord>(`${queueName}-dead`, { connection: deadConnection });
    try {
      const stored = await dead.getJobs(['waiting']);
      expect(stored.map((entry) => entry.data.job.requestId).sort()).toEqual(
        [job.requestId, undeduplicated.requestId].sort(),
      );
      expect(stored.map((entry) => entry.data.error.message)).toEqual(['always broken', 'always broken']);
    } finally {
      await dead.close();
      await deadConnection.quit();
    }
  });

  it('hands a job waiting for its retry back on close; the next worker resumes it at the next attempt, before later events', async () => {
    const order: string[] = [];
    let failed = false;
    const first = createWorker({
      connection,
      queueName,
      partitions: 3,
      retry: { attempts: 3, backoff: { delay: 60_000 } },
      handlers: {
        onChatbot: () => {
          failed = true;
          throw new Error('first try fails');
        },
      },
    });
    workers.push(first);
    const conversation = `conv-resume-${queueName}`;
    await dispatcher.enqueue(jobOf(`r1-${queueName}`, conversation));
    await dispatcher.enqueue(jobOf(`r2-${queueName}`, conversation));
    expect(await waitFor(async () => failed, 10_000)).toBe(true);
    // Waiting out a 60 s backoff is not an option for a graceful close.
    expect(await first.close(5000)).toBe(true);
    workers.push(
      createWorker({
        connection,
        queueName,
        partitions: 3,
        handlers: { onChatbot: (event, ctx) => void order.push(`${event.eventId}@${ctx.attempt}`) },
      }),
    );
    await dispatcher.idle();
    expect(order).toEqual([`r1-${queueName}@2`, `r2-${queueName}@1`]);
  }, 20_000);

  it('rejects options it cannot honour', () => {
    expect(() => createWorker({ connection, queueName: 'a:b', handlers: {} })).toThrow(TypeError);
    expect(() => createWorker({ connection, partitions: 0, handlers: {} })).toThrow(TypeError);
    expect(() => createWorker({ connection, retry: { attempts: 0 }, handlers: {} })).toThrow(TypeError);
    expect(() => createWorker({ connection: undefined as never, handlers: {} })).toThrow(
      /connection: expected/,
    );
    expect(() => createBullMQDispatcher({ connection: null as never })).toThrow(/connection: expected/);
    expect(() => createBullMQDispatcher({ connection, keepCompletedMs: 10 })).toThrow(TypeError);
  });
});
