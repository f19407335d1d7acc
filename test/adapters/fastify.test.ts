import Fastify, { type FastifyInstance } from 'fastify';
import { captureLogger, deferred } from '../helpers/receiver.js';
import { webhooksPlugin } from '../../src/receiver/fastify.js';
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
});
