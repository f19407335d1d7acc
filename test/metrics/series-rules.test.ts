import { Registry } from 'prom-client';
import request from 'supertest';
import { collectMetrics, type WorkerMetricsSource } from '../../src/metrics/index.js';
import { createStatsRecorder } from '../../src/pipeline/stats.js';
import { WEBHOOK_TYPES } from '../../src/schemas/index.js';
import { buildChatbotEvent, buildIncoming } from '../../src/testing/index.js';
import { createTestReceiver, deferred } from '../helpers/receiver.js';
import { samples } from './exposition.js';

const TYPES = [...WEBHOOK_TYPES, 'unknown'].sort();
/** Metrics whose labels all come from fixed sets: a zero series per type from the first scrape. */
const FIXED = [
  'duplicates_total',
  'invalid_total',
  'unlisted_enum_values_total',
  'dead_letters_total',
  'retries_total',
  'callbacks_total',
  'queue_depth',
  'callbacks_running',
];
/** Metrics labelled by what was answered, and histograms: a series only once something counted. */
const ON_FIRST_COUNT = [
  'requests_total',
  'rejected_total',
  'ack_duration_seconds',
  'callback_duration_seconds',
];

/** The `type` values of one metric's samples, and their values. */
function byType(scraped: Map<string, number>, name: string): { types: string[]; values: number[] } {
  const series = [...scraped].filter(([series]) => series.startsWith(`${name}{`) || series === name);
  const types = [...new Set(series.map(([series]) => /type="([^"]*)"/.exec(series)?.[1] ?? ''))].sort();
  return { types, values: series.map(([, value]) => value) };
}

/** Sum of one metric's samples, optionally of one type. */
const sum = (scraped: Map<string, number>, name: string, type?: string): number =>
  [...scraped]
    .filter(
      ([series]) =>
        series.startsWith(`${name}{`) && (type === undefined || series.includes(`type="${type}"`)),
    )
    .reduce((total, [, value]) => total + value, 0);

describe('metrics: one rule for zero series', () => {
  it('a fresh receiver exports a zero series for all six types of every fixed-label metric, and nothing else', async () => {
    const { router } = createTestReceiver();
    const registry = new Registry();
    const metrics = collectMetrics(router, { registry, prefix: 'z_' });
    const scraped = samples(await registry.metrics());
    expect(FIXED.map((name) => [name, byType(scraped, `z_${name}`).types])).toEqual(
      FIXED.map((name) => [name, TYPES]),
    );
    expect(FIXED.flatMap((name) => byType(scraped, `z_${name}`).values).every((value) => value === 0)).toBe(
      true,
    );
    // callbacks_total: both outcomes of each type.
    expect(byType(scraped, 'z_callbacks_total').values).toHaveLength(TYPES.length * 2);
    expect(
      ON_FIRST_COUNT.filter((name) => [...scraped.keys()].some((series) => series.startsWith(`z_${name}`))),
    ).toEqual([]);
    metrics.stop();
  });

  it('a worker follows the same rule for its callback series', async () => {
    const stats = createStatsRecorder();
    const worker: WorkerMetricsSource = {
      observe: () => undefined,
      stats: () => stats.snapshot(() => ({ queued: 0, running: 0 })),
      queues: () => [],
    };
    const registry = new Registry();
    const metrics = collectMetrics(worker, { registry, prefix: 'w_' });
    const scraped = samples(await registry.metrics());
    for (const name of ['callbacks_total', 'retries_total', 'dead_letters_total']) {
      expect([name, byType(scraped, `w_${name}`).types]).toEqual([name, TYPES]);
    }
    expect([...scraped.keys()].filter((series) => series.startsWith('w_callback_duration'))).toEqual([]);
    metrics.stop();
  });
});

describe('metrics: one meaning for rejected', () => {
  it('rejected_total counts what stats().rejected counts (every error answer but 400), per type and in total', async () => {
    const gate = deferred();
    const { app, router } = createTestReceiver({
      token: 'tok',
      bodyLimit: 2048,
      concurrency: 1,
      maxQueueSize: 2,
      onChatbot: () => gate.promise,
    });
    const registry = new Registry();
    const metrics = collectMetrics(router, { registry, prefix: 'r_' });
    const post = (path: string) => request(app).post(`/webhooks${path}`).set('x-webhook-token', 'tok');
    await post('/incoming').send(buildIncoming()).expect(200);
    await post('/incoming').send({ gstId: 1 }).expect(400);
    await request(app).post('/webhooks/incoming').send(buildIncoming()).expect(401);
    await post('/no/such/endpoint').send(buildIncoming()).expect(404);
    await request(app).get('/webhooks/incoming').set('x-webhook-token', 'tok').expect(405);
    await post('/incoming')
      .send({ ...buildIncoming(), text: 'x'.repeat(4096) })
      .expect(413);
    await post('/incoming').set('content-type', 'text/plain').send('hi').expect(415);
    await post('/chatbot').send(buildChatbotEvent()).expect(200);
    await post('/chatbot').send(buildChatbotEvent()).expect(200);
    await post('/chatbot').send(buildChatbotEvent()).expect(503);

    const scraped = samples(await registry.metrics());
    const stats = router.stats();
    expect(stats.total).toMatchObject({ received: 10, acked: 3, invalid: 1, rejected: 6 });
    expect(sum(scraped, 'r_rejected_total')).toBe(stats.total.rejected);
    expect(sum(scraped, 'r_invalid_total')).toBe(stats.total.invalid);
    for (const type of TYPES) {
      const bucket = stats[type as keyof typeof stats];
      expect([type, sum(scraped, 'r_rejected_total', type)]).toEqual([type, bucket.rejected]);
    }
    // The reason is the answer's error code, 4xx and 503 alike.
    expect(
      [...scraped.keys()]
        .filter((series) => series.startsWith('r_rejected_total{'))
        .map((series) => /reason="([^"]*)"/.exec(series)?.[1])
        .sort(),
    ).toEqual([
      'method_not_allowed',
      'not_found',
      'payload_too_large',
      'queue_full',
      'unauthorized',
      'unsupported_media_type',
    ]);
    gate.resolve();
    await router.idle();
    await router.close();
    metrics.stop();
  });
});
