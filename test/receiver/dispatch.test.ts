import { jest } from '@jest/globals';
import { pino } from 'pino';
import request from 'supertest';
import { createWebhookPipeline, type WebhookPipelineOptions } from '../../src/pipeline/index.js';
import { createStatsRecorder, type StatsBucket } from '../../src/pipeline/stats.js';
import { WEBHOOK_TYPES } from '../../src/schemas/index.js';
import { buildChatbotEvent, buildIncoming, fixtures } from '../../src/testing/index.js';
import type { DeadLetter, Dispatcher, WebhookJob } from '../../src/dispatch/index.js';
import { createTestReceiver, deferred } from '../helpers/receiver.js';

/** Posts through the framework-free pipeline, as an adapter would. */
async function post(pipeline: ReturnType<typeof createWebhookPipeline>, path: string, payload: unknown) {
  const head = pipeline.head({
    method: 'POST',
    url: path,
    header: (name) => (name === 'content-type' ? 'application/json' : undefined),
  });
  if (!('requestId' in head)) throw head;
  return pipeline.accept(head, { raw: JSON.stringify(payload) });
}

const never = () => new Promise<never>(() => undefined);

describe('deduplication', () => {
  it('calls back once for one chatbot eventId delivered 100 times, answering every delivery 200', async () => {
    const { app, router, calls } = createTestReceiver();
    const event = buildChatbotEvent();
    const answers = [];
    for (let i = 0; i < 100; i += 1) answers.push(await request(app).post('/webhooks/chatbot').send(event));
    await router.idle();
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(answers.filter((res) => res.body.duplicate === true)).toHaveLength(99);
    expect(calls).toHaveLength(1);
    expect(router.stats().chatbot).toMatchObject({ received: 100, acked: 100, duplicates: 99, succeeded: 1 });
  });

  it('deduplicates concurrent deliveries of one eventId', async () => {
    const { app, router, calls } = createTestReceiver();
    const event = buildChatbotEvent();
    await Promise.all(
      Array.from({ length: 50 }, () => request(app).post('/webhooks/chatbot').send(event).expect(200)),
    );
    await router.idle();
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['incoming by gstId', 'incoming', fixtures.incoming.TEXT, { ...fixtures.incoming.TEXT, text: 'edited?' }],
    [
      'status by gstId + status',
      'status',
      fixtures.status.DELIVERED,
      { ...fixtures.status.DELIVERED, cost: '0.01' },
    ],
  ] as const)('deduplicates %s', async (_name, type, first, redelivery) => {
    const { app, router, calls } = createTestReceiver();
    await request(app).post(`/webhooks/${type}`).send(first).expect(200);
    const res = await request(app).post(`/webhooks/${type}`).send(redelivery).expect(200);
    expect(res.body.duplicate).toBe(true);
    await router.idle();
    expect(calls).toHaveLength(1);
  });

  it('keeps distinct reactions to one message apart (a REACTION gstId is the reacted-to message)', async () => {
    const { app, router, calls } = createTestReceiver();
    const like = buildIncoming({
      messageContentType: 'REACTION',
      gstId: 'gst-1',
      text: '👍',
      sentTime: '2026-11-22T10:00:00Z',
    });
    const removed = { ...like, text: '', sentTime: '2026-11-22T10:00:05Z' };
    await request(app).post('/webhooks/incoming').send(like).expect(200);
    await request(app).post('/webhooks/incoming').send(removed).expect(200);
    await router.idle();
    expect(calls).toHaveLength(2);
  });

  it('can be turned off per type', async () => {
    const { app, router, calls } = createTestReceiver({ dedupe: { types: { chatbot: false } } });
    const event = buildChatbotEvent();
    await request(app).post('/webhooks/chatbot').send(event).expect(200);
    await request(app).post('/webhooks/chatbot').send(event).expect(200);
    await router.idle();
    expect(calls).toHaveLength(2);
  });
});

describe('acknowledgement never waits on a callback', () => {
  afterEach(() => jest.useRealTimers());

  it('acks immediately while every callback never settles (fake timers: no timer is needed to answer)', async () => {
    jest.useFakeTimers();
    const started: string[] = [];
    const pipeline = createWebhookPipeline({
      onChatbot: (event) => {
        started.push(event.eventId);
        return never();
      },
    });
    const answers = [];
    for (let i = 0; i < 20; i += 1) {
      answers.push(
        await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: `participant-${i % 3}` })),
      );
    }
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(jest.getTimerCount()).toBe(0);
    // Callbacks did start (one per conversation), and are still running.
    await Promise.resolve();
    expect(started.length).toBe(3);
    expect(pipeline.stats().chatbot).toMatchObject({ acked: 20, running: 3, queued: 17 });
  });

  it('answers over HTTP while callbacks hang', async () => {
    const { app, router } = createTestReceiver({ onIncoming: never });
    for (let i = 0; i < 5; i += 1)
      await request(app).post('/webhooks/incoming').send(buildIncoming()).expect(200);
    expect(router.stats().incoming.running).toBeGreaterThan(0);
  });
});

describe('backpressure', () => {
  it('answers 503 with Retry-After when the queue is full, and accepts the same event once there is room', async () => {
    const gate = deferred();
    const seen: string[] = [];
    const { app, router } = createTestReceiver({
      maxQueueSize: 2,
      retryAfterSeconds: 7,
      onChatbot: async (event) => {
        seen.push(event.eventId);
        await gate.promise;
      },
    });
    const [a, b, c] = [buildChatbotEvent(), buildChatbotEvent(), buildChatbotEvent()];
    await request(app).post('/webhooks/chatbot').send(a).expect(200);
    await request(app).post('/webhooks/chatbot').send(b).expect(200);
    const full = await request(app).post('/webhooks/chatbot').send(c);
    expect(full.status).toBe(503);
    expect(full.headers['retry-after']).toBe('7');
    expect(full.body.error.code).toBe('queue_full');
    gate.resolve();
    await router.idle();
    // The refused event's dedupe claim was released: the sender's retry is not swallowed as a duplicate.
    const retried = await request(app).post('/webhooks/chatbot').send(c).expect(200);
    expect(retried.body.duplicate).toBeUndefined();
    await router.idle();
    expect(seen).toEqual([a.eventId, b.eventId, c.eventId]);
    expect(router.stats().chatbot).toMatchObject({ rejected: 1, acked: 3, succeeded: 3 });
  });
});

describe('ordering', () => {
  afterEach(() => jest.useRealTimers());

  it('runs one conversation in arrival order while conversations run concurrently, under random callback durations', async () => {
    jest.useFakeTimers();
    const concurrency = 4;
    const order = new Map<string, number[]>();
    let active = 0;
    let maxActive = 0;
    const perConversationActive = new Map<string, number>();
    let overlapWithinConversation = false;
    // Deterministic pseudo-random durations (LCG), so a failure reproduces.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pipeline = createWebhookPipeline({
      concurrency,
      onChatbot: async (event) => {
        const key = event.chatParticipantId;
        active += 1;
        maxActive = Math.max(maxActive, active);
        perConversationActive.set(key, (perConversationActive.get(key) ?? 0) + 1);
        if ((perConversationActive.get(key) ?? 0) > 1) overlapWithinConversation = true;
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 100)));
        order.set(key, [...(order.get(key) ?? []), Number(event.messageId)]);
        perConversationActive.set(key, (perConversationActive.get(key) ?? 1) - 1);
        active -= 1;
      },
    });
    const sent = new Map<string, number[]>();
    for (let i = 0; i < 200; i += 1) {
      const key = `conversation-${Math.floor(random() * 8)}`;
      sent.set(key, [...(sent.get(key) ?? []), i]);
      const answer = await post(
        pipeline,
        '/chatbot',
        buildChatbotEvent({ chatParticipantId: key, messageId: String(i) }),
      );
      expect(answer.status).toBe(200);
    }
    const idle = pipeline.idle();
    let done = false;
    void idle.then(() => (done = true));
    for (let step = 0; step < 10_000 && !done; step += 1) await jest.advanceTimersByTimeAsync(10);
    expect(done).toBe(true);
    expect(order).toEqual(sent);
    expect(overlapWithinConversation).toBe(false);
    expect(maxActive).toBeGreaterThan(1);
    expect(maxActive).toBeLessThanOrEqual(concurrency);
  });
});

describe('workers', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('runs conversations that arrive while a worker waits for the next turn in parallel, up to the concurrency', async () => {
    const gate = deferred();
    let active = 0;
    let maxActive = 0;
    const pipeline = createWebhookPipeline({
      concurrency: 6,
      onChatbot: async (event) => {
        if (event.chatParticipantId === 'warm-up') return;
        active += 1;
        maxActive = Math.max(maxActive, active);
        await gate.promise;
        active -= 1;
      },
    });
    // A fast event first: its worker finishes and waits a turn for more work.
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'warm-up' }));
    for (let i = 0; i < 10; i += 1) {
      await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: `slow-${i}` }));
    }
    await nextTurn();
    await nextTurn();
    expect(active).toBe(6);
    expect(pipeline.stats().chatbot).toMatchObject({ running: 6, queued: 4 });
    gate.resolve();
    await pipeline.idle();
    expect(maxActive).toBe(6);
    expect(pipeline.stats().chatbot).toMatchObject({ succeeded: 11, running: 0, queued: 0 });
  });

  it('keeps going when the logger throws while reporting a failed callback', async () => {
    const brokenLogger = pino(
      { level: 'warn' },
      {
        write() {
          throw new Error('log transport down');
        },
      },
    );
    const ran: string[] = [];
    const pipeline = createWebhookPipeline({
      concurrency: 1,
      retry: { attempts: 1 },
      logger: brokenLogger,
      onChatbot: async (event) => {
        ran.push(event.chatParticipantId);
        if (event.chatParticipantId === 'first') throw new Error('callback failed');
      },
    });
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'first' }));
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'second' }));
    await pipeline.idle();
    expect(ran).toEqual(['first', 'second']);
    expect(pipeline.stats().chatbot).toMatchObject({
      failed: 1,
      deadLettered: 1,
      succeeded: 1,
      queued: 0,
      running: 0,
    });
  });

  it('gives a conversation with a long backlog of synchronous callbacks no more than its turn', async () => {
    const ran: string[] = [];
    const pipeline = createWebhookPipeline({
      concurrency: 1,
      onChatbot: (event) => {
        ran.push(event.chatParticipantId);
      },
    });
    // The first event runs at once; its worker then waits a turn, so the rest builds a backlog.
    for (let i = 0; i < 100; i += 1) {
      await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'busy' }));
    }
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'quiet' }));
    expect(ran).toHaveLength(1);
    await pipeline.idle();
    expect(ran).toHaveLength(101);
    // The quiet conversation is not kept waiting behind the whole backlog of the busy one.
    expect(ran.indexOf('quiet')).toBeGreaterThan(1);
    expect(ran.indexOf('quiet')).toBeLessThan(50);
  });
});

describe('retries and dead letters', () => {
  afterEach(() => jest.useRealTimers());

  async function drain(pipeline: ReturnType<typeof createWebhookPipeline>) {
    let done = false;
    void pipeline.idle().then(() => (done = true));
    for (let step = 0; step < 1000 && !done; step += 1) await jest.advanceTimersByTimeAsync(1000);
    expect(done).toBe(true);
  }

  it('retries a failing callback with backoff, holding the conversation until it succeeds', async () => {
    jest.useFakeTimers();
    const runs: string[] = [];
    const errors: [number, boolean][] = [];
    let failuresLeft = 2;
    const options: WebhookPipelineOptions = {
      retry: { attempts: 3, backoff: { type: 'fixed', delay: 5000 } },
      onChatbot: (event, ctx) => {
        runs.push(`${event.messageId}#${ctx.attempt}`);
        if (event.messageId === 'first' && failuresLeft-- > 0) throw new Error('flaky');
      },
      onError: (_error, ctx) => {
        expect(typeof ctx.logger.warn).toBe('function');
        expect(ctx.receivedAt).toBeInstanceOf(Date);
        errors.push([ctx.attempt, ctx.willRetry]);
      },
    };
    const pipeline = createWebhookPipeline(options);
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'p', messageId: 'first' }));
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'p', messageId: 'second' }));
    await jest.advanceTimersByTimeAsync(4999);
    expect(runs).toEqual(['first#1']);
    await drain(pipeline);
    expect(runs).toEqual(['first#1', 'first#2', 'first#3', 'second#1']);
    expect(errors).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(pipeline.stats().chatbot).toMatchObject({ failed: 2, succeeded: 2, deadLettered: 0 });
  });

  it('dead-letters an event that fails every attempt and moves on', async () => {
    jest.useFakeTimers();
    const deadLetters: DeadLetter[] = [];
    const runs: string[] = [];
    const pipeline = createWebhookPipeline({
      retry: { attempts: 3, backoff: { type: 'exponential', delay: 100 } },
      onChatbot: (event) => {
        runs.push(String(event.messageId));
        if (event.messageId === 'poison') throw new Error('always');
      },
      onDeadLetter: (deadLetter) => void deadLetters.push(deadLetter),
    });
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'p', messageId: 'poison' }));
    await post(pipeline, '/chatbot', buildChatbotEvent({ chatParticipantId: 'p', messageId: 'next' }));
    await drain(pipeline);
    expect(runs).toEqual(['poison', 'poison', 'poison', 'next']);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      attempts: 3,
      job: { type: 'chatbot', payload: { messageId: 'poison' } },
    });
    expect((deadLetters[0]?.error as Error).message).toBe('always');
    expect(pipeline.stats().chatbot).toMatchObject({ failed: 3, deadLettered: 1, succeeded: 1 });
  });

  it('fails an attempt whose callback outlives callbackTimeoutMs', async () => {
    jest.useFakeTimers();
    const deadLetters: DeadLetter[] = [];
    const pipeline = createWebhookPipeline({
      callbackTimeoutMs: 1000,
      retry: { attempts: 1 },
      onChatbot: never,
      onDeadLetter: (deadLetter) => void deadLetters.push(deadLetter),
    });
    await post(pipeline, '/chatbot', buildChatbotEvent());
    await drain(pipeline);
    expect((deadLetters[0]?.error as Error).message).toMatch(/1000 ms/);
  });
});

describe('close()', () => {
  afterEach(() => jest.useRealTimers());

  it('stops accepting with 503 and resolves once queued callbacks have run', async () => {
    const gate = deferred();
    const done: string[] = [];
    const { app, router } = createTestReceiver({
      onChatbot: async (event) => {
        await gate.promise;
        done.push(event.eventId);
      },
    });
    const events = [buildChatbotEvent(), buildChatbotEvent({ chatParticipantId: 'other' })];
    for (const event of events) await request(app).post('/webhooks/chatbot').send(event).expect(200);
    const closed = router.close(10_000);
    const refused = await request(app).post('/webhooks/chatbot').send(buildChatbotEvent());
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('shutting_down');
    expect(refused.headers['retry-after']).toBeDefined();
    gate.resolve();
    await expect(closed).resolves.toBe(true);
    expect(done).toEqual(events.map((event) => event.eventId));
  });

  it('gives up after its timeout when a callback never settles, reporting false', async () => {
    jest.useFakeTimers();
    const pipeline = createWebhookPipeline({ onChatbot: never });
    await post(pipeline, '/chatbot', buildChatbotEvent());
    const closed = pipeline.close(3000);
    await jest.advanceTimersByTimeAsync(3000);
    await expect(closed).resolves.toBe(false);
  });
});

describe('stats()', () => {
  it.each(['not-a-type', '__proto__', 'constructor'])(
    'ignores a counter for an unknown bucket (%s), as a job read back from Redis may name one',
    (bucket) => {
      const recorder = createStatsRecorder();
      expect(() => recorder.inc(bucket as StatsBucket, 'failed')).not.toThrow();
      expect(({} as Record<string, unknown>).failed).toBeUndefined();
      const snapshot = recorder.snapshot(() => ({ queued: 0, running: 0 }));
      expect(Object.keys(snapshot).sort()).toEqual([...WEBHOOK_TYPES, 'total', 'unknown'].sort());
      expect(snapshot.total.failed).toBe(0);
    },
  );

  it('counts per type and in total', async () => {
    const { app, router } = createTestReceiver();
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v2.INCOMING).expect(200);
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v2.INCOMING).expect(200);
    await request(app).post('/webhooks/status').send({ gstId: 'x' }).expect(400);
    await request(app).post('/webhooks/nowhere').send({}).expect(404);
    await router.idle();
    const stats = router.stats();
    expect(stats.chatbot).toEqual({
      received: 2,
      acked: 2,
      duplicates: 1,
      invalid: 0,
      rejected: 0,
      queued: 0,
      running: 0,
      succeeded: 1,
      failed: 0,
      deadLettered: 0,
      unlistedEnumValues: 0,
    });
    expect(stats.status).toMatchObject({ received: 1, invalid: 1 });
    expect(stats.unknown).toMatchObject({ received: 1, rejected: 1 });
    expect(stats.total).toMatchObject({ received: 4, acked: 2, invalid: 1, rejected: 1, succeeded: 1 });
  });
});

describe('an external dispatcher', () => {
  it('receives every webhook type when given as an object, even with no callbacks in this process', async () => {
    const jobs: WebhookJob[] = [];
    const dispatcher: Dispatcher = {
      enqueue: async (job) => {
        jobs.push(job);
        return 'accepted' as const;
      },
      idle: async () => undefined,
      close: async () => true,
      counts: () => ({ queued: 0, running: 0 }),
    };
    const pipeline = createWebhookPipeline({ dispatcher });
    for (const { type, payload } of [
      { type: 'incoming', payload: fixtures.incoming.TEXT },
      { type: 'status', payload: fixtures.status.SENT },
      { type: 'session', payload: fixtures.session.Connected },
      { type: 'event', payload: fixtures.event.USER_PREFERENCE },
      { type: 'chatbot', payload: fixtures.chatbot.v2.INCOMING },
    ] as const) {
      expect((await post(pipeline, `/${type === 'event' ? 'events' : type}`, payload)).status).toBe(200);
    }
    expect(jobs.map((job) => job.type)).toEqual(['incoming', 'status', 'session', 'event', 'chatbot']);
  });

  it('answers 503 and releases the claim when the dispatcher rejects, so the retry is accepted', async () => {
    let fail = true;
    const jobs: WebhookJob[] = [];
    const pipeline = createWebhookPipeline({
      dispatcher: {
        enqueue: async (job) => {
          if (fail) throw new Error('redis down');
          jobs.push(job);
          return 'accepted' as const;
        },
        idle: async () => undefined,
        close: async () => true,
        counts: () => ({ queued: 0, running: 0 }),
      },
    });
    const event = buildChatbotEvent();
    const refused = await post(pipeline, '/chatbot', event);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.code).toBe('store_unavailable');
    fail = false;
    expect((await post(pipeline, '/chatbot', event)).status).toBe(200);
    expect(jobs).toHaveLength(1);
  });
});
