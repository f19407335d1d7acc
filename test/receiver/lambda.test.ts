/**
 * The Lambda handler beyond the shared table: what each integration's event shape means for the
 * request (stage, base64, multi-value headers, cookies, query encodings), the result's shape per
 * integration, waiting for callbacks, and the events it does not serve.
 */
import type {
  ALBHandler,
  APIGatewayProxyHandler,
  APIGatewayProxyHandlerV2,
  LambdaFunctionURLHandler,
} from 'aws-lambda';
import { expectTypeOf } from 'expect-type';
import { fixtures } from '../../src/testing/index.js';
import { createLambdaHandler, type LambdaHttpEvent } from '../../src/receiver/lambda.js';
import { deferred } from '../helpers/receiver.js';
import { albEvent, answerOf, functionUrlEvent, httpApiEvent, restApiEvent } from './lambda-events.js';
import type { Sent } from './harness.js';

const CHATBOT = JSON.stringify(fixtures.chatbot.v2.INCOMING);
const JSON_HEADERS = { 'content-type': 'application/json' };
const post = (
  path: string,
  body: string | Buffer = CHATBOT,
  headers: Record<string, string> = JSON_HEADERS,
): Sent => ({
  path,
  headers,
  body,
});

/** A handler whose chatbot callback records the event ids. */
function recording(options: Parameters<typeof createLambdaHandler>[0] = {}) {
  const seen: string[] = [];
  const handler = createLambdaHandler({
    basePath: '/webhooks',
    onChatbot: (event) => void seen.push(event.eventId),
    ...options,
  });
  return { handler, seen };
}

describe('createLambdaHandler', () => {
  it("types: @types/aws-lambda's events are accepted, and it is a handler of every integration", () => {
    const { handler } = recording();
    expectTypeOf(handler).toMatchTypeOf<APIGatewayProxyHandlerV2>();
    expectTypeOf(handler).toMatchTypeOf<APIGatewayProxyHandler>();
    expectTypeOf(handler).toMatchTypeOf<LambdaFunctionURLHandler>();
    expectTypeOf(handler).toMatchTypeOf<ALBHandler>();
  });

  it.each([
    ['an HTTP API', (sent: Sent) => httpApiEvent(sent)],
    ['an HTTP API on a named stage', (sent: Sent) => httpApiEvent(sent, 'live')],
    ['a function URL', functionUrlEvent],
    ['a REST API', (sent: Sent) => restApiEvent(sent)],
    ['an ALB', (sent: Sent) => albEvent(sent)],
    ['an ALB with multi-value headers', (sent: Sent) => albEvent(sent, { multiValue: true })],
  ])('acknowledges an event from %s and runs its callback before answering', async (_from, eventOf) => {
    const { handler, seen } = recording();
    const answer = answerOf(await handler(eventOf(post('/webhooks/chatbot'))));
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { received: true } });
    expect(seen).toEqual([fixtures.chatbot.v2.INCOMING.eventId]);
  });

  it('strips a named stage from the front of an HTTP API path, and only a whole segment of it', async () => {
    const { handler } = recording();
    const ok = await handler(httpApiEvent(post('/webhooks/chatbot'), 'prod'));
    expect(ok.statusCode).toBe(200);
    const other = httpApiEvent(post('/webhooks/chatbot'), 'prod');
    const notTheStage = { ...other, rawPath: '/production/webhooks/chatbot' };
    expect((await handler(notTheStage)).statusCode).toBe(404);
  });

  it('reads a base64 body as bytes: strict UTF-8 holds, a literal U+FFFD is accepted', async () => {
    const { handler } = recording();
    const invalid = restApiEvent(post('/webhooks/chatbot', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), {
      alwaysBase64: true,
    });
    const refused = answerOf(await handler(invalid));
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({
      status: 400,
      code: 'invalid_json',
    });
    const event = { ...fixtures.chatbot.v2.INCOMING, eventId: 'fffd', messageText: 'caf\uFFFD' };
    const replacement = restApiEvent(post('/webhooks/chatbot', JSON.stringify(event)), {
      alwaysBase64: true,
    });
    expect((await handler(replacement)).statusCode).toBe(200);
  });

  it('reads the first of repeated headers of a REST event, whatever their case', async () => {
    const { handler } = recording({ token: 'right' });
    const event = restApiEvent(post('/webhooks/chatbot'));
    const withTokens = {
      ...event,
      headers: { ...event.headers, 'X-Webhook-Token': 'wrong' },
      multiValueHeaders: { ...event.multiValueHeaders, 'X-Webhook-Token': ['right', 'wrong'] },
    };
    expect((await handler(withTokens)).statusCode).toBe(200);
  });

  it.each([
    ['a REST API (decoded query, encoded again)', (sent: Sent) => restApiEvent(sent)],
    ['an ALB (query as sent)', (sent: Sent) => albEvent(sent)],
    ['an ALB with multi-value query parameters', (sent: Sent) => albEvent(sent, { multiValue: true })],
    ['an HTTP API (raw query)', (sent: Sent) => httpApiEvent(sent)],
  ])('takes a token with reserved characters from the query of %s', async (_from, eventOf) => {
    const token = 'a&b=c d/é';
    const { handler } = recording({ token });
    const answer = await handler(eventOf(post(`/webhooks/chatbot?token=${encodeURIComponent(token)}`)));
    expect(answer.statusCode).toBe(200);
    const wrong = await handler(eventOf(post(`/webhooks/chatbot?token=${encodeURIComponent('a&b=c')}`)));
    expect(wrong.statusCode).toBe(401);
  });

  it('shapes the result per integration: an ALB answer has a status description, and multi-value headers when its event had them', async () => {
    const { handler } = recording();
    const get = { method: 'GET', path: '/webhooks/chatbot' };
    expect(await handler(albEvent(get))).toMatchObject({
      statusCode: 405,
      statusDescription: '405 Method Not Allowed',
      headers: { allow: 'POST', 'content-type': 'application/json; charset=utf-8' },
      isBase64Encoded: false,
    });
    const multi = await handler(albEvent(get, { multiValue: true }));
    expect(multi).toMatchObject({
      statusDescription: '405 Method Not Allowed',
      multiValueHeaders: { allow: ['POST'] },
    });
    expect(multi.headers).toBeUndefined();
    const v2 = await handler(httpApiEvent(get));
    expect(v2).toMatchObject({ statusCode: 405, headers: { allow: 'POST' }, isBase64Encoded: false });
    expect(v2.statusDescription).toBeUndefined();
  });

  it('ignores cookies (an HTTP API hands them apart; a capture never keeps them)', async () => {
    const records: { headers: Record<string, string> }[] = [];
    const { handler } = recording({ capture: (record) => records.push(record) });
    const event = httpApiEvent(post('/webhooks/chatbot'));
    expect(event.cookies).toHaveLength(2);
    expect((await handler(event)).statusCode).toBe(200);
    expect(Object.keys(records[0]!.headers)).not.toContain('cookie');
    expect(records[0]!.headers['content-type']).toBe('application/json');
  });

  it('answers an acknowledged request only once its callbacks have finished, by default', async () => {
    const gate = deferred();
    const order: string[] = [];
    const handler = createLambdaHandler({
      basePath: '/webhooks',
      onChatbot: async () => {
        await gate.promise;
        order.push('callback finished');
      },
    });
    const answered = handler(httpApiEvent(post('/webhooks/chatbot'))).then((result) => {
      order.push(`answered ${result.statusCode}`);
    });
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    gate.resolve();
    await answered;
    expect(order).toEqual(['callback finished', 'answered 200']);
  });

  it('answers after the last attempt of a failing callback, still 200 (the event was accepted)', async () => {
    const attempts: number[] = [];
    const handler = createLambdaHandler({
      basePath: '/webhooks',
      retry: { attempts: 2, backoff: { type: 'fixed', delay: 1 } },
      onChatbot: (_event, ctx) => {
        attempts.push(ctx.attempt);
        throw new Error('down');
      },
    });
    expect((await handler(httpApiEvent(post('/webhooks/chatbot')))).statusCode).toBe(200);
    expect(attempts).toEqual([1, 2]);
  });

  it('answers at once with awaitCallbacks: false', async () => {
    const gate = deferred();
    const handler = createLambdaHandler({
      basePath: '/webhooks',
      awaitCallbacks: false,
      onChatbot: () => gate.promise,
    });
    expect((await handler(functionUrlEvent(post('/webhooks/chatbot')))).statusCode).toBe(200);
    expect(handler.stats().chatbot.running + handler.stats().chatbot.queued).toBe(1);
    gate.resolve();
    await handler.idle();
  });

  it('does not wait for a duplicate, an error, or a type without a callback', async () => {
    const gate = deferred();
    const handler = createLambdaHandler({ basePath: '/webhooks', onChatbot: () => gate.promise });
    const first = handler(httpApiEvent(post('/webhooks/chatbot')));
    expect((await handler(httpApiEvent(post('/webhooks/chatbot')))).body).toBe(
      '{"received":true,"duplicate":true}',
    );
    expect((await handler(httpApiEvent(post('/webhooks/chatbot', '{')))).statusCode).toBe(400);
    const status = JSON.stringify(fixtures.status.READ);
    expect((await handler(httpApiEvent(post('/webhooks/status', status)))).statusCode).toBe(200);
    gate.resolve();
    expect((await first).statusCode).toBe(200);
  });

  it('answers a path outside basePath 404 without counting it, as the node and fetch handlers do', async () => {
    const { handler } = recording();
    const answer = answerOf(await handler(httpApiEvent(post('/elsewhere/chatbot'))));
    expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({
      status: 404,
      code: 'not_found',
    });
    expect(handler.stats().total.received).toBe(0);
  });

  it.each([
    ['an SQS batch', { Records: [{ messageId: '1', body: '{}' }] }],
    ['a scheduled event', { 'detail-type': 'Scheduled Event', source: 'aws.events' }],
    ['nothing', undefined],
  ])('rejects %s with a TypeError naming what it serves', async (_what, event) => {
    const { handler } = recording();
    await expect(handler(event as unknown as LambdaHttpEvent)).rejects.toThrow(
      /not an API Gateway \(HTTP or REST API\), function URL or ALB request/,
    );
  });

  it.each([
    [{ basePath: 3 }, /basePath: expected a string/],
    [{ awaitCallbacks: 'yes' }, /awaitCallbacks: expected a boolean/],
    [{ waitUntil: () => undefined }, /waitUntil/],
  ])('throws a TypeError naming a wrong option %p', (options, message) => {
    expect(() => createLambdaHandler(options as never)).toThrow(message);
  });
});
