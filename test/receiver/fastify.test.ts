import { expectTypeOf } from 'expect-type';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { METHODS } from 'node:http';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { captureLogger, deferred } from '../helpers/receiver.js';
import { webhooksPlugin, type FastifyWebhooksOptions } from '../../src/receiver/fastify.js';
import { collectMetrics } from '../../src/metrics/index.js';
import { fixtures } from '../../src/testing/index.js';
import type { CaptureRecord } from '../../src/index.js';

const CHATBOT = JSON.stringify(fixtures.chatbot.v2.INCOMING);
const JSON_HEADERS = { 'content-type': 'application/json' };

describe('Fastify plugin', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("keeps Fastify's JSON parser for the app's other routes, before and after the plugin and in sibling scopes", async () => {
    app = Fastify();
    app.post('/before', async (request) => ({ got: request.body }));
    await app.register(webhooksPlugin, { prefix: '/webhooks', onChatbot: () => undefined });
    app.post('/after', async (request) => ({ got: request.body }));
    await app.register(async (sibling) => {
      sibling.post('/sibling', async (request) => ({ got: request.body }));
    });
    for (const url of ['/before', '/after', '/sibling']) {
      const res = await app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload: '{"a":1}' });
      expect({ url, body: res.json() }).toEqual({ url, body: { got: { a: 1 } } });
    }
    // Fastify's own 415 still applies outside the webhook routes: the plugin's catch-all parser did not leak.
    const xml = await app.inject({
      method: 'POST',
      url: '/after',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(xml.statusCode).toBe(415);
    const hook = await app.inject({
      method: 'POST',
      url: '/webhooks/chatbot',
      headers: JSON_HEADERS,
      payload: CHATBOT,
    });
    expect(hook.json()).toEqual({ received: true });
  });

  it('decorates the app with the receiver controls', async () => {
    const ran: string[] = [];
    app = Fastify();
    await app.register(webhooksPlugin, {
      prefix: '/webhooks',
      onChatbot: (event) => void ran.push(event.eventId),
    });
    await app.inject({ method: 'POST', url: '/webhooks/chatbot', headers: JSON_HEADERS, payload: CHATBOT });
    await app.webhooks.idle();
    expect(ran).toEqual([fixtures.chatbot.v2.INCOMING.eventId]);
    expect(app.webhooks.stats().chatbot).toMatchObject({ received: 1, acked: 1, succeeded: 1 });
    expect(typeof app.webhooks.close).toBe('function');
  });

  it("waits for queued callbacks in Fastify's close (onClose)", async () => {
    const gate = deferred();
    const order: string[] = [];
    app = Fastify();
    await app.register(webhooksPlugin, {
      prefix: '/webhooks',
      onChatbot: async () => {
        await gate.promise;
        order.push('callback finished');
      },
    });
    const res = await app.inject({
      method: 'POST',
      url: '/webhooks/chatbot',
      headers: JSON_HEADERS,
      payload: CHATBOT,
    });
    expect(res.statusCode).toBe(200);
    const closing = app.close().then(() => order.push('app closed'));
    app = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    gate.resolve();
    await closing;
    expect(order).toEqual(['callback finished', 'app closed']);
  });

  it('stops waiting after closeTimeoutMs and logs what is left', async () => {
    const { logger, lines } = captureLogger('warn');
    const fastify = Fastify();
    await fastify.register(webhooksPlugin, {
      logger,
      closeTimeoutMs: 20,
      onChatbot: () => new Promise(() => undefined),
    });
    await fastify.inject({ method: 'POST', url: '/chatbot', headers: JSON_HEADERS, payload: CHATBOT });
    await fastify.close();
    expect(lines.map((line) => line.msg)).toContain('webhook callbacks still queued at close');
  });

  it('throws a TypeError naming a wrong closeTimeoutMs', async () => {
    const fastify = Fastify();
    await expect(fastify.register(webhooksPlugin, { closeTimeoutMs: -1 })).rejects.toThrow(/closeTimeoutMs/);
    await expect(fastify.close()).resolves.toBeUndefined();
  });

  it("serves under a parent scope's prefix, decorating that scope", async () => {
    app = Fastify();
    let stats: (() => unknown) | undefined;
    await app.register(
      async (api) => {
        await api.register(webhooksPlugin, {
          prefix: '/webhooks',
          token: 'secret',
          onChatbot: () => undefined,
        });
        stats = () => api.webhooks.stats().chatbot.acked;
      },
      { prefix: '/api' },
    );
    const res = await app.inject({
      method: 'POST',
      url: '/api/webhooks/secret/chatbot?x=1',
      headers: JSON_HEADERS,
      payload: CHATBOT,
    });
    expect(res.statusCode).toBe(200);
    expect(stats?.()).toBe(1);
    expect(app.hasDecorator('webhooks')).toBe(false);
  });

  it('captures the raw body as received', async () => {
    const records: CaptureRecord[] = [];
    app = Fastify();
    await app.register(webhooksPlugin, {
      prefix: '/webhooks',
      capture: (record) => records.push(record),
      onChatbot: () => undefined,
    });
    await app.inject({ method: 'POST', url: '/webhooks/chatbot', headers: JSON_HEADERS, payload: CHATBOT });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ path: '/chatbot', type: 'chatbot', body: CHATBOT });
  });

  it('reads the body a preParsing hook substituted (the stream Fastify hands the parser)', async () => {
    const { Readable } = await import('node:stream');
    app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', onChatbot: () => undefined });
    app.addHook('preParsing', async (_request, _reply, _payload) => Readable.from([Buffer.from(CHATBOT)]));
    const res = await app.inject({
      method: 'POST',
      url: '/webhooks/chatbot',
      headers: JSON_HEADERS,
      payload: '{}',
    });
    expect(res.json()).toEqual({ received: true });
  });

  // Issue 24 item 3: Fastify routed only the methods it supports; any other got its default 404,
  // `Route PROPFIND:/webhooks/<token>/chatbot not found`, and was missing from stats and metrics.
  it('answers every method Node parses on a webhook path 405 JSON, counted, without echoing the path', async () => {
    const registry = new Registry();
    app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', token: 'tok-SECRET-123' });
    collectMetrics(app.webhooks, { registry, prefix: 'wh_' });
    // CONNECT never reaches a request listener in Node; POST is the one method allowed.
    const methods = METHODS.filter((method) => method !== 'CONNECT' && method !== 'POST');
    const answers: Record<string, unknown> = {};
    for (const method of methods) {
      const res = await app.inject({ method: method as 'GET', url: '/webhooks/tok-SECRET-123/chatbot' });
      expect(res.body).not.toContain('tok-SECRET');
      answers[method] = {
        status: res.statusCode,
        allow: res.headers.allow,
        code: method === 'HEAD' ? 'method_not_allowed' : res.json<{ error: { code: string } }>().error.code,
      };
    }
    const expected = { status: 405, allow: 'POST', code: 'method_not_allowed' };
    expect(answers).toEqual(Object.fromEntries(methods.map((method) => [method, expected])));
    expect(app.webhooks.stats().chatbot).toMatchObject({
      received: methods.length,
      rejected: methods.length,
    });
    const counted = (await registry.getSingleMetricAsString('wh_requests_total'))
      .split('\n')
      .find((line) => line.includes('code="method_not_allowed"'));
    expect(counted).toBe(
      `wh_requests_total{type="chatbot",status="405",code="method_not_allowed"} ${methods.length}`,
    );
  });

  it('still accepts POST, and keeps a method the app added with its own hasBody', async () => {
    app = Fastify();
    app.addHttpMethod('PROPFIND', { hasBody: false });
    app.propfind('/dav', async () => ({ dav: true }));
    await app.register(webhooksPlugin, { prefix: '/webhooks', onChatbot: () => undefined });
    const dav = await app.inject({ method: 'PROPFIND' as 'GET', url: '/dav' });
    expect(dav.json()).toEqual({ dav: true });
    const hook = await app.inject({
      method: 'POST',
      url: '/webhooks/chatbot',
      headers: JSON_HEADERS,
      payload: CHATBOT,
    });
    expect(hook.json()).toEqual({ received: true });
    const propfind = await app.inject({ method: 'PROPFIND' as 'GET', url: '/webhooks/chatbot' });
    expect(propfind.statusCode).toBe(405);
  });

  // Issue 25: the type refused `logger: app.log` (Fastify's FastifyBaseLogger), which runs fine.
  it.each([
    ['given as app.log', true],
    ['by default', false],
  ])("logs through the app's logger, %s", async (_how, given) => {
    expectTypeOf<FastifyBaseLogger>().toMatchTypeOf<NonNullable<FastifyWebhooksOptions['logger']>>();
    const { logger, lines } = captureLogger('debug');
    const local = Fastify({ loggerInstance: logger });
    // The type an app with `logger: true` has: Fastify's own, not pino's Logger.
    const log: FastifyBaseLogger = local.log;
    try {
      await local.register(
        webhooksPlugin,
        given ? { prefix: '/webhooks', logger: log } : { prefix: '/webhooks' },
      );
      await local.inject({ method: 'GET', url: '/webhooks/chatbot' });
      expect(lines.filter((line) => line.msg === 'webhook refused')).toEqual([
        expect.objectContaining({ lib: 'messaging-webhooks', code: 'method_not_allowed' }),
      ]);
    } finally {
      await local.close();
    }
  });

  it('stays silent by default in an app without a logger, and still takes a pino logger', async () => {
    app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', logger: pino({ level: 'silent' }) });
    expect((await app.inject({ method: 'GET', url: '/webhooks/chatbot' })).statusCode).toBe(405);
  });
});
