import { Registry } from 'prom-client';
import request from 'supertest';
import { collectMetrics, DEFAULT_CALLBACK_BUCKETS } from '../../src/metrics/index.js';
import Fastify from 'fastify';
import { webhooksPlugin } from '../../src/receiver/fastify.js';
import { createFetchHandler, createNodeHandler } from '../../src/receiver/index.js';
import { buildChatbotEvent, buildIncoming, buildSession, buildStatus } from '../../src/testing/index.js';
import { createTestReceiver, deferred } from '../helpers/receiver.js';
import { key, samples } from './exposition.js';

const TOKEN = 'metrics-secret';

describe('messaging-webhooks/metrics', () => {
  it('counts every answer code and callback outcome, per type, in the registry text', async () => {
    const gate = deferred();
    let sessionCalls = 0;
    const { app, router } = createTestReceiver({
      token: TOKEN,
      bodyLimit: 2048,
      concurrency: 1,
      maxQueueSize: 2,
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
      onStatus: undefined,
      onSession: () => {
        sessionCalls += 1;
        throw new Error('session handler is broken');
      },
      onChatbot: () => gate.promise,
    });
    const registry = new Registry();
    const metrics = collectMetrics(router, { registry, prefix: 'wh_' });
    const post = (path: string) => request(app).post(`/webhooks${path}`).set('x-webhook-token', TOKEN);

    const message = buildIncoming();
    await post('/incoming').send(message).expect(200, { received: true });
    await post('/incoming').send(message).expect(200, { received: true, duplicate: true });
    await post('/status')
      .send(buildStatus({ status: 'QUEUED' }))
      .expect(200);
    await post('/incoming').set('content-type', 'application/json').send('{"gstId":').expect(400);
    await post('/incoming').send({ gstId: 1 }).expect(400);
    await request(app).post('/webhooks/incoming').set('x-webhook-token', 'wrong').send(message).expect(401);
    await post('/no/such/endpoint').send(message).expect(404);
    await request(app).get('/webhooks/incoming').set('x-webhook-token', TOKEN).expect(405);
    await post('/incoming')
      .send({ ...message, text: 'x'.repeat(4096) })
      .expect(413);
    await post('/incoming').set('content-type', 'text/plain').send('hello').expect(415);

    await post('/session').send(buildSession()).expect(200);
    await router.idle();
    expect(sessionCalls).toBe(2);

    await post('/chatbot').send(buildChatbotEvent()).expect(200);
    await post('/chatbot').send(buildChatbotEvent()).expect(200);
    await post('/chatbot').send(buildChatbotEvent()).expect(503);
    const busy = samples(await registry.metrics());
    expect(busy.get(key('wh_queue_depth', { type: 'chatbot' }))).toBe(1);
    expect(busy.get(key('wh_callbacks_running', { type: 'chatbot' }))).toBe(1);
    expect(busy.get(key('wh_queue_depth', { type: 'incoming' }))).toBe(0);

    gate.resolve();
    await router.idle();
    await router.close();
    await post('/chatbot').send(buildChatbotEvent()).expect(503);

    const scraped = samples(await registry.metrics());
    const expected: [string, Record<string, string>, number][] = [
      ['wh_requests_total', { type: 'incoming', status: '200', code: 'ok' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '200', code: 'duplicate' }, 1],
      ['wh_requests_total', { type: 'status', status: '200', code: 'ok' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '400', code: 'invalid_json' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '400', code: 'invalid_payload' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '401', code: 'unauthorized' }, 1],
      ['wh_requests_total', { type: 'unknown', status: '404', code: 'not_found' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '405', code: 'method_not_allowed' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '413', code: 'payload_too_large' }, 1],
      ['wh_requests_total', { type: 'incoming', status: '415', code: 'unsupported_media_type' }, 1],
      ['wh_requests_total', { type: 'session', status: '200', code: 'ok' }, 1],
      ['wh_requests_total', { type: 'chatbot', status: '200', code: 'ok' }, 2],
      ['wh_requests_total', { type: 'chatbot', status: '503', code: 'queue_full' }, 1],
      ['wh_requests_total', { type: 'chatbot', status: '503', code: 'shutting_down' }, 1],
      ['wh_rejected_total', { type: 'chatbot', reason: 'queue_full' }, 1],
      ['wh_rejected_total', { type: 'chatbot', reason: 'shutting_down' }, 1],
      ['wh_duplicates_total', { type: 'incoming' }, 1],
      ['wh_invalid_total', { type: 'incoming' }, 2],
      ['wh_unlisted_enum_values_total', { type: 'status' }, 1],
      // Passed the head checks: ok, duplicate, invalid_json, invalid_payload (413 and 415 did not).
      ['wh_ack_duration_seconds_count', { type: 'incoming' }, 4],
      ['wh_ack_duration_seconds_count', { type: 'chatbot' }, 3],
      ['wh_callbacks_total', { type: 'incoming', outcome: 'success' }, 1],
      ['wh_callbacks_total', { type: 'session', outcome: 'failure' }, 2],
      ['wh_callbacks_total', { type: 'chatbot', outcome: 'success' }, 2],
      ['wh_callback_duration_seconds_count', { type: 'session' }, 2],
      ['wh_callback_duration_seconds_count', { type: 'chatbot' }, 2],
      ['wh_retries_total', { type: 'session' }, 1],
      ['wh_dead_letters_total', { type: 'session' }, 1],
      ['wh_dead_letters_total', { type: 'incoming' }, 0],
      ['wh_queue_depth', { type: 'chatbot' }, 0],
      ['wh_callbacks_running', { type: 'chatbot' }, 0],
    ];
    const seen = expected.map(([name, labels]) => [name, labels, scraped.get(key(name, labels))]);
    expect(seen).toEqual(expected);
    // Every request is counted once, in one series.
    const answered = [...scraped].filter(([series]) => series.startsWith('wh_requests_total{'));
    expect(answered.reduce((sum, [, value]) => sum + value, 0)).toBe(router.stats().total.received);
    // Histograms are in seconds with their _bucket, _sum and _count series.
    expect(scraped.get(key('wh_ack_duration_seconds_bucket', { type: 'incoming', le: '+Inf' }))).toBe(4);
    expect(scraped.get(key('wh_ack_duration_seconds_sum', { type: 'incoming' }))).toBeLessThan(1);
    expect(scraped.get(key('wh_ack_duration_seconds_bucket', { type: 'incoming', le: '2.5' }))).toBe(4);
    const buckets = [...scraped]
      .filter(
        ([series]) =>
          series.startsWith('wh_callback_duration_seconds_bucket{') && series.includes('"session"'),
      )
      .map(([, value]) => value);
    expect(buckets).toHaveLength(DEFAULT_CALLBACK_BUCKETS.length + 1);
    // Cumulative: never decreasing, ending at the count.
    expect(buckets.every((value, index) => index === 0 || value >= buckets[index - 1]!)).toBe(true);
    expect(buckets.at(-1)).toBe(2);
    metrics.stop();
  });

  it('follows Prometheus naming: counters end in _total, histograms in _seconds', async () => {
    const { router } = createTestReceiver();
    const registry = new Registry();
    const { names, stop } = collectMetrics(router, { registry });
    const types = [...(await registry.metrics()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(
      ([, name, type]) => ({
        name: name!,
        type: type!,
      }),
    );
    expect(types.map(({ name }) => name).sort()).toEqual([...names].sort());
    for (const { name, type } of types) {
      expect(name.startsWith('messaging_webhooks_')).toBe(true);
      if (type === 'counter') expect(name).toMatch(/_total$/);
      if (type === 'histogram') expect(name).toMatch(/_seconds$/);
    }
    expect(types.filter(({ type }) => type === 'gauge').map(({ name }) => name)).toEqual([
      'messaging_webhooks_queue_depth',
      'messaging_webhooks_callbacks_running',
    ]);
    stop();
    expect(registry.getMetricsAsArray()).toHaveLength(0);
  });

  it('stops observing once stopped; totals kept by stats() still count from the start', async () => {
    const { app, router } = createTestReceiver();
    collectMetrics(router, { registry: new Registry() }).stop();
    await request(app).post('/webhooks/incoming').send(buildIncoming()).expect(200);
    await router.idle();
    const registry = new Registry();
    const metrics = collectMetrics(router, { registry });
    const scraped = samples(await registry.metrics());
    // Answered while nothing observed: not in the observer-fed series.
    expect([...scraped.keys()].filter((series) => series.includes('requests_total{'))).toEqual([]);
    expect(
      scraped.get(key('messaging_webhooks_callbacks_total', { type: 'incoming', outcome: 'success' })),
    ).toBe(1);
    metrics.stop();
  });

  it('collects from the node handler too', async () => {
    const handler = createNodeHandler({ onIncoming: () => undefined });
    const registry = new Registry();
    const metrics = collectMetrics(handler, { registry });
    await request(handler).post('/incoming').send(buildIncoming()).expect(200);
    await handler.idle();
    const scraped = samples(await registry.metrics());
    expect(
      scraped.get(key('messaging_webhooks_requests_total', { type: 'incoming', status: '200', code: 'ok' })),
    ).toBe(1);
    metrics.stop();
  });

  it('collects from the fetch handler and the Fastify plugin', async () => {
    const fetchHandler = createFetchHandler({ basePath: '/webhooks', onIncoming: () => undefined });
    const app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', onIncoming: () => undefined });
    await app.ready();
    for (const [name, receiver] of [
      ['fetch', fetchHandler],
      ['fastify', app.webhooks],
    ] as const) {
      const registry = new Registry();
      const metrics = collectMetrics(receiver, { registry });
      const body = JSON.stringify(buildIncoming());
      const headers = { 'content-type': 'application/json' };
      const status =
        name === 'fetch'
          ? (
              await fetchHandler(
                new Request('http://local/webhooks/incoming', { method: 'POST', headers, body }),
              )
            ).status
          : (await app.inject({ method: 'POST', url: '/webhooks/incoming', headers, payload: body }))
              .statusCode;
      expect(status).toBe(200);
      await receiver.idle();
      const scraped = samples(await registry.metrics());
      expect([
        name,
        scraped.get(
          key('messaging_webhooks_requests_total', { type: 'incoming', status: '200', code: 'ok' }),
        ),
        scraped.get(key('messaging_webhooks_ack_duration_seconds_count', { type: 'incoming' })),
        scraped.get(key('messaging_webhooks_callbacks_total', { type: 'incoming', outcome: 'success' })),
      ]).toEqual([name, 1, 1, 1]);
      metrics.stop();
    }
    await app.close();
  });

  it('refuses what is not a receiver and a prefix Prometheus would reject', () => {
    const { router } = createTestReceiver();
    expect(() => collectMetrics({} as never)).toThrow(TypeError);
    expect(() => collectMetrics(router, { registry: new Registry(), prefix: 'bad-prefix' })).toThrow(
      /prefix/,
    );
  });
});
