import http from 'node:http';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import type { Dispatcher, WebhookJob } from '../../src/dispatch/index.js';
import { ATTR, MESSAGING_SYSTEM, traceWebhooks } from '../../src/otel/index.js';
import { CLAIM_PENDING_CODE } from '../../src/pipeline/pipeline.js';
import Fastify from 'fastify';
import { webhooksPlugin } from '../../src/receiver/fastify.js';
import { createFetchHandler, createNodeHandler } from '../../src/receiver/index.js';
import { buildChatbotEvent, buildIncoming } from '../../src/testing/index.js';
import { createTestReceiver } from '../helpers/receiver.js';
import { allStrings, attributeStrings, receiveAndProcess } from './helpers.js';

const TOKEN = 'otel-token-5f3a9c';
const SENDER = '27821234567';
const TEXT = 'my secret order 10428 for Lerato';
const REQUEST_UUID = '7d444840-9dc0-11d1-b245-5ffdce74fad2';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => context.setGlobalContextManager(contextManager.enable()));
afterAll(() => {
  contextManager.disable();
  context.disable();
});

function tracing(sampler?: Sampler) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(sampler === undefined ? {} : { sampler }),
  });
  return { exporter, provider, spans: () => exporter.getFinishedSpans() };
}

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe('messaging-webhooks/otel: the Express router', () => {
  it('links each callback attempt to its request, with the HTTP and messaging attributes and nothing private', async () => {
    const { provider, spans } = tracing();
    let active: Span | undefined;
    let failures = 1;
    const { app, router } = createTestReceiver({
      token: TOKEN,
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
      onIncoming: () => {
        active = trace.getActiveSpan();
        if (failures-- > 0) throw new TypeError(`cannot reply to ${SENDER}: ${TEXT}`);
      },
    });
    traceWebhooks(router, { tracerProvider: provider });
    const message = buildIncoming({ sender: SENDER, text: TEXT });

    await request(app).post(`/webhooks/${TOKEN}/incoming`).send(message).expect(200, { received: true });
    await request(app)
      .post(`/webhooks/incoming?token=${TOKEN}`)
      .send(message)
      .expect(200, { received: true, duplicate: true });
    await router.idle();

    const [first, duplicate] = named(spans(), 'webhook receive');
    expect(first).toBeDefined();
    expect(first!.kind).toBe(SpanKind.SERVER);
    expect(first!.attributes).toMatchObject({
      [ATTR.httpRequestMethod]: 'POST',
      [ATTR.urlPath]: '/incoming',
      [ATTR.httpResponseStatusCode]: 200,
      [ATTR.messagingSystem]: MESSAGING_SYSTEM,
      [ATTR.messagingOperationType]: 'receive',
      [ATTR.messagingDestinationName]: 'incoming',
      [ATTR.type]: 'incoming',
      [ATTR.dedupe]: 'new',
    });
    expect(first!.attributes[ATTR.messagingMessageId]).toEqual(expect.any(String));
    expect(first!.status.code).toBe(SpanStatusCode.UNSET);
    expect(duplicate!.attributes).toMatchObject({
      [ATTR.urlPath]: '/incoming',
      [ATTR.httpResponseStatusCode]: 200,
      [ATTR.dedupe]: 'duplicate',
    });

    const attempts = named(spans(), 'webhook process');
    expect(attempts.map((span) => span.attributes[ATTR.attempt])).toEqual([1, 2]);
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(SpanKind.CONSUMER);
      expect(attempt.spanContext().traceId).toBe(first!.spanContext().traceId);
      expect(attempt.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
      expect(attempt.links.map((link) => link.context.spanId)).toEqual([first!.spanContext().spanId]);
      expect(attempt.attributes).toMatchObject({
        [ATTR.messagingSystem]: MESSAGING_SYSTEM,
        [ATTR.messagingOperationType]: 'process',
        [ATTR.messagingDestinationName]: 'incoming',
        [ATTR.messagingMessageId]: first!.attributes[ATTR.messagingMessageId],
        [ATTR.type]: 'incoming',
      });
    }
    expect(attempts[0]!.attributes).toMatchObject({
      [ATTR.outcome]: 'failure',
      [ATTR.errorType]: 'TypeError',
    });
    expect(attempts[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempts[0]!.status.message).toBeUndefined();
    expect(attempts[1]!.attributes[ATTR.outcome]).toBe('success');
    expect(attempts[1]!.attributes[ATTR.errorType]).toBeUndefined();
    // The callback runs with its attempt's span active: the user's own spans nest under it.
    expect(active?.spanContext().spanId).toBe(attempts[1]!.spanContext().spanId);

    // No token, phone number, text or any other payload value in any attribute, link or event.
    const secrets = [TOKEN, ...allStrings(message).filter((value) => value.length >= 8)];
    expect(secrets).toEqual(expect.arrayContaining([SENDER, TEXT]));
    const exported = spans().flatMap(attributeStrings);
    for (const secret of secrets) {
      expect(exported.filter((value) => value.includes(secret))).toEqual([]);
    }
  });

  it('gives refused requests (401, 415, 400, 404) a receive span with the error code', async () => {
    const { provider, spans } = tracing();
    const { app, router } = createTestReceiver({ token: TOKEN });
    traceWebhooks(router, { tracerProvider: provider });
    const post = (path: string) => request(app).post(`/webhooks${path}`);

    await post('/incoming?token=wrong-token-123').send(buildIncoming()).expect(401);
    await post(`/${TOKEN}/status`).set('content-type', 'text/plain').send('hello').expect(415);
    await post(`/${TOKEN}/chatbot`).set('content-type', 'application/json').send('{"eventId":').expect(400);
    await post(`/${TOKEN}/chatbot`).send({ eventId: 'e-1' }).expect(400);
    await post(`/${TOKEN}/nowhere/at/all`).send({}).expect(404);

    const received = named(spans(), 'webhook receive');
    expect(
      received.map((span) => [
        span.attributes[ATTR.httpResponseStatusCode],
        span.attributes[ATTR.errorType],
        span.attributes[ATTR.urlPath],
        span.attributes[ATTR.type],
      ]),
    ).toEqual([
      [401, 'unauthorized', '/incoming', 'incoming'],
      [415, 'unsupported_media_type', '/status', 'status'],
      [400, 'invalid_json', '/chatbot', 'chatbot'],
      [400, 'invalid_payload', '/chatbot', 'chatbot'],
      [404, 'not_found', undefined, 'unknown'],
    ]);
    // 4xx leave a server span's status unset (semantic conventions); nothing was processed.
    expect(received.every((span) => span.status.code === SpanStatusCode.UNSET)).toBe(true);
    expect(named(spans(), 'webhook process')).toEqual([]);
    for (const value of spans().flatMap(attributeStrings)) {
      expect(value).not.toContain(TOKEN);
      expect(value).not.toContain('wrong-token-123');
    }
  });

  it('says held, not unavailable, when another request holds the claim (503 claim_held)', async () => {
    const { provider, spans } = tracing();
    // A store whose claim is held elsewhere, as the Redis store rejects during a lease.
    const held = Object.assign(new Error('held elsewhere'), { code: CLAIM_PENDING_CODE });
    const { app, router } = createTestReceiver({
      onChatbot: () => undefined,
      dedupe: { store: { claim: () => Promise.reject(held), release: () => undefined } },
    });
    traceWebhooks(router, { tracerProvider: provider });
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(503);
    const [refused] = named(spans(), 'webhook receive');
    expect(refused!.attributes[ATTR.errorType]).toBe('claim_held');
    expect(refused!.attributes[ATTR.dedupe]).toBe('held');
  });

  it('marks a 503 as an error and stops tracing on stop()', async () => {
    const { provider, spans } = tracing();
    const { app, router } = createTestReceiver({ onChatbot: () => new Promise(() => undefined) });
    const tracing_ = traceWebhooks(router, { tracerProvider: provider });
    void router.close(1);
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(503);
    const [refused] = named(spans(), 'webhook receive');
    expect(refused!.attributes[ATTR.errorType]).toBe('shutting_down');
    expect(refused!.status.code).toBe(SpanStatusCode.ERROR);

    tracing_.stop();
    await request(app).post('/webhooks/chatbot').send(buildChatbotEvent()).expect(503);
    expect(spans()).toHaveLength(1);
  });

  it('keeps a sender’s free-text x-request-id and an unknown method out of the spans', async () => {
    const { provider, spans } = tracing();
    const handler = createFetchHandler({ basePath: '/webhooks', onIncoming: () => undefined });
    traceWebhooks(handler, { tracerProvider: provider });
    const said = 'customer +27831234567 said hi';
    const post = (method: string, id: string) =>
      handler(
        new Request('http://local/webhooks/incoming', {
          method,
          headers: { 'content-type': 'application/json', 'x-request-id': id },
          body: JSON.stringify(buildIncoming()),
        }),
      );
    expect((await post('POST', said)).status).toBe(200);
    expect((await post('X-27831234567-TOKEN', said)).status).toBe(405);
    const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect((await post('POST', uuid)).status).toBe(200);
    expect((await post('POST', 'wa-27831234567')).status).toBe(200);
    await handler.idle();
    const all = spans().flatMap(attributeStrings).join('\n');
    expect(all).not.toContain('27831234567');
    expect(all).not.toContain('said hi');
    const methods = named(spans(), 'webhook receive').map((span) => span.attributes['http.request.method']);
    expect(methods).toEqual(['POST', '_OTHER', 'POST', 'POST']);
    // A UUID-shaped request id still correlates the spans with the logs.
    expect(named(spans(), 'webhook receive')[2]!.attributes[ATTR.messagingMessageId]).toBe(uuid);
    await handler.close();
  });

  it('rejects unknown options and what is not a receiver or worker', () => {
    const { router } = createTestReceiver();
    expect(() => traceWebhooks(router, { tracerprovider: undefined } as never)).toThrow(/tracerprovider/);
    expect(() => traceWebhooks({} as never)).toThrow(/expected a receiver/);
  });
});

describe('messaging-webhooks/otel: the node handler', () => {
  it('links the process span to the receive span, under the caller’s trace context', async () => {
    const { provider, spans } = tracing();
    const handler = createNodeHandler({ basePath: '/webhooks', token: TOKEN, onChatbot: () => undefined });
    traceWebhooks(handler, { tracerProvider: provider, propagator: new W3CTraceContextPropagator() });
    const server = http.createServer(handler);
    const event = buildChatbotEvent();
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    await request(server)
      .post(`/webhooks/${TOKEN}/chatbot`)
      .set('x-request-id', REQUEST_UUID)
      .set('traceparent', `00-${callerTrace}-00f067aa0ba902b7-01`)
      .send(event)
      .expect(200);
    await handler.idle();

    const { receive, process } = receiveAndProcess(spans());
    expect(receive.attributes).toMatchObject({
      [ATTR.urlPath]: '/chatbot',
      [ATTR.messagingMessageId]: REQUEST_UUID,
      [ATTR.type]: 'chatbot',
      [ATTR.dedupe]: 'new',
    });
    expect(receive.spanContext().traceId).toBe(callerTrace);
    expect(receive.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(process.spanContext().traceId).toBe(callerTrace);
    expect(process.parentSpanContext?.spanId).toBe(receive.spanContext().spanId);
    expect(process.links[0]?.context.spanId).toBe(receive.spanContext().spanId);
    expect(process.attributes).toMatchObject({ [ATTR.attempt]: 1, [ATTR.outcome]: 'success' });
    for (const value of spans().flatMap(attributeStrings)) expect(value).not.toContain(TOKEN);
  });

  it('writes the receive span’s context into the job only while a recording tracer is set', async () => {
    const jobs: WebhookJob[] = [];
    const dispatcher: Dispatcher = {
      enqueue: (job) => {
        jobs.push(job);
        return 'accepted';
      },
      idle: () => Promise.resolve(),
      close: () => Promise.resolve(true),
      counts: () => ({ queued: 0, running: 0 }),
    };
    const handler = createNodeHandler({ onChatbot: () => undefined, dispatcher });
    const server = http.createServer(handler);
    const send = () => request(server).post('/chatbot').send(buildChatbotEvent()).expect(200);

    await send();
    // The API without an SDK: a no-op tracer, nothing carried.
    const noop = traceWebhooks(handler);
    await send();
    noop.stop();
    const { provider, spans } = tracing();
    traceWebhooks(handler, { tracerProvider: provider });
    await send();

    expect(jobs.map((job) => job.trace)).toEqual([undefined, undefined, expect.any(Object)]);
    const [receive] = named(spans(), 'webhook receive');
    // Without a registered propagator the carrier is empty; in this process the link holds anyway.
    expect(receive!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('messaging-webhooks/otel: the fetch handler and the Fastify plugin', () => {
  it('traces them like the router, with metrics collected at the same time', async () => {
    const fetchHandler = createFetchHandler({ basePath: '/webhooks', onIncoming: () => undefined });
    const app = Fastify();
    await app.register(webhooksPlugin, { prefix: '/webhooks', onIncoming: () => undefined });
    await app.ready();
    for (const [name, receiver] of [
      ['fetch', fetchHandler],
      ['fastify', app.webhooks],
    ] as const) {
      const { provider, spans } = tracing();
      const settled: string[] = [];
      // Metrics' observer and the tracer have a slot each: neither replaces the other.
      receiver.pipeline.observe({
        answered: (_type, _status, code) => void settled.push(code),
        callbackSettled: () => undefined,
        retried: () => undefined,
      });
      const tracing_ = traceWebhooks(receiver, { tracerProvider: provider });
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
      const { receive, process } = receiveAndProcess(spans());
      expect([name, receive.attributes[ATTR.urlPath], process.parentSpanContext?.spanId]).toEqual([
        name,
        '/incoming',
        receive.spanContext().spanId,
      ]);
      expect(settled).toEqual(['ok']);
      tracing_.stop();
      receiver.pipeline.observe(undefined);
    }
    await app.close();
  });
});

// Issue 24 item 7: a wrong-token request was traced as a child of the sender's `traceparent`
// (200 of 200 exported under a never-sample sampler), carrying the sender's `tracestate`, and a
// sender's short `x-request-id` (`card-4111-…`) became `messaging.message.id`.
describe('messaging-webhooks/otel: what a sender controls', () => {
  const SENDER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
  const SENDER_SPAN = '00f067aa0ba902b7';
  const SENDER_HEADERS = {
    'content-type': 'application/json',
    traceparent: `00-${SENDER_TRACE}-${SENDER_SPAN}-01`,
    tracestate: 'x=phone27831234567',
  };

  function receiver(sampler?: Sampler) {
    const traced = tracing(sampler);
    const handler = createNodeHandler({ basePath: '/webhooks', token: TOKEN, onChatbot: () => undefined });
    traceWebhooks(handler, { tracerProvider: traced.provider, propagator: new W3CTraceContextPropagator() });
    const server = http.createServer(handler);
    const send = (method: 'post' | 'get', path: string, headers: Record<string, string> = {}) => {
      const agent = request(server);
      const test = method === 'post' ? agent.post(path) : agent.get(path);
      test.set({ ...SENDER_HEADERS, ...headers });
      return method === 'post' ? test.send(buildChatbotEvent()) : test;
    };
    return { ...traced, handler, send };
  }

  it('exports no span for requests refused before the token check under a never-sample sampler', async () => {
    const { spans, handler, send } = receiver(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    for (let i = 0; i < 20; i += 1) await send('post', '/webhooks/wrong-token/chatbot').expect(401);
    await send('post', '/webhooks/chatbot', { 'x-webhook-token': 'wrong' }).expect(401);
    await send('get', `/webhooks/${TOKEN}/chatbot`).expect(405);
    await send('post', '/webhooks/a/b/c').expect(404);
    expect(spans()).toEqual([]);
    // The platform's own request (right token) still continues the sender's sampled trace.
    await send('post', `/webhooks/${TOKEN}/chatbot`).expect(200);
    await handler.idle();
    const { receive } = receiveAndProcess(spans());
    expect(receive.spanContext().traceId).toBe(SENDER_TRACE);
    expect(receive.parentSpanContext?.spanId).toBe(SENDER_SPAN);
  });

  it('starts refused requests’ spans without the sender’s parent or tracestate', async () => {
    const { spans, send } = receiver();
    await send('post', '/webhooks/wrong-token/chatbot').expect(401);
    await send('get', `/webhooks/${TOKEN}/chatbot`).expect(405);
    await send('post', '/webhooks/a/b/c').expect(404);
    const refused = named(spans(), 'webhook receive');
    expect(
      refused.map((span) => ({
        status: span.attributes[ATTR.httpResponseStatusCode],
        parent: span.parentSpanContext?.spanId,
        sameTrace: span.spanContext().traceId === SENDER_TRACE,
        traceState: span.spanContext().traceState?.serialize(),
      })),
    ).toEqual(
      [401, 405, 404].map((status) => ({
        status,
        parent: undefined,
        sameTrace: false,
        traceState: undefined,
      })),
    );
    expect(refused.flatMap(attributeStrings).join('\n')).not.toContain('27831234567');
  });

  it.each(['card-4111-1111-1111-11116c', 'req-otel-1', 'x=phone27831234567'])(
    'keeps a sender’s x-request-id %p out of messaging.message.id',
    async (id) => {
      const { spans, handler, send } = receiver();
      await send('post', `/webhooks/${TOKEN}/chatbot`, { 'x-request-id': id }).expect(200);
      await handler.idle();
      const { receive, process } = receiveAndProcess(spans());
      expect([
        receive.attributes[ATTR.messagingMessageId],
        process.attributes[ATTR.messagingMessageId],
      ]).toEqual([undefined, undefined]);
      expect(spans().flatMap(attributeStrings).join('\n')).not.toContain(id);
    },
  );
});
