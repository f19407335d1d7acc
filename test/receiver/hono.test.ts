/**
 * The Hono adapter beyond the shared table: where it can be mounted, which path it serves a
 * request through (the node request and response on @hono/node-server, the fetch path
 * elsewhere), what middleware around it sees, and `waitUntil` on Workers.
 */
import { createAdaptorServer } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { jest } from '@jest/globals';
import { Hono, type ExecutionContext } from 'hono';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHonoWebhooks, type HonoWebhooks } from '../../src/receiver/hono.js';
import { fixtures } from '../../src/testing/index.js';
import { deferred } from '../helpers/receiver.js';

const CHATBOT = JSON.stringify(fixtures.chatbot.v2.INCOMING);
const init = (body: string = CHATBOT, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

/** Serves `app` on @hono/node-server at port 0; resolves with its base URL and a stop function. */
async function onNodeServer(app: Hono): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recording(options: Parameters<typeof createHonoWebhooks>[0] = {}) {
  const seen: string[] = [];
  const webhooks = createHonoWebhooks({ onChatbot: (event) => void seen.push(event.eventId), ...options });
  return { webhooks, seen };
}

describe('createHonoWebhooks', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it.each([
    ['at the root', (webhooks: HonoWebhooks) => new Hono().route('/', webhooks), '/chatbot'],
    [
      'under a path',
      (webhooks: HonoWebhooks) => new Hono().route('/hooks/v1', webhooks),
      '/hooks/v1/chatbot',
    ],
    [
      "under an app's basePath",
      (webhooks: HonoWebhooks) => new Hono().basePath('/api').route('/webhooks', webhooks),
      '/api/webhooks/chatbot',
    ],
    [
      'under a path with a parameter',
      (webhooks: HonoWebhooks) => new Hono().route('/:tenant/webhooks', webhooks),
      '/acme/webhooks/chatbot',
    ],
    [
      'beside routes of its own app',
      (webhooks: HonoWebhooks) => withOwnRoutes(webhooks),
      '/webhooks/chatbot',
    ],
  ])('serves the endpoints mounted with app.route() %s, on both paths', async (_where, build, path) => {
    const { webhooks, seen } = recording({ token: 'secret' });
    const app = build(webhooks);
    const viaFetch = await app.request(path.replace('/chatbot', '/secret/chatbot'), init());
    expect(await viaFetch.json()).toEqual({ received: true });
    const node = await onNodeServer(app);
    stop = node.stop;
    const viaNode = await fetch(
      `${node.url}${path}?token=secret`,
      init(JSON.stringify({ ...fixtures.chatbot.v2.INCOMING, eventId: 'second' })),
    );
    expect(await viaNode.json()).toEqual({ received: true });
    const wrong = await fetch(`${node.url}${path.replace('/chatbot', '/wrong/chatbot')}`, init());
    expect(wrong.status).toBe(401);
    await webhooks.idle();
    expect(seen).toEqual([fixtures.chatbot.v2.INCOMING.eventId, 'second']);
  });

  it("leaves the app's other routes and Hono's own 404 alone", async () => {
    const { webhooks } = recording();
    const app = withOwnRoutes(webhooks);
    expect(await (await app.request('/api/echo', init('{"a":1}'))).json()).toEqual({ got: { a: 1 } });
    expect((await app.request('/nowhere')).status).toBe(404);
    expect(await (await app.request('/nowhere')).text()).toBe('404 Not Found');
  });

  it('on @hono/node-server answers through the node response and tells Hono so with its already-sent header', async () => {
    // @hono/node-server reports a response it could not write (here: one written twice) with
    // console.error, and destroys the socket.
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { webhooks } = recording();
    const seenByMiddleware: (string | null)[] = [];
    const app = new Hono();
    app.use(async (c, next) => {
      await next();
      seenByMiddleware.push(c.res.headers.get('x-hono-already-sent'));
    });
    app.route('/webhooks', webhooks);
    const node = await onNodeServer(app);
    stop = node.stop;
    const ok = await fetch(`${node.url}/webhooks/chatbot`, init());
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(ok.headers.get('x-hono-already-sent')).toBeNull();
    const refused = await fetch(`${node.url}/webhooks/chatbot`, init('{'));
    expect({
      status: refused.status,
      code: ((await refused.json()) as { error: { code: string } }).error.code,
    }).toEqual({
      status: 400,
      code: 'invalid_json',
    });
    // The middleware ran after the answer was written, and saw the already-sent marker of @hono/node-server.
    expect(seenByMiddleware).toEqual(['true', 'true']);
    expect([...RESPONSE_ALREADY_SENT.headers]).toEqual([['x-hono-already-sent', 'true']]);
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it('on @hono/node-server falls back to the fetch path when a middleware already read the body', async () => {
    const { webhooks, seen } = recording();
    const app = new Hono();
    app.use('/webhooks/*', async (c, next) => {
      await c.req.text();
      await next();
    });
    app.route('/webhooks', webhooks);
    const node = await onNodeServer(app);
    stop = node.stop;
    const answer = await fetch(`${node.url}/webhooks/chatbot`, init());
    expect({
      status: answer.status,
      code: ((await answer.json()) as { error: { code: string } }).error.code,
    }).toEqual({
      status: 400,
      code: 'body_unreadable',
    });
    expect(seen).toEqual([]);
  });

  it('serves a mount path the client percent-encoded, by the path Hono routed', async () => {
    const { webhooks, seen } = recording();
    const app = new Hono().route('/webhooks', webhooks);
    const node = await onNodeServer(app);
    stop = node.stop;
    const answer = await fetch(`${node.url}/web%68ooks/chatbot`, init());
    expect(answer.status).toBe(200);
    await webhooks.idle();
    expect(seen).toHaveLength(1);
  });

  it("hands Workers' c.executionCtx.waitUntil the promise of the request's callbacks", async () => {
    const gate = deferred();
    const kept: Promise<unknown>[] = [];
    const webhooks = createHonoWebhooks({ onChatbot: () => gate.promise });
    const app = new Hono().route('/webhooks', webhooks);
    const executionCtx = {
      waitUntil: (promise: Promise<unknown>) => void kept.push(promise),
      passThroughOnException: () => undefined,
      props: {},
    } as ExecutionContext;
    const answer = await app.request('/webhooks/chatbot', init(), {}, executionCtx);
    expect(answer.status).toBe(200);
    expect(kept).toHaveLength(1);
    let settled = false;
    void kept[0]!.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    gate.resolve();
    await kept[0];
    expect(settled).toBe(true);
  });

  it('uses the waitUntil option where the runtime gives no execution context', async () => {
    const kept: Promise<unknown>[] = [];
    const webhooks = createHonoWebhooks({
      waitUntil: (promise) => void kept.push(promise),
      onChatbot: () => undefined,
    });
    const app = new Hono().route('/webhooks', webhooks);
    expect((await app.request('/webhooks/chatbot', init())).status).toBe(200);
    expect(kept).toHaveLength(1);
    await kept[0];
  });

  it('carries the receiver controls, and throws a TypeError naming a wrong waitUntil', async () => {
    const { webhooks } = recording();
    expect(typeof webhooks.stats).toBe('function');
    expect(await webhooks.close(100)).toBe(true);
    expect((await new Hono().route('/w', webhooks).request('/w/chatbot', init())).status).toBe(503);
    expect(() => createHonoWebhooks({ waitUntil: 'later' as never })).toThrow(
      /waitUntil: expected a function/,
    );
  });
});

/** An app with routes of its own around the webhooks. */
function withOwnRoutes(webhooks: HonoWebhooks): Hono {
  const app = new Hono();
  app.get('/', (c) => c.text('home'));
  app.route('/webhooks', webhooks);
  app.post('/api/echo', async (c) => c.json({ got: await c.req.json() }));
  return app;
}
