/**
 * One table of requests and expected answers, run against every adapter in its real framework
 * (test/receiver/harness.ts). It asserts status codes, error codes and headers, not messages:
 * the messages are free to change; what a sender sees as an outcome is not.
 */
import { gzipSync } from 'node:zlib';
import { buildChatbotEvent, fixtures } from '../../src/testing/index.js';
import type { FetchHandlerOptions, WebhookContext } from '../../src/index.js';
import { deferred } from '../helpers/receiver.js';
import { ADAPTERS, EXPRESS_PRE_PARSED, type Answer, type Mounted, type Sent } from './harness.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const CHATBOT = JSON.stringify(fixtures.chatbot.v2.INCOMING);
const post = (
  path: string,
  body: string | Buffer = CHATBOT,
  headers: Record<string, string> = JSON_HEADERS,
): Sent => ({
  path,
  headers,
  body,
});

/** A row of the bad-input table: a request, and the status and error code it must get. */
interface Row {
  readonly name: string;
  readonly options?: FetchHandlerOptions;
  readonly sent: Sent;
  readonly status: number;
  readonly code: string;
  /** Headers the answer must carry. */
  readonly headers?: Readonly<Record<string, string>>;
}

const BAD_INPUTS: readonly Row[] = [
  { name: 'a path that is no endpoint', sent: post('/webhooks/a/b/c'), status: 404, code: 'not_found' },
  {
    name: 'GET on an endpoint',
    sent: { method: 'GET', path: '/webhooks/chatbot' },
    status: 405,
    code: 'method_not_allowed',
    headers: { allow: 'POST' },
  },
  {
    name: 'a text/plain body',
    sent: post('/webhooks/chatbot', CHATBOT, { 'content-type': 'text/plain' }),
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'no content type',
    sent: post('/webhooks/chatbot', CHATBOT, {}),
    status: 415,
    code: 'unsupported_media_type',
  },
  // Issue 24 item 8: Content-Encoding was ignored (gzip: 400 invalid_json; br-labelled plain JSON: 200).
  ...[
    ['a gzipped valid event', 'gzip', gzipSync(CHATBOT)],
    ['a br-labelled plain body', 'br', CHATBOT],
    ['a deflate-labelled body', 'deflate', CHATBOT],
    ['a list of codings', 'gzip, identity', CHATBOT],
    ['an unknown coding', 'x-made-up', CHATBOT],
  ].map(([name, encoding, body]): Row => ({
    name: `${name as string} (Content-Encoding: ${encoding as string})`,
    sent: post('/webhooks/chatbot', body, { ...JSON_HEADERS, 'content-encoding': encoding as string }),
    status: 415,
    code: 'unsupported_encoding',
  })),
  {
    name: 'a gzipped body with a wrong token (the token is checked first)',
    options: { token: 'secret' },
    sent: post('/webhooks/chatbot', gzipSync(CHATBOT), { ...JSON_HEADERS, 'content-encoding': 'gzip' }),
    status: 401,
    code: 'unauthorized',
  },
  {
    name: 'a body over the limit (declared length)',
    options: { bodyLimit: 64 },
    sent: post('/webhooks/chatbot'),
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'a body that is not JSON',
    sent: post('/webhooks/chatbot', '{"eventId":'),
    status: 400,
    code: 'invalid_json',
  },
  { name: 'an empty body', sent: post('/webhooks/chatbot', ''), status: 400, code: 'invalid_json' },
  {
    // Issue 16 gap 10: strict UTF-8 on every adapter (the fetch handler once decoded with U+FFFD).
    name: 'a body that is not valid UTF-8',
    sent: post('/webhooks/chatbot', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
    status: 400,
    code: 'invalid_json',
  },
  { name: 'an empty path segment', sent: post('/webhooks//chatbot'), status: 404, code: 'not_found' },
  { name: 'an endpoint in capitals', sent: post('/webhooks/CHATBOT'), status: 404, code: 'not_found' },
  {
    name: 'a payload that fails its schema',
    sent: post('/webhooks/chatbot', '{"eventId":"e-1"}'),
    status: 400,
    code: 'invalid_payload',
  },
  {
    name: 'a payload of no known type on the detecting endpoint',
    sent: post('/webhooks', '{"hello":"world"}'),
    status: 400,
    code: 'unknown_webhook_type',
  },
  {
    name: 'no token when one is configured',
    options: { token: 'secret' },
    sent: post('/webhooks/chatbot'),
    status: 401,
    code: 'unauthorized',
  },
  {
    name: 'a wrong token in the header',
    options: { token: 'secret' },
    sent: post('/webhooks/chatbot', CHATBOT, { ...JSON_HEADERS, 'x-webhook-token': 'wrong' }),
    status: 401,
    code: 'unauthorized',
  },
  {
    name: 'a wrong token as a path segment',
    options: { token: 'secret' },
    sent: post('/webhooks/wrong/chatbot'),
    status: 401,
    code: 'unauthorized',
  },
];

/** The callbacks of a table run: each records the event ids it was given, in order. */
function recorder() {
  const seen: string[] = [];
  const onChatbot = (event: { eventId: string }, _ctx: WebhookContext<'chatbot'>) => {
    seen.push(event.eventId);
  };
  return { seen, onChatbot };
}

function expectJsonError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof answer.body?.error?.message).toBe('string');
}

describe.each(ADAPTERS)('$name', (adapter) => {
  let mounted: Mounted | undefined;
  const mount = async (options: FetchHandlerOptions): Promise<Mounted> =>
    (mounted = await adapter.mount(options));
  afterEach(async () => {
    await mounted?.stop();
    mounted = undefined;
  });

  it.each(BAD_INPUTS)('answers $status $code to $name, as JSON, and runs nothing', async (row) => {
    const { seen, onChatbot } = recorder();
    const receiver = await mount({ onChatbot, ...row.options });
    const answer = await receiver.send(row.sent);
    expectJsonError(answer, row.status, row.code);
    for (const [name, value] of Object.entries(row.headers ?? {})) expect(answer.headers[name]).toBe(value);
    await receiver.controls.idle();
    expect(seen).toEqual([]);
    const total = receiver.controls.stats().total;
    expect(total.received).toBe(1);
    expect(total.acked).toBe(0);
    expect(total.invalid + total.rejected).toBe(1);
  });

  // Issue 24 item 3: Fastify answered these with its 404, quoting the path (token included), uncounted.
  it.each(['PROPFIND', 'LOCK', 'MKCOL', 'PURGE', 'SEARCH', 'PUT', 'OPTIONS'])(
    'answers %s on a token path 405 JSON, counted, without echoing the path',
    async (method) => {
      const receiver = await mount({ token: 'tok-SECRET-123' });
      const answer = await receiver.send({ method, path: '/webhooks/tok-SECRET-123/chatbot' });
      expectJsonError(answer, 405, 'method_not_allowed');
      expect(answer.headers.allow).toBe('POST');
      expect(JSON.stringify(answer)).not.toContain('tok-SECRET');
      expect(receiver.controls.stats().chatbot).toMatchObject({ received: 1, rejected: 1 });
    },
  );

  it('acknowledges a valid event with 200 {received: true} and runs its callback once', async () => {
    const { seen, onChatbot } = recorder();
    const receiver = await mount({ onChatbot });
    const answer = await receiver.send(post('/webhooks/chatbot'));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ received: true });
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    await receiver.controls.idle();
    expect(seen).toEqual([fixtures.chatbot.v2.INCOMING.eventId]);
    expect(receiver.controls.stats().chatbot).toMatchObject({ received: 1, acked: 1, succeeded: 1 });
  });

  it.each([
    ['the header', post('/webhooks/chatbot', CHATBOT, { ...JSON_HEADERS, 'x-webhook-token': 'secret' })],
    ['the query', post('/webhooks/chatbot?token=secret')],
    ['a path segment', post('/webhooks/secret/chatbot')],
    ['a path segment on the detecting endpoint', post('/webhooks/secret')],
  ])('accepts the token in %s', async (_where, sent) => {
    const { seen, onChatbot } = recorder();
    const receiver = await mount({ token: 'secret', onChatbot });
    expect((await receiver.send(sent)).status).toBe(200);
    await receiver.controls.idle();
    expect(seen).toHaveLength(1);
  });

  it.each(['identity', 'IDENTITY', ''])(
    'accepts Content-Encoding %p (the body as it is)',
    async (encoding) => {
      const { seen, onChatbot } = recorder();
      const receiver = await mount({ onChatbot });
      const sent = post('/webhooks/chatbot', CHATBOT, { ...JSON_HEADERS, 'content-encoding': encoding });
      expect((await receiver.send(sent)).status).toBe(200);
      await receiver.controls.idle();
      expect(seen).toEqual([fixtures.chatbot.v2.INCOMING.eventId]);
    },
  );

  it('accepts a body that starts with a UTF-8 byte order mark', async () => {
    const { seen, onChatbot } = recorder();
    const receiver = await mount({ onChatbot });
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CHATBOT)]);
    expect((await receiver.send(post('/webhooks/chatbot', withBom))).status).toBe(200);
    await receiver.controls.idle();
    expect(seen).toEqual([fixtures.chatbot.v2.INCOMING.eventId]);
  });

  it('acknowledges a redelivery as a duplicate and runs the callback once', async () => {
    const { seen, onChatbot } = recorder();
    const receiver = await mount({ onChatbot });
    const first = await receiver.send(post('/webhooks/chatbot'));
    const second = await receiver.send(post('/webhooks/chatbot'));
    expect([first.body, second.body]).toEqual([{ received: true }, { received: true, duplicate: true }]);
    await receiver.controls.idle();
    expect(seen).toHaveLength(1);
    expect(receiver.controls.stats().chatbot.duplicates).toBe(1);
  });

  it("runs one conversation's callbacks one at a time, in arrival order", async () => {
    const seen: string[] = [];
    let running = 0;
    let overlapped = false;
    const receiver = await mount({
      // Each callback yields a different number of turns: a later one would overtake if allowed.
      onChatbot: async (event) => {
        running += 1;
        if (running > 1) overlapped = true;
        for (let turn = 0; turn < 5 - (seen.length % 5); turn += 1) await Promise.resolve();
        seen.push(event.eventId);
        running -= 1;
      },
    });
    const ids = Array.from({ length: 12 }, (_, i) => `ordered-${i}`);
    for (const eventId of ids) {
      const event = buildChatbotEvent({ eventId, chatParticipantId: 'participant-ordered' });
      expect((await receiver.send(post('/webhooks/chatbot', JSON.stringify(event)))).status).toBe(200);
    }
    await receiver.controls.idle();
    expect(seen).toEqual(ids);
    expect(overlapped).toBe(false);
  });

  it('answers 503 queue_full with Retry-After when the queue is full', async () => {
    const gate = deferred();
    const receiver = await mount({ maxQueueSize: 1, retryAfterSeconds: 7, onChatbot: () => gate.promise });
    const first = await receiver.send(post('/webhooks/chatbot'));
    const event = buildChatbotEvent({ eventId: 'second' });
    const second = await receiver.send(post('/webhooks/chatbot', JSON.stringify(event)));
    expect(first.status).toBe(200);
    expectJsonError(second, 503, 'queue_full');
    expect(second.headers['retry-after']).toBe('7');
    gate.resolve();
    await receiver.controls.idle();
  });

  it('answers 503 shutting_down with Retry-After once closed', async () => {
    const { onChatbot } = recorder();
    const receiver = await mount({ onChatbot });
    expect(await receiver.controls.close(1000)).toBe(true);
    const answer = await receiver.send(post('/webhooks/chatbot'));
    expectJsonError(answer, 503, 'shutting_down');
    expect(answer.headers['retry-after']).toBe('5');
  });

  it('counts every request in stats: received = acked + invalid + rejected', async () => {
    const { onChatbot } = recorder();
    const receiver = await mount({ onChatbot, token: 'secret' });
    await receiver.send(post('/webhooks/secret/chatbot'));
    await receiver.send(post('/webhooks/secret/chatbot', '{'));
    await receiver.send(post('/webhooks/wrong/chatbot'));
    await receiver.send(post('/webhooks/secret/status', JSON.stringify(fixtures.status.READ)));
    await receiver.controls.idle();
    const { total } = receiver.controls.stats();
    expect(total).toMatchObject({ received: 4, acked: 2, invalid: 1, rejected: 1 });
  });
});

describe(EXPRESS_PRE_PARSED.name, () => {
  it('takes the body express.json() already parsed, and validates it the same way', async () => {
    const { seen, onChatbot } = recorder();
    const receiver = await EXPRESS_PRE_PARSED.mount({ onChatbot });
    expect((await receiver.send(post('/webhooks/chatbot'))).body).toEqual({ received: true });
    expectJsonError(
      await receiver.send(post('/webhooks/chatbot', '{"eventId":"x"}')),
      400,
      'invalid_payload',
    );
    await receiver.controls.idle();
    expect(seen).toEqual([fixtures.chatbot.v2.INCOMING.eventId]);
  });
});
