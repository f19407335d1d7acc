import type { ExecutionContext } from 'hono';
import {
  createFetchHandler,
  type CaptureRecord,
  type Dispatcher,
  type FetchHandlerOptions,
} from '../../src/index.js';
import { buildChatbotEvent, fixtures } from '../../src/testing/index.js';
import { deferred } from '../helpers/receiver.js';
import { honoApp } from './harness.js';

const CHATBOT = fixtures.chatbot.v2.INCOMING;

function chatbotRequest(
  body: unknown = CHATBOT,
  init: RequestInit = {},
  path = '/webhooks/chatbot',
): Request {
  return new Request(`https://example.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
}

/** Lets queued microtasks and one macrotask turn run (the in-memory queue starts workers on setImmediate). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Collects what a handler hands to waitUntil. */
function keeper() {
  const promises: Promise<unknown>[] = [];
  return { promises, waitUntil: (promise: Promise<unknown>) => void promises.push(promise) };
}

describe('createFetchHandler: waitUntil keeps the runtime alive for the callbacks of a request', () => {
  it('hands waitUntil a promise that settles only once the callback has run', async () => {
    const gate = deferred();
    const order: string[] = [];
    const { promises, waitUntil } = keeper();
    const handler = createFetchHandler({
      basePath: '/webhooks',
      waitUntil,
      onChatbot: async () => {
        await gate.promise;
        order.push('callback finished');
      },
    });
    const response = await handler(chatbotRequest());
    expect(response.status).toBe(200);
    expect(promises).toHaveLength(1);
    let settled = false;
    void promises[0]!.then(() => {
      settled = true;
      order.push('waitUntil promise settled');
    });
    await turn();
    await turn();
    expect(settled).toBe(false);
    gate.resolve();
    await promises[0];
    expect(order).toEqual(['callback finished', 'waitUntil promise settled']);
  });

  it('settles after the last attempt of a failing callback, never rejecting', async () => {
    const { promises, waitUntil } = keeper();
    const attempts: number[] = [];
    const deadLetters: string[] = [];
    const handler = createFetchHandler({
      basePath: '/webhooks',
      waitUntil,
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
      onChatbot: (_event, ctx) => {
        attempts.push(ctx.attempt);
        throw new Error('down');
      },
      onDeadLetter: (deadLetter) => void deadLetters.push(deadLetter.job.requestId),
    });
    expect((await handler(chatbotRequest())).status).toBe(200);
    await expect(promises[0]).resolves.toBeUndefined();
    expect(attempts).toEqual([1, 2]);
    expect(deadLetters).toHaveLength(1);
  });

  it('prefers the per-request context (Workers ctx) over the option', async () => {
    const fromOption = keeper();
    const fromContext = keeper();
    const handler = createFetchHandler({
      basePath: '/webhooks',
      waitUntil: fromOption.waitUntil,
      onChatbot: () => undefined,
    });
    await handler(chatbotRequest(), { waitUntil: fromContext.waitUntil });
    expect(fromContext.promises).toHaveLength(1);
    expect(fromOption.promises).toHaveLength(0);
    await fromContext.promises[0];
  });

  it("takes Hono's c.executionCtx as the context", async () => {
    const { promises, waitUntil } = keeper();
    const ran: string[] = [];
    const { app } = honoApp({ onChatbot: (event) => void ran.push(event.eventId) }, true);
    const executionCtx = {
      waitUntil,
      passThroughOnException: () => undefined,
      props: {},
    } as ExecutionContext;
    const response = await app.request(
      '/webhooks/chatbot',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CHATBOT) },
      undefined,
      executionCtx,
    );
    expect(response.status).toBe(200);
    await Promise.all(promises);
    expect(promises).toHaveLength(1);
    expect(ran).toEqual([CHATBOT.eventId]);
  });

  it('is not called when nothing was queued: duplicate, invalid, refused, no callback for the type', async () => {
    const { promises, waitUntil } = keeper();
    const handler = createFetchHandler({ basePath: '/webhooks', waitUntil, onChatbot: () => undefined });
    await handler(chatbotRequest());
    expect(promises).toHaveLength(1);
    expect(await (await handler(chatbotRequest())).json()).toEqual({ received: true, duplicate: true });
    expect((await handler(chatbotRequest({ eventId: 'x' }))).status).toBe(400);
    expect((await handler(chatbotRequest(CHATBOT, { method: 'GET', body: null }))).status).toBe(405);
    expect((await handler(chatbotRequest(fixtures.status.READ, {}, '/webhooks/status'))).status).toBe(200);
    expect(promises).toHaveLength(1);
  });

  it('is not called with a dispatcher given as an object (BullMQ: stored before the 200, run elsewhere)', async () => {
    const { promises, waitUntil } = keeper();
    const stored: string[] = [];
    const dispatcher: Dispatcher = {
      enqueue: (job) => {
        stored.push(job.requestId);
        return 'accepted';
      },
      idle: async () => undefined,
      close: async () => true,
      counts: () => ({ queued: 0, running: 0 }),
    };
    const handler = createFetchHandler({ basePath: '/webhooks', waitUntil, dispatcher });
    expect((await handler(chatbotRequest())).status).toBe(200);
    expect(stored).toHaveLength(1);
    expect(promises).toHaveLength(0);
  });

  it('follows jobs through a dispatcher factory too', async () => {
    const { promises, waitUntil } = keeper();
    const ran: string[] = [];
    const handler = createFetchHandler({
      basePath: '/webhooks',
      waitUntil,
      onChatbot: (event) => void ran.push(event.eventId),
      // A minimal in-process dispatcher that runs each job at once through runner.run().
      dispatcher: (runner) => ({
        enqueue: (job) => {
          void Promise.resolve(runner.run(job, 1));
          return 'accepted';
        },
        idle: async () => undefined,
        close: async () => true,
        counts: () => ({ queued: 0, running: 0 }),
      }),
    });
    expect((await handler(chatbotRequest())).status).toBe(200);
    await promises[0];
    expect(ran).toEqual([CHATBOT.eventId]);
  });

  it('covers each of several requests sharing one x-request-id', async () => {
    const { promises, waitUntil } = keeper();
    const gate = deferred();
    const handler = createFetchHandler({ basePath: '/webhooks', waitUntil, onChatbot: () => gate.promise });
    const headers = { 'content-type': 'application/json', 'x-request-id': 'same' };
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((eventId) =>
        handler(chatbotRequest(buildChatbotEvent({ eventId, chatParticipantId: eventId }), { headers })),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // Three events, each followed once, whichever request collected it: nothing settles before they ran.
    expect(promises.length).toBeGreaterThanOrEqual(1);
    let settled = 0;
    for (const promise of promises) void promise.then(() => (settled += 1));
    await turn();
    expect(settled).toBe(0);
    gate.resolve();
    await Promise.all(promises);
    await handler.idle();
    expect(handler.stats().chatbot.succeeded).toBe(3);
  });
});

describe('createFetchHandler: requests', () => {
  const options: FetchHandlerOptions = { basePath: '/webhooks', onChatbot: () => undefined };

  it('answers 404 outside basePath, and serves it with a query or a fragment', async () => {
    const handler = createFetchHandler(options);
    const outside = await handler(chatbotRequest(CHATBOT, {}, '/elsewhere/chatbot'));
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await handler(chatbotRequest(CHATBOT, {}, '/webhooksX/chatbot'))).status).toBe(404);
    const event = buildChatbotEvent({ eventId: 'with-query' });
    expect((await handler(chatbotRequest(event, {}, '/webhooks/chatbot?source=test#part'))).status).toBe(200);
  });

  it('answers 400 body_unreadable when another handler already read the body', async () => {
    const handler = createFetchHandler(options);
    const request = chatbotRequest();
    await request.text();
    const response = await handler(request);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_unreadable');
  });

  it('answers 413 when a declared length understates a longer body (a hand-made Request)', async () => {
    const handler = createFetchHandler({ ...options, bodyLimit: 100 });
    const request = chatbotRequest(CHATBOT, {
      headers: { 'content-type': 'application/json', 'content-length': '10' },
    });
    const response = await handler(request);
    expect(response.status).toBe(413);
  });

  it('captures the raw body without the token header', async () => {
    const records: CaptureRecord[] = [];
    const handler = createFetchHandler({ ...options, token: 't', capture: (record) => records.push(record) });
    const body = JSON.stringify(CHATBOT);
    await handler(
      new Request('https://example.test/webhooks/chatbot', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-webhook-token': 't' },
        body,
      }),
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ path: '/chatbot', type: 'chatbot', body });
    expect(records[0]?.headers['x-webhook-token']).toBeUndefined();
  });

  it.each([
    [{ basePath: 3 }, /basePath/],
    [{ waitUntil: 'yes' }, /waitUntil/],
  ])('throws a TypeError naming a wrong option: %j', (bad, message) => {
    expect(() => createFetchHandler({ ...options, ...(bad as object) })).toThrow(message);
    expect(() => createFetchHandler({ ...options, ...(bad as object) })).toThrow(TypeError);
  });
});
