import express from 'express';
import request from 'supertest';
import { WEBHOOK_PATHS, detectWebhookType } from '../../src/schemas/index.js';
import { allFixtures, buildChatbotEvent, buildStatus, fixtures } from '../../src/testing/index.js';
import type { InvalidPayload } from '../../src/dispatch/index.js';
import { parseJsonSafely, type CaptureRecord } from '../../src/pipeline/index.js';
import { captureLogger, createTestReceiver } from '../helpers/receiver.js';

describe('every documented payload reaches its typed callback', () => {
  it.each(allFixtures())('$name at its own path', async ({ type, payload }) => {
    const { app, router, calls } = createTestReceiver();
    const res = await request(app).post(`/webhooks/${WEBHOOK_PATHS[type]}`).send(payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    await router.idle();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.type).toBe(type);
    expect(calls[0]?.ctx.type).toBe(type);
    expect(calls[0]?.payload).toEqual(payload);
    expect(calls[0]?.ctx.receivedAt).toBeInstanceOf(Date);
    expect(typeof calls[0]?.ctx.requestId).toBe('string');
  });

  it.each(allFixtures())('$name at / (type detected from the payload)', async ({ type, payload }) => {
    expect(detectWebhookType(payload)).toBe(type);
    const { app, router, calls } = createTestReceiver();
    await request(app).post('/webhooks').send(payload).expect(200);
    await router.idle();
    expect(calls.map((call) => call.type)).toEqual([type]);
    expect(router.stats()[type].acked).toBe(1);
  });

  it('tells chatbot callbacks which payload version they got', async () => {
    const { app, router, calls } = createTestReceiver();
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v1.INCOMING).expect(200);
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v2.INCOMING).expect(200);
    await router.idle();
    expect(calls.map((call) => call.ctx.payloadVersion)).toEqual(['v1', 'v2']);
  });

  it('keeps unknown extra fields and passes unlisted enum values through, counted and logged at warn', async () => {
    const { logger, lines } = captureLogger('warn');
    const { app, router, calls } = createTestReceiver({ logger });
    const receipt = { ...buildStatus({ status: 'QUEUED' }), brandNewField: { nested: 1 } };
    await request(app).post('/webhooks/status').send(receipt).expect(200);
    await router.idle();
    expect(calls[0]?.payload).toMatchObject({ status: 'QUEUED', brandNewField: { nested: 1 } });
    expect(router.stats().status.unlistedEnumValues).toBe(1);
    // Logged by field and length, never the sender-controlled value itself (issue 16, gap 6).
    const warning = lines.find(
      (line) => line.level === 40 && line.msg === 'undocumented enum value accepted',
    );
    expect(warning).toMatchObject({ unlisted: [{ field: 'status', length: 'QUEUED'.length }] });
    expect(JSON.stringify(warning)).not.toContain('QUEUED');
  });

  it('hands status callbacks the forward-only delivery state, ignoring an out-of-order receipt', async () => {
    const { app, router, calls } = createTestReceiver();
    const gstId = 'gst-out-of-order';
    for (const status of ['ACCEPTED', 'DELIVERED', 'SENT', 'READ']) {
      await request(app).post('/webhooks/status').send(buildStatus({ gstId, status })).expect(200);
    }
    await router.idle();
    expect(
      calls.map((call) => [
        call.ctx.delivery?.reported,
        call.ctx.delivery?.applied,
        call.ctx.delivery?.current,
      ]),
    ).toEqual([
      ['ACCEPTED', true, 'ACCEPTED'],
      ['DELIVERED', true, 'DELIVERED'],
      ['SENT', false, 'DELIVERED'],
      ['READ', true, 'READ'],
    ]);
  });
});

describe('bad input gets a clear error and never a callback', () => {
  const valid = JSON.stringify(fixtures.status.SENT);
  const rows: {
    name: string;
    send: (agent: ReturnType<typeof request>) => request.Test;
    status: number;
    code: string;
    bucket?: 'invalid' | 'rejected';
  }[] = [
    {
      name: 'malformed JSON',
      send: (a) => a.post('/webhooks/status').set('content-type', 'application/json').send('{"gstId": '),
      status: 400,
      code: 'invalid_json',
    },
    {
      name: 'a body over the limit',
      send: (a) =>
        a
          .post('/webhooks/status')
          .set('content-type', 'application/json')
          .send(JSON.stringify({ ...fixtures.status.SENT, pad: 'x'.repeat(5000) })),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'text/plain',
      send: (a) => a.post('/webhooks/status').set('content-type', 'text/plain').send(valid),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'no content type',
      send: (a) => a.post('/webhooks/status').send(Buffer.from(valid)),
      status: 415,
      code: 'unsupported_media_type',
    },
    { name: 'GET', send: (a) => a.get('/webhooks/status'), status: 405, code: 'method_not_allowed' },
    {
      name: 'PUT',
      send: (a) => a.put('/webhooks/chatbot').send({}),
      status: 405,
      code: 'method_not_allowed',
    },
    {
      name: 'an unknown subpath',
      send: (a) => a.post('/webhooks/nope').send({}),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a path too deep',
      send: (a) => a.post('/webhooks/chatbot/x/y').send({}),
      status: 404,
      code: 'not_found',
    },
    {
      name: 'a JSON array',
      send: (a) => a.post('/webhooks/status').send([fixtures.status.SENT]),
      status: 400,
      code: 'invalid_payload',
    },
    {
      name: 'a payload of no known shape at /',
      send: (a) => a.post('/webhooks').send({ hello: 'world' }),
      status: 400,
      code: 'unknown_webhook_type',
    },
    {
      name: 'a wrong field type',
      send: (a) =>
        a.post('/webhooks/chatbot').send({ ...fixtures.chatbot.v1.INCOMING, conversationClosed: 'yes' }),
      status: 400,
      code: 'invalid_payload',
    },
  ];

  it.each(rows)('$name → $status $code', async ({ send, status, code }) => {
    const { app, router, calls } = createTestReceiver({ bodyLimit: 2048 });
    const res = await send(request(app));
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe('string');
    if (status === 405) expect(res.headers.allow).toBe('POST');
    // The process is unaffected: a valid payload right after is accepted.
    await request(app).post('/webhooks/status').send(fixtures.status.SENT).expect(200);
    await router.idle();
    expect(calls).toHaveLength(1);
    const total = router.stats().total;
    expect(total.invalid + total.rejected).toBe(1);
  });

  const requiredIdentifiers: {
    type: keyof typeof WEBHOOK_PATHS;
    payload: Record<string, unknown>;
    field: string;
  }[] = [
    { type: 'chatbot', payload: fixtures.chatbot.v1.INCOMING, field: 'eventId' },
    { type: 'chatbot', payload: fixtures.chatbot.v1.INCOMING, field: 'direction' },
    { type: 'chatbot', payload: fixtures.chatbot.v1.INCOMING, field: 'chatParticipantId' },
    { type: 'incoming', payload: fixtures.incoming.TEXT, field: 'sender' },
    { type: 'incoming', payload: fixtures.incoming.TEXT, field: 'messageContentType' },
    { type: 'status', payload: fixtures.status.SENT, field: 'gstId' },
    { type: 'status', payload: fixtures.status.SENT, field: 'status' },
    { type: 'session', payload: fixtures.session.Connected, field: 'messagingNumber' },
    { type: 'session', payload: fixtures.session.Connected, field: 'statusType' },
    { type: 'event', payload: fixtures.event.USER_PREFERENCE, field: 'eventType' },
  ];

  it.each(requiredIdentifiers)(
    '$type without $field → 400 naming $field, and onInvalid gets the raw payload',
    async ({ type, payload, field }) => {
      const invalid: InvalidPayload[] = [];
      const { app, router, calls } = createTestReceiver({ onInvalid: (item) => void invalid.push(item) });
      const body: Record<string, unknown> = { ...payload };
      delete body[field];
      const res = await request(app).post(`/webhooks/${WEBHOOK_PATHS[type]}`).send(body).expect(400);
      expect(res.body.error.code).toBe('invalid_payload');
      expect(res.body.error.issues.map((issue: { path: string }) => issue.path)).toContain(field);
      expect(invalid).toHaveLength(1);
      expect(invalid[0]?.type).toBe(type);
      expect(invalid[0]?.payload).toEqual(body);
      await router.idle();
      expect(calls).toHaveLength(0);
      expect(router.stats()[type].invalid).toBe(1);
    },
  );

  it.each([
    ['plain', '__proto__', 'constructor'],
    // JSON escapes spell the same keys without the bytes a text search looks for.
    ['escaped', '\\u005f_proto__', '\\u0063onstructor'],
  ])(
    'drops __proto__ and constructor.prototype keys (%s) without polluting any prototype',
    async (_, proto, ctor) => {
      const { app, router, calls } = createTestReceiver();
      const body = `{"${proto}":{"polluted":"yes"},"${ctor}":{"prototype":{"polluted":"yes"}},${JSON.stringify(fixtures.status.SENT).slice(1)}`;
      await request(app)
        .post('/webhooks/status')
        .set('content-type', 'application/json')
        .send(body)
        .expect(200);
      await router.idle();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const received = calls[0]?.payload as Record<string, unknown>;
      expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
      expect(received.polluted).toBeUndefined();
      expect(Object.keys(received)).not.toContain('constructor');
      expect(received.gstId).toBe(fixtures.status.SENT.gstId);
    },
  );

  it.each([
    ['no dangerous key', '{"a":1}', false, { a: 1 }],
    ['a harmless escape', '{"text":"caf\\u00e9"}', false, { text: 'café' }],
    ['__proto__', '{"__proto__":{"x":1},"a":1}', true, { a: 1 }],
    ['an escaped __proto__', '{"\\u005f_proto__":{"x":1},"a":1}', true, { a: 1 }],
    ['constructor.prototype', '{"constructor":{"prototype":{}},"a":1}', true, { a: 1 }],
    ['a constructor that is data', '{"constructor":"Acme","a":1}', false, { constructor: 'Acme', a: 1 }],
  ])('parseJsonSafely: %s', (_, text, sanitized, value) => {
    const parsed = parseJsonSafely(text);
    expect(parsed.sanitized).toBe(sanitized);
    expect(parsed.value).toEqual(value);
    expect(Object.keys(parsed.value as object)).toEqual(Object.keys(value));
  });

  it('survives a callback and an onInvalid that throw', async () => {
    const { app, router } = createTestReceiver({
      retry: { attempts: 1 },
      onStatus: () => {
        throw new Error('boom');
      },
      onInvalid: () => {
        throw new Error('boom too');
      },
    });
    await request(app).post('/webhooks/status').send(fixtures.status.SENT).expect(200);
    await request(app).post('/webhooks/status').send({}).expect(400);
    await router.idle();
    expect(router.stats().status).toMatchObject({ failed: 1, deadLettered: 1, invalid: 1 });
  });
});

describe('token authentication', () => {
  const token = 's3cret-token';
  const rows: { name: string; path: string; header?: string; status: number }[] = [
    { name: 'header', path: '/webhooks/chatbot', header: token, status: 200 },
    { name: 'query parameter', path: `/webhooks/chatbot?token=${token}`, status: 200 },
    { name: 'path segment', path: `/webhooks/${token}/chatbot`, status: 200 },
    { name: 'path segment on the detecting endpoint', path: `/webhooks/${token}`, status: 200 },
    { name: 'the rotated-in second token', path: '/webhooks/chatbot', header: 'next-token', status: 200 },
    { name: 'a wrong header', path: '/webhooks/chatbot', header: 'nope', status: 401 },
    { name: 'a wrong path segment', path: '/webhooks/nope/chatbot', status: 401 },
    { name: 'no token', path: '/webhooks/chatbot', status: 401 },
  ];

  it.each(rows)('$name → $status', async ({ path, header, status }) => {
    const { app, router, calls } = createTestReceiver({ token: [token, 'next-token'] });
    let req = request(app).post(path);
    if (header !== undefined) req = req.set('x-webhook-token', header);
    const res = await req.send(buildChatbotEvent());
    expect(res.status).toBe(status);
    await router.idle();
    expect(calls).toHaveLength(status === 200 ? 1 : 0);
    if (status === 401) expect(res.body.error.code).toBe('unauthorized');
  });

  it('never logs the token', async () => {
    const { logger, text } = captureLogger('trace');
    const { app, router } = createTestReceiver({ token, logger });
    await request(app).post(`/webhooks/chatbot?token=${token}`).send({ bad: true }).expect(400);
    await request(app).post('/webhooks/chatbot').set('x-webhook-token', 'wrong').send({}).expect(401);
    await router.idle();
    expect(text()).not.toContain(token);
  });
});

describe('log redaction', () => {
  const invalidIncoming = { sender: '+27820000001', text: 'my secret text' };

  it('redacts phone numbers and message text by default', async () => {
    const { logger, text } = captureLogger('warn');
    const { app } = createTestReceiver({ logger });
    await request(app).post('/webhooks/incoming').send(invalidIncoming).expect(400);
    expect(text()).toContain('invalid webhook payload');
    expect(text()).not.toContain('+27820000001');
    expect(text()).not.toContain('my secret text');
  });

  it('logs payload values when redaction is switched off', async () => {
    const { logger, lines } = captureLogger('warn');
    const { app } = createTestReceiver({ logger, redactLogs: false });
    await request(app).post('/webhooks/incoming').send(invalidIncoming).expect(400);
    expect(lines.length).toBeGreaterThan(0);
  });
});

describe('a body already parsed upstream', () => {
  it.each([
    ['express.json()', express.json()],
    ['express.raw()', express.raw({ type: 'application/json' })],
    ['express.text()', express.text({ type: 'application/json' })],
  ])('uses req.body after %s instead of waiting on the consumed stream', async (_name, parser) => {
    const { router, calls } = createTestReceiver();
    const app = express();
    app.use(parser);
    app.use('/webhooks', router);
    await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v2.INCOMING).expect(200);
    await router.idle();
    expect(calls[0]?.payload).toEqual(fixtures.chatbot.v2.INCOMING);
  });

  it('answers 400 when a middleware consumed the stream and left no req.body', async () => {
    const { router } = createTestReceiver();
    const app = express();
    app.use((req, _res, next) => {
      req.on('end', () => next());
      req.resume();
    });
    app.use('/webhooks', router);
    const res = await request(app).post('/webhooks/chatbot').send(fixtures.chatbot.v2.INCOMING);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('body_unreadable');
  });
});

describe('options are validated at construction', () => {
  it.each([
    [{ concurrency: 0 }, /concurrency/],
    [{ maxQueueSize: -1 }, /maxQueueSize/],
    [{ bodyLimit: 1.5 }, /bodyLimit/],
    [{ token: '' }, /token/],
    [{ retry: { attempts: 0 } }, /retry.attempts/],
    [{ onChatbot: 'nope' }, /onChatbot/],
    [{ dedupe: { max: 0 } }, /dedupe max/],
  ])('%j throws a TypeError', (options, message) => {
    expect(() => createTestReceiver(options as never)).toThrow(TypeError);
    expect(() => createTestReceiver(options as never)).toThrow(message);
  });
});

describe('capture', () => {
  it('hands every read request to the sink: raw body, canonical path, headers without secrets', async () => {
    const records: CaptureRecord[] = [];
    const token = 'capture-token';
    const { app, router } = createTestReceiver({ token, capture: (record) => void records.push(record) });
    const raw = `{ "spacing": "kept",  ${JSON.stringify(fixtures.chatbot.v2.INCOMING).slice(1)}`;
    await request(app)
      .post(`/webhooks/${token}/chatbot`)
      .set('content-type', 'application/json')
      .set('authorization', 'Basic c2VjcmV0')
      .set('x-trace', 'abc')
      .send(raw)
      .expect(200);
    await request(app)
      .post('/webhooks/status')
      .set('x-webhook-token', token)
      .send({ not: 'valid' })
      .expect(400);
    await request(app).post('/webhooks/status').set('x-webhook-token', 'wrong').send({}).expect(401);
    await router.idle();
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ path: '/chatbot', type: 'chatbot', body: raw });
    expect(records[0]?.headers['x-trace']).toBe('abc');
    expect(records[0]?.headers.authorization).toBeUndefined();
    expect(records[1]).toMatchObject({ path: '/status', type: 'status', body: '{"not":"valid"}' });
    expect(records[1]?.headers['x-webhook-token']).toBeUndefined();
    expect(JSON.stringify(records)).not.toContain(token);
    expect(Number.isNaN(Date.parse(records[0]?.receivedAt ?? ''))).toBe(false);
  });

  it('keeps answering when the sink throws', async () => {
    const { app, router, calls } = createTestReceiver({
      capture: () => {
        throw new Error('disk full');
      },
    });
    await request(app).post('/webhooks/status').send(fixtures.status.SENT).expect(200);
    await router.idle();
    expect(calls).toHaveLength(1);
  });
});
