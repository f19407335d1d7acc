import express from 'express';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createNodeHandler, createWebhookRouter, type NodeHandlerOptions } from '../../src/receiver/index.js';
import type { WebhookRouterOptions } from '../../src/receiver/index.js';
import { fixtures } from '../../src/testing/index.js';
import type { WebhookType } from '../../src/schemas/index.js';

/** The structural bounds lifted: prototype keys must still be dropped at any depth. */
const UNBOUNDED = { maxJsonDepth: Infinity, maxJsonKeys: Infinity, maxJsonItems: Infinity };

/** Sends a Buffer body byte for byte (superagent would serialise it as JSON otherwise). */
const asIs = (body: unknown): string => body as string;

/** Options recording every callback and every onInvalid call. */
function recording(extra: Partial<WebhookRouterOptions> = {}) {
  const calls: { type: WebhookType; payload: unknown }[] = [];
  const invalid: { payload: unknown; issues: readonly unknown[] }[] = [];
  const record = (type: WebhookType) => (payload: unknown) => void calls.push({ type, payload });
  const options: WebhookRouterOptions = {
    onIncoming: record('incoming'),
    onStatus: record('status'),
    onSession: record('session'),
    onEvent: record('event'),
    onChatbot: record('chatbot'),
    onInvalid: (info) => void invalid.push({ payload: info.payload, issues: info.issues }),
    ...extra,
  };
  return { calls, invalid, options };
}

/** A chatbot event with a unique eventId and `extra` merged in. */
let serial = 0;
function chatbot(extra: Record<string, unknown> = {}): Record<string, unknown> {
  serial += 1;
  return { ...fixtures.chatbot.v2.INCOMING, eventId: `hostile-${serial}`, ...extra };
}

/** `depth` nested objects `{"n":{"n":...}}` around `inner` (JSON text). */
function nested(depth: number, inner: string): string {
  return '{"n":'.repeat(depth) + inner + '}'.repeat(depth);
}

/** Whether `value` holds an own `__proto__` key or a `constructor` with `prototype`, at any depth. */
function holdsPrototypeKey(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (key === '__proto__') return true;
      if (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child)
        return true;
      stack.push(child);
    }
  }
  return false;
}

function listen(
  options: NodeHandlerOptions,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  const handler = createNodeHandler(options);
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe('gap 5: prototype keys at any depth, every body path', () => {
  const deepBody = (depth: number, key: string) =>
    JSON.stringify(chatbot()).replace(
      /}$/,
      `,"extra":${nested(depth, `{"${key}":{"prototype":{"polluted":1},"polluted":1}}`)}}`,
    );

  it.each([
    ['raw body', undefined],
    ['express.json()', express.json({ limit: '5mb' })],
    ['express.text()', express.text({ type: 'application/json', limit: '5mb' })],
    ['express.raw()', express.raw({ type: 'application/json', limit: '5mb' })],
  ])('drops __proto__ and constructor.prototype nested 70 and 5,000 deep (%s)', async (_name, parser) => {
    for (const depth of [70, 5000]) {
      for (const key of ['__proto__', 'constructor', '\\u005f_proto__']) {
        const { calls, invalid, options } = recording(UNBOUNDED);
        const router = createWebhookRouter(options);
        const app = express();
        if (parser) app.use(parser);
        app.use('/webhooks', router);
        const res = await request(app)
          .post('/webhooks/chatbot')
          .set('content-type', 'application/json')
          .send(deepBody(depth, key));
        await router.idle();
        expect({ depth, key, status: res.status }).toEqual({ depth, key, status: 200 });
        expect(invalid).toEqual([]);
        expect(calls).toHaveLength(1);
        expect(holdsPrototypeKey(calls[0]?.payload)).toBe(false);
      }
    }
  });

  it('hands onInvalid no prototype key either, at depth 70 on a pre-parsed body', async () => {
    const { invalid, options } = recording(UNBOUNDED);
    const router = createWebhookRouter(options);
    const app = express();
    app.use(express.json());
    app.use('/webhooks', router);
    const body = nested(70, '{"__proto__":{"polluted":1}}');
    await request(app)
      .post('/webhooks/chatbot')
      .set('content-type', 'application/json')
      .send(body)
      .expect(400);
    expect(invalid).toHaveLength(1);
    expect(holdsPrototypeKey(invalid[0]?.payload)).toBe(false);
  });
});

describe('gap 5 with the default bounds', () => {
  it('refuses a pre-parsed body nesting __proto__ 70 deep as payload_too_complex; nothing reaches a callback', async () => {
    const { calls, invalid, options } = recording();
    const router = createWebhookRouter(options);
    const app = express();
    app.use(express.json());
    app.use('/webhooks', router);
    const body = JSON.stringify(chatbot()).replace(
      /}$/,
      `,"extra":${nested(70, '{"__proto__":{"polluted":1}}')}}`,
    );
    const res = await request(app)
      .post('/webhooks/chatbot')
      .set('content-type', 'application/json')
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'payload_too_complex', limit: 'maxDepth', max: 32 });
    await router.idle();
    expect(calls).toEqual([]);
    expect(invalid).toEqual([{ payload: undefined, issues: expect.any(Array) as unknown }]);
  });

  it.each([
    ['maxJsonDepth', 0],
    ['maxJsonKeys', 1.5],
    ['maxJsonItems', -1],
  ])('rejects %s = %p at construction, naming it', (name, value) => {
    expect(() => createWebhookRouter({ [name]: value })).toThrow(new RegExp(name));
  });

  it('accepts Infinity to lift a bound', () => {
    expect(() => createWebhookRouter(UNBOUNDED)).not.toThrow();
  });
});

describe('gap 10: one verdict whatever the escapes and the depth', () => {
  it.each([
    ['default limits', {}],
    ['bounds lifted', UNBOUNDED],
  ])('answers the same to a 5,000-deep body with and without escapes (%s)', async (_name, extra) => {
    const { options } = recording({ dedupe: false, ...extra });
    const app = express();
    app.use('/webhooks', createWebhookRouter(options));
    const post = (inner: string) =>
      request(app)
        .post('/webhooks/chatbot')
        .set('content-type', 'application/json')
        .send(JSON.stringify(chatbot()).replace(/}$/, `,"extra":${nested(5000, inner)}}`));
    const plain = await post('"x"');
    const escaped = await post('"\\u0041"');
    const named = await post('{"constructor":1}');
    expect([escaped.status, named.status]).toEqual([plain.status, plain.status]);
    expect([escaped.body, named.body]).toEqual([plain.body, plain.body]);
  });
});

describe('gap 7: payload_too_complex', () => {
  it.each([
    [
      '60,000 keys',
      () => ({
        ...chatbot(),
        extra: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 0])),
      }),
    ],
    ['200,000 array items', () => ({ ...chatbot(), extra: new Array<number>(200_000).fill(0) })],
  ])('answers 400 payload_too_complex to %s, and onInvalid sees it', async (_name, build) => {
    const { calls, invalid, options } = recording();
    const router = createWebhookRouter(options);
    const app = express();
    app.use('/webhooks', router);
    const res = await request(app).post('/webhooks/chatbot').send(build());
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('payload_too_complex');
    await router.idle();
    expect(calls).toEqual([]);
    expect(invalid).toHaveLength(1);
    expect(router.stats().total).toMatchObject({ received: 1, invalid: 1 });
  });

  it('answers 400 payload_too_complex to a body deeper than maxJsonDepth', async () => {
    const { options } = recording({ maxJsonDepth: 10 });
    const app = express();
    app.use('/webhooks', createWebhookRouter(options));
    const res = await request(app)
      .post('/webhooks/chatbot')
      .set('content-type', 'application/json')
      .send(JSON.stringify(chatbot()).replace(/}$/, `,"extra":${nested(11, '1')}}`));
    expect(res.body.error?.code).toBe('payload_too_complex');
  });
});

describe('gap 10: encoding', () => {
  it('answers 400 invalid_json to invalid UTF-8 instead of replacing it with U+FFFD', async () => {
    const { calls, invalid, options } = recording();
    const router = createWebhookRouter(options);
    const app = express();
    app.use('/webhooks', router);
    const text = JSON.stringify(chatbot({ note: 'caf__' }));
    const bytes = Buffer.from(text);
    const at = bytes.indexOf('caf__') + 3;
    bytes[at] = 0xc3; // a lead byte followed by '_' is not UTF-8
    bytes[at + 1] = 0x28;
    const res = await request(app)
      .post('/webhooks/chatbot')
      .set('content-type', 'application/json')
      .serialize(asIs)
      .send(bytes);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    await router.idle();
    expect(calls).toEqual([]);
    expect(invalid).toHaveLength(1);
  });

  it('accepts a body that starts with a UTF-8 byte order mark', async () => {
    const { calls, options } = recording();
    const router = createWebhookRouter(options);
    const app = express();
    app.use('/webhooks', router);
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(chatbot()))]);
    await request(app)
      .post('/webhooks/chatbot')
      .set('content-type', 'application/json')
      .serialize(asIs)
      .send(body)
      .expect(200);
    await router.idle();
    expect(calls).toHaveLength(1);
  });
});

describe('gap 10: tokens', () => {
  it.each([
    ['an empty header and a correct query token', '', '/webhooks/chatbot?token=s3cret'],
    ['a wrong header and a correct query token', 'wrong', '/webhooks/chatbot?token=s3cret'],
    ['a wrong header and a correct path token', 'wrong', '/webhooks/s3cret/chatbot'],
    ['an empty query and a correct path token', undefined, '/webhooks/s3cret/chatbot?token='],
  ])('accepts %s', async (_name, header, path) => {
    const { options } = recording({ token: 's3cret' });
    const app = express();
    app.use('/webhooks', createWebhookRouter(options));
    const req = request(app).post(path);
    if (header !== undefined) void req.set('x-webhook-token', header);
    await req.send(chatbot()).expect(200);
  });

  it('still refuses when no presented token is correct', async () => {
    const { options } = recording({ token: 's3cret' });
    const app = express();
    app.use('/webhooks', createWebhookRouter(options));
    await request(app)
      .post('/webhooks/nope/chatbot?token=')
      .set('x-webhook-token', 'x')
      .send(chatbot())
      .expect(401);
  });
});

describe('gap 10: 404 answers', () => {
  it('does not echo the path (nor its token segment) in a 404 body, on either adapter', async () => {
    const { options } = recording({ token: 's3cret' });
    const app = express();
    app.use('/webhooks', createWebhookRouter(options));
    const viaExpress = await request(app).post('/webhooks/s3cret/nothing/here').send({});
    const viaNode = await request(createServer(createNodeHandler({ ...options, basePath: '/webhooks' })))
      .post('/webhooks/s3cret/nothing/here')
      .send({});
    const outside = await request(createServer(createNodeHandler({ ...options, basePath: '/webhooks' })))
      .post('/s3cret/elsewhere')
      .send({});
    for (const res of [viaExpress, viaNode, outside]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.text).not.toContain('s3cret');
    }
  });
});

describe('gap 10: both adapters read paths the same way', () => {
  // Decision: exact, case-sensitive, no empty segments; one trailing slash is allowed.
  it.each([
    ['/hooks/chatbot', 200],
    ['/hooks/chatbot/', 200],
    ['/hooks//chatbot', 404],
    ['/hooks/chatbot//', 404],
    ['/hooks/CHATBOT', 404],
    ['/hooks/Chatbot', 404],
    ['/HOOKS/chatbot', 404],
  ])('%s → %i', async (path, status) => {
    const { options } = recording({ dedupe: false });
    const app = express();
    app.set('case sensitive routing', true);
    app.use('/hooks', createWebhookRouter(options));
    const viaExpress = await request(app).post(path).send(chatbot());
    const viaNode = await request(createServer(createNodeHandler({ ...options, basePath: '/hooks' })))
      .post(path)
      .send(chatbot());
    expect([viaExpress.status, viaNode.status]).toEqual([status, status]);
  });
});

describe('gap 7: body-read deadline', () => {
  /** Sends headers and part of a body, never ends; resolves with the answer once the server closed the socket. */
  function postPartially(
    port: number,
    headers: Record<string, string>,
    chunk: string,
  ): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/chatbot', method: 'POST', headers },
        (res) => {
          let body = '';
          res.on('data', (data: Buffer) => (body += data.toString()));
          // Resolved on the socket's close, not the answer's end: the server must hang up.
          res.socket.once('close', () =>
            resolve({ status: res.statusCode ?? 0, body, headers: res.headers }),
          );
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
      });
      req.flushHeaders();
      req.write(chunk);
    });
  }

  it.each([
    ['a Content-Length larger than the body sent', { 'content-length': '500' }],
    ['a chunked body that stops', { 'transfer-encoding': 'chunked' }],
  ])(
    'answers 408 with the JSON error body and closes the connection on %s',
    async (_name, extra) => {
      const { calls, options } = recording({ bodyTimeoutMs: 150 });
      const { port, server, close } = await listen(options);
      try {
        const answer = await postPartially(
          port,
          { 'content-type': 'application/json', ...extra },
          '{"eventId":',
        );
        expect(answer.status).toBe(408);
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_timeout' } });
        expect(answer.headers.connection).toBe('close');
        const handler = server.listeners('request')[0] as ReturnType<typeof createNodeHandler>;
        expect(handler.stats().total).toMatchObject({ received: 1, rejected: 1, acked: 0 });
        expect(calls).toEqual([]);
      } finally {
        await close();
      }
    },
    5000,
  );

  it('rejects a non-positive bodyTimeoutMs at construction', () => {
    expect(() => createNodeHandler({ bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs/);
  });
});
