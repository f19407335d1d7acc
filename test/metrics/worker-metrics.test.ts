import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import type { WebhookJob } from '../../src/dispatch/types.js';
import {
  collectMetrics,
  DEFAULT_CALLBACK_BUCKETS,
  type WorkerMetricsSource,
} from '../../src/metrics/index.js';
import { createStatsRecorder } from '../../src/pipeline/stats.js';
import {
  createBullMQDispatcher,
  createWorker,
  type BullMQDispatcher,
  type WebhookWorker,
} from '../../src/redis/index.js';
import { partitionOf } from '../../src/redis/queues.js';
import { buildSession } from '../../src/testing/index.js';
import { deferred } from '../helpers/receiver.js';
import {
  chatbotEvent,
  cleanUp,
  describeWithRedis,
  SHARED_REDIS_PORT,
  uniqueName,
  waitFor,
} from '../redis/helpers.js';
import { key, samples } from './exposition.js';

const { describe: describeRedis, unreachable } = await describeWithRedis();

const connection = { host: '127.0.0.1', port: SHARED_REDIS_PORT };
const PARTITIONS = 2;

function chatbotJob(eventId: string, conversation: string): WebhookJob<'chatbot'> {
  return {
    type: 'chatbot',
    payload: chatbotEvent(eventId, conversation),
    requestId: `req-${eventId}`,
    receivedAt: Date.now(),
    orderingKey: `chatbot:${conversation}`,
    dedupeKey: `chatbot:${eventId}`,
    payloadVersion: 'v1',
  };
}

function sessionJob(id: string): WebhookJob<'session'> {
  return {
    type: 'session',
    payload: buildSession(),
    requestId: `req-${id}`,
    receivedAt: Date.now(),
    orderingKey: `session:${id}`,
    dedupeKey: `session:${id}`,
  };
}

describeRedis('messaging-webhooks/metrics for a BullMQ worker (real Redis)', () => {
  const queueName = uniqueName('metrics');
  let redis: Redis;
  let dispatcher: BullMQDispatcher;
  let worker: WebhookWorker | undefined;

  beforeAll(() => {
    if (unreachable) throw new Error(unreachable);
    redis = new Redis(connection);
    dispatcher = createBullMQDispatcher({ connection, queueName, partitions: PARTITIONS });
  });

  afterAll(async () => {
    await worker?.close(2000);
    await dispatcher?.close();
    if (redis) {
      await cleanUp(redis, queueName, 'none');
      await redis.quit();
    }
  });

  it('reads queue depth and running jobs from BullMQ and counts callback outcomes, retries and dead letters', async () => {
    const gate = deferred();
    const started: string[] = [];
    worker = createWorker({
      connection,
      queueName,
      partitions: PARTITIONS,
      autorun: false,
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
      handlers: {
        onChatbot: async (event) => {
          started.push(event.eventId);
          await gate.promise;
        },
        onSession: () => {
          throw new Error('session handler is broken');
        },
      },
    });
    const registry = new Registry();
    const metrics = collectMetrics(worker, { registry, prefix: 'wk_' });
    const scrape = async (): Promise<Map<string, number>> => samples(await registry.metrics());
    const live = worker;

    // One conversation: its three events share a partition and run one at a time.
    const conversation = `conv-${queueName}`;
    const busy = `${queueName}-${partitionOf(`chatbot:${conversation}`, PARTITIONS)}`;
    const other = `${queueName}-${1 - partitionOf(`chatbot:${conversation}`, PARTITIONS)}`;
    const dead = `${queueName}-dead`;
    for (let i = 0; i < 3; i += 1) {
      expect(await dispatcher.enqueue(chatbotJob(`${queueName}-e${i}`, conversation))).toBe('accepted');
    }

    // Not started: everything waits.
    const waiting = await scrape();
    expect([
      waiting.get(key('wk_queue_depth', { queue: busy })),
      waiting.get(key('wk_queue_depth', { queue: other })),
      waiting.get(key('wk_callbacks_running', { queue: busy })),
      waiting.get(key('wk_dead_letter_queue_depth', { queue: dead })),
    ]).toEqual([3, 0, 0, 0]);

    // Started: the first event runs (held by the gate), two wait behind it.
    await live.run();
    expect(await waitFor(async () => started.length === 1, 10_000)).toBe(true);
    const running = await scrape();
    expect([
      running.get(key('wk_queue_depth', { queue: busy })),
      running.get(key('wk_callbacks_running', { queue: busy })),
      running.get(key('wk_callbacks_running', { queue: other })),
    ]).toEqual([2, 1, 0]);

    gate.resolve();
    expect(await dispatcher.enqueue(sessionJob(`${queueName}-s0`))).toBe('accepted');
    await dispatcher.idle();

    const scraped = await scrape();
    const expected: [string, Record<string, string>, number][] = [
      ['wk_queue_depth', { queue: busy }, 0],
      ['wk_queue_depth', { queue: other }, 0],
      ['wk_callbacks_running', { queue: busy }, 0],
      ['wk_dead_letter_queue_depth', { queue: dead }, 1],
      ['wk_callbacks_total', { type: 'chatbot', outcome: 'success' }, 3],
      ['wk_callbacks_total', { type: 'session', outcome: 'failure' }, 2],
      ['wk_callbacks_total', { type: 'session', outcome: 'success' }, 0],
      ['wk_retries_total', { type: 'session' }, 1],
      ['wk_retries_total', { type: 'chatbot' }, 0],
      ['wk_dead_letters_total', { type: 'session' }, 1],
      ['wk_dead_letters_total', { type: 'chatbot' }, 0],
      ['wk_callback_duration_seconds_count', { type: 'chatbot' }, 3],
      ['wk_callback_duration_seconds_count', { type: 'session' }, 2],
      ['wk_callback_duration_seconds_bucket', { type: 'session', le: '+Inf' }, 2],
    ];
    expect(expected.map(([name, labels]) => [name, labels, scraped.get(key(name, labels))])).toEqual(
      expected,
    );
    // The chatbot callbacks were held by the gate: a positive duration, in seconds.
    expect(scraped.get(key('wk_callback_duration_seconds_sum', { type: 'chatbot' }))).toBeGreaterThan(0);
    expect(scraped.get(key('wk_callback_duration_seconds_sum', { type: 'chatbot' }))).toBeLessThan(60);
    // The worker has no HTTP side: no request series.
    expect([...scraped.keys()].some((series) => series.includes('requests_total'))).toBe(false);
    expect([...metrics.names].sort()).toEqual(
      [
        'wk_callback_duration_seconds',
        'wk_callbacks_running',
        'wk_callbacks_total',
        'wk_dead_letter_queue_depth',
        'wk_dead_letters_total',
        'wk_queue_depth',
        'wk_retries_total',
      ].sort(),
    );

    metrics.stop();
    expect(registry.getMetricsAsArray()).toHaveLength(0);
  }, 30_000);
});

describe('worker metrics without Redis answering', () => {
  /** A worker-shaped source whose queues never answer (a hung Redis) or fail. */
  function fakeWorker(getJobCounts: () => Promise<Record<string, number>>): WorkerMetricsSource {
    const stats = createStatsRecorder();
    return {
      observe: () => undefined,
      stats: () => stats.snapshot(() => ({ queued: 0, running: 0 })),
      queues: () => [
        { name: 'wh-0', getJobCounts },
        { name: 'wh-dead', getJobCounts },
      ],
    };
  }

  it('leaves the queue gauges out of a scrape rather than failing it', async () => {
    for (const getJobCounts of [
      () => new Promise<Record<string, number>>(() => undefined),
      () => Promise.reject(new Error('Connection is closed.')),
    ]) {
      const registry = new Registry();
      const metrics = collectMetrics(fakeWorker(getJobCounts), { registry, queueReadTimeoutMs: 20 });
      const scraped = samples(await registry.metrics());
      expect([...scraped.keys()].filter((series) => /queue_depth|callbacks_running/.test(series))).toEqual(
        [],
      );
      // The callback series are still there.
      expect(
        scraped.get(key('messaging_webhooks_callbacks_total', { type: 'chatbot', outcome: 'success' })),
      ).toBe(0);
      metrics.stop();
    }
  });

  it('reads BullMQ once per scrape for all three gauges', async () => {
    let reads = 0;
    const registry = new Registry();
    const metrics = collectMetrics(
      fakeWorker(() => {
        reads += 1;
        return Promise.resolve({ waiting: 2, delayed: 1, active: 1 });
      }),
      { registry },
    );
    const scraped = samples(await registry.metrics());
    expect(reads).toBe(2); // one per queue
    expect(scraped.get(key('messaging_webhooks_queue_depth', { queue: 'wh-0' }))).toBe(3);
    expect(scraped.get(key('messaging_webhooks_callbacks_running', { queue: 'wh-0' }))).toBe(1);
    expect(scraped.get(key('messaging_webhooks_dead_letter_queue_depth', { queue: 'wh-dead' }))).toBe(3);
    expect(DEFAULT_CALLBACK_BUCKETS.length).toBeGreaterThan(0);
    metrics.stop();
  });

  it('refuses a queue read timeout that is not positive', () => {
    expect(() =>
      collectMetrics(
        fakeWorker(() => Promise.resolve({})),
        {
          registry: new Registry(),
          queueReadTimeoutMs: 0,
        },
      ),
    ).toThrow(/queueReadTimeoutMs/);
  });
});
