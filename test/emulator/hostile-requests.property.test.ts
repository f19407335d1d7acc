/*
 * The emulator as an attacker meets it: every route of its table (the `/_emulator` control surface
 * and the platform API, as `GET /_emulator` lists them) and the inspector's JSON and HTML paths,
 * driven with generated hostile values: huge, negative and NaN-like numbers, deep nesting,
 * control characters, lone surrogates, long strings, odd keys (`__proto__`), odd path segments,
 * query strings, `Host` and `Authorization` headers, wrong methods, bodies that are not JSON.
 * Whatever comes in, the process stays up; every answer is a 2xx or a JSON error body with a
 * status below 500 and no stack; and the state stays valid: it can be snapshotted, serialised and
 * restored (in-process and over HTTP) after every run. Fixed seed (FC_SEED overrides); the run
 * counts are printed in the test names.
 */
import fc from 'fast-check';
import { validateHeaderValue } from 'node:http';
import request from 'supertest';
import type { z } from 'zod';
import {
  assignAgentInputSchema,
  botReplyInputSchema,
  createEmulator,
  customerMessageInputSchema,
  DEFAULT_API_KEYS,
  emulatorSeedSchema,
  emulatorSnapshotSchema,
  flagNumberInputSchema,
  messageStatusInputSchema,
  partnerEventInputSchema,
  sendMessageInputSchema,
  sessionChangeInputSchema,
  unassignAgentInputSchema,
  type Emulator,
} from '../../src/emulator/index.js';
import { faultProbabilitiesSchema, queuedFaultSchema } from '../../src/emulator/emit/faults.js';
import {
  agentChatLimitSchema,
  availabilityChangeSchema,
  chatParticipantTerminateSchema,
  passwordChangeSchema,
  systemUserCreateSchema,
  systemUserUpdateSchema,
  userCreateSchema,
  userUpdateSchema,
  webhookConfigCreateSchema,
  webhookConfigUpdateSchema,
} from '../../src/schemas/index.js';

const SEED = Number(process.env.FC_SEED ?? 35_0808);
/** Runs per route, and runs of the mixed sequences. */
const PER_ROUTE_RUNS = Number(process.env.FC_ROUTE_RUNS ?? 12);
const SEQUENCE_RUNS = Number(process.env.FC_SEQUENCE_RUNS ?? 60);

interface RouteSpec {
  readonly method: string;
  readonly path: string;
  /** An HTML page (sent with a browser's Accept). */
  readonly html?: boolean;
}

/** Every route of the table, as the emulator lists it, plus the inspector's own paths. */
const ROUTES: readonly RouteSpec[] = [
  ...createEmulator()
    .router.routes()
    .map(({ method, path }) => ({ method, path })),
  { method: 'GET', path: '/', html: true },
  { method: 'GET', path: '/_emulator', html: true },
  { method: 'GET', path: '/_emulator/inspector/view' },
  { method: 'GET', path: '/_emulator/inspector/state' },
  { method: 'GET', path: '/_emulator/inspector/log' },
  { method: 'GET', path: '/_emulator/inspector/deliveries/:id' },
];

const fieldsOf = (schema: z.ZodType): string[] =>
  'shape' in schema ? Object.keys((schema as unknown as { shape: object }).shape) : [];

/**
 * Each route's own body fields (from the schemas it validates with), so that a generated body
 * carries them half the time each and its hostile values reach the route past the first check.
 */
const ROUTE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'POST /_emulator/clock/advance': ['ms'],
  'POST /_emulator/clock': ['time'],
  'POST /_emulator/state': fieldsOf(emulatorSnapshotSchema),
  'POST /_emulator/reset': ['seed', ...fieldsOf(emulatorSeedSchema)],
  'POST /_emulator/customer-message': fieldsOf(customerMessageInputSchema),
  'POST /_emulator/bot-reply': fieldsOf(botReplyInputSchema),
  'POST /_emulator/assign-agent': fieldsOf(assignAgentInputSchema),
  'POST /_emulator/unassign-agent': fieldsOf(unassignAgentInputSchema),
  'POST /_emulator/messages': fieldsOf(sendMessageInputSchema),
  'POST /_emulator/messages/:gstId/status': fieldsOf(messageStatusInputSchema),
  'POST /_emulator/sessions': fieldsOf(sessionChangeInputSchema),
  'POST /_emulator/flag-number': fieldsOf(flagNumberInputSchema),
  'POST /_emulator/partner-events': [...fieldsOf(partnerEventInputSchema), 'qualityRating', 'templateName'],
  'POST /_emulator/faults': fieldsOf(queuedFaultSchema),
  'PUT /_emulator/faults/probabilities': fieldsOf(faultProbabilitiesSchema),
  'POST /Messaging/MessagingClientWebHook': fieldsOf(webhookConfigCreateSchema),
  'PUT /Messaging/MessagingClientWebHook': fieldsOf(webhookConfigUpdateSchema),
  'POST /Messaging/api/v1/users': fieldsOf(userCreateSchema),
  'PUT /Messaging/api/v1/users': fieldsOf(userUpdateSchema),
  'PUT /Messaging/api/v1/users/availability': fieldsOf(availabilityChangeSchema),
  'PUT /Messaging/api/v1/users/agent-chat-limit': fieldsOf(agentChatLimitSchema),
  'POST /Messaging/api/v1/users/me/password/change': fieldsOf(passwordChangeSchema),
  'POST /Messaging/SystemUsers': fieldsOf(systemUserCreateSchema),
  'PUT /Messaging/SystemUsers': fieldsOf(systemUserUpdateSchema),
  'PUT /chat/ChatParticipant/terminateChatParticipantChat': fieldsOf(chatParticipantTerminateSchema),
};

/** Field names the routes' schemas read, so generated bodies reach past the first check. */
const KEYS = [
  ...['number', 'from', 'text', 'contentType', 'latitude', 'longitude', 'caption', 'url'],
  ...['chatParticipantId', 'messageText', 'userId', 'teamId', 'notify', 'to', 'template', 'voice'],
  ...['gstId', 'status', 'errorCode', 'errorCodeString', 'statusType', 'durationMs', 'eventType'],
  ...['messagingNumber', 'timestamp', 'templateName', 'templateStatus', 'waId', 'oldNumber'],
  ...['faults', 'undocumented', 'ms', 'time', 'seed', 'fault', 'kind', 'type', 'count', 'attempts'],
  ...['delayMs', 'duplicate', 'outOfOrder', 'delay', 'fail', 'version', 'clock', 'clients', 'users'],
  ...['teams', 'numbers', 'webhookConfigs', 'chatParticipants', 'messages', 'ratingWidgets'],
  ...['seedKeys', 'masked', 'id', 'messagingNumberId', 'incomingMessageURL', 'statusUpdateURL'],
  ...['sessionStatusURL', 'eventWebhookURL', 'chatbotWebhookURL', 'chatbotIncludeOutgoing'],
  ...['chatbotStopOnAgentAssignment', 'chatbotPayloadVersion', 'email', 'firstName', 'lastName'],
  ...['apiKey', 'password', 'newPassword', 'oldPassword', 'liveChatRole', 'role', 'clientRef'],
  ...['availabilityStatus', 'agentChatLimit', 'session', 'flaggedUntil', 'kind', 'msisdn'],
  ...['__proto__', 'constructor', 'prototype', ''],
];
const QUERY_KEYS = ['page', 'size', 'limit', 'cursor', 'order', 'open', 'status', 'type', 'state'];

/** Numbers a schema might take at face value. */
const hostileNumber = fc.oneof(
  fc.constantFrom(
    1e300,
    -1e300,
    8.64e15,
    8.64e15 + 1,
    -8.64e15 - 1,
    9e15,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    -0,
    2 ** 53 + 1,
    2 ** 31,
    2 ** 32,
    -1,
    0,
    0.5,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
/** JSON has no NaN or Infinity: their spellings as strings, and numbers as strings. */
const nanLike = fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e300', '-0', '0x10', ' 1', '');
/** Control characters, C1, line separators, bidi overrides, lone surrogates. */
const controlString = fc.string({
  unit: fc.constantFrom(
    '\u0000',
    '\u0007',
    '\u001b',
    '\n',
    '\r',
    '\u007f',
    '\u009b',
    '\u2028',
    '\u202e',
    '\ud800',
    'a',
    '[',
  ),
  maxLength: 12,
});
const longString = fc.integer({ min: 1_000, max: 40_000 }).map((n) => 'x'.repeat(n));
/** Values the emulator knows, so hostile requests reach real records (and self-addresses). */
const knownString = fc.constantFrom(
  '+27820000001',
  '+27820000002',
  '+27831234567',
  DEFAULT_API_KEYS.supervisor,
  '00000000-0000-4000-8000-000000000031',
  '00000000-0000-4000-8000-000000000041',
  '00000000-0000-4000-8000-000000000021',
  'http://127.0.0.1:9/in',
  'http://localhost:SELF/_emulator/reset',
  'http://127.0.0.1:SELF/_emulator/partner-events',
  'v2',
  'DELIVERED',
  'PHONE_QUALITY_CHANGED',
  'duplicate',
  'default',
  'empty',
  '../..',
  '%00',
);
const leaf = fc.oneof(
  { arbitrary: hostileNumber, weight: 4 },
  { arbitrary: nanLike, weight: 1 },
  { arbitrary: controlString, weight: 3 },
  { arbitrary: longString, weight: 1 },
  { arbitrary: knownString, weight: 4 },
  { arbitrary: fc.string({ maxLength: 8 }), weight: 2 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
);
const key = fc.oneof(
  { arbitrary: fc.constantFrom(...KEYS), weight: 5 },
  { arbitrary: controlString, weight: 1 },
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
}));
/** A value nested `depth` deep (arrays or objects), built without recursion. */
const deep = fc
  .tuple(fc.integer({ min: 20, max: 200 }), fc.constantFrom(...KEYS), fc.boolean())
  .map(([depth, field, arrays]) => {
    let inner: unknown = 1;
    for (let i = 0; i < depth; i += 1) inner = arrays ? [inner] : { [field]: inner };
    return { [field]: inner };
  });

/**
 * A request body for `route`: JSON of an object carrying the route's own fields (each half the
 * time) and others, with hostile values; a deep one; or text that is not what it claims.
 */
const bodyFor = (route: RouteSpec): fc.Arbitrary<string> => {
  const own = ROUTE_FIELDS[`${route.method} ${route.path}`] ?? [];
  const fields = fc.record(Object.fromEntries(own.map((field) => [field, value])), { requiredKeys: [] });
  return fc.oneof(
    {
      arbitrary: fc
        .tuple(fields, fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 }))
        .map(([mine, others]) => JSON.stringify({ ...others, ...mine })),
      weight: 10,
    },
    { arbitrary: body, weight: 4 },
  );
};

/** A request body: JSON of a hostile object, a deep one, or text that is not what it claims. */
const body = fc.oneof(
  {
    arbitrary: fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 8 }).map((v) => JSON.stringify(v)),
    weight: 8,
  },
  { arbitrary: deep.map((v) => JSON.stringify(v)), weight: 2 },
  { arbitrary: value.map((v) => JSON.stringify(v) ?? 'null'), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '"x"',
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      `{"version":1,"users":[{"profile":${'['.repeat(50_000)}1${']'.repeat(50_000)}}]}`,
    ),
    weight: 2,
  },
);

/**
 * Percent-encoding of any string: a lone surrogate (which encodeURIComponent refuses) becomes its
 * generalised UTF-8 bytes, `%ED%A0%80` for U+D800: invalid UTF-8 on the wire, as an attacker sends.
 */
function encodeAny(text: string): string {
  return text.replace(/[\s\S]/gu, (char) => {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    }
    return encodeURIComponent(char);
  });
}

/** A path segment for a `:param`. */
const segment = fc.oneof(
  knownString.map(encodeAny),
  controlString.map(encodeAny),
  fc.constantFrom('%ZZ', '..', '%2e%2e', 'a%2Fb', '%00', 'x'.repeat(2000), '__proto__'),
);
// Short values: a request line past Node's header limit is answered 431 by node:http itself, before
// any listener runs (the emulator's own server answers it in JSON; supertest's does not).
const queryValue = fc.oneof(
  hostileNumber.map(String),
  nanLike,
  controlString,
  knownString,
  fc.constant('keys'),
);
const query = fc
  .array(fc.tuple(fc.constantFrom(...QUERY_KEYS, 'reveal'), queryValue), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeAny(v)}`).join('&'));
/** Host headers: the emulator's own, and ones a rebinding page or a confused client sends. */
const host = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      'localhost',
      '[::1]:1',
      'localhost:1@evil.example',
      'evil.example',
      'a'.repeat(300),
      ':',
      '[',
      'localhost:99999',
    ),
    weight: 1,
  },
);
const authorization = fc.oneof(
  { arbitrary: fc.constant(DEFAULT_API_KEYS.supervisor), weight: 5 },
  { arbitrary: fc.constantFrom(DEFAULT_API_KEYS.agent, DEFAULT_API_KEYS.otherClient), weight: 2 },
  {
    // under Node's 16 KiB header limit: past it node:http answers 431 before any listener runs
    arbitrary: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 20 }), fc.constant('k'.repeat(8_000))),
    weight: 1,
  },
);
const method = (route: RouteSpec) =>
  fc.oneof(
    { arbitrary: fc.constant(route.method), weight: 9 },
    { arbitrary: fc.constantFrom('PATCH', 'DELETE', 'PUT'), weight: 1 },
  );

interface HostileRequest {
  readonly method: string;
  readonly path: string;
  readonly html: boolean;
  readonly query: string;
  readonly body: string;
  readonly host: string | undefined;
  readonly authorization: string | undefined;
}

/** Counterexamples print abbreviated (a body may be 200,000 characters). */
const abbreviated = (hostile: HostileRequest): string =>
  JSON.stringify({
    ...hostile,
    path: hostile.path.slice(0, 120),
    query: hostile.query.slice(0, 120),
    authorization: hostile.authorization?.slice(0, 60),
    body:
      hostile.body.length > 300
        ? `${hostile.body.slice(0, 300)}… (${hostile.body.length} chars)`
        : hostile.body,
  });

const requestFor = (route: RouteSpec): fc.Arbitrary<HostileRequest> =>
  fc
    .record({
      method: method(route),
      path: fc.array(segment, { minLength: 4, maxLength: 4 }).map((segments) => {
        let i = 0;
        return route.path.replace(/:[A-Za-z]+/g, () => segments[i++ % segments.length]!);
      }),
      html: fc.constant(route.html === true),
      query,
      body: bodyFor(route),
      host,
      authorization,
    })
    .map((hostile) => Object.assign(hostile, { [fc.toStringMethod]: () => abbreviated(hostile) }));

/** A header value Node's client sends (generated ones it would refuse are dropped, not sent). */
const sendable = (name: string, header: string | undefined): string | undefined => {
  if (header === undefined) return undefined;
  try {
    validateHeaderValue(name, header);
    return header;
  } catch {
    return undefined;
  }
};

const STACK = /\n\s+at .+:\d+:\d+/;

async function send(emulator: Emulator, self: string, hostile: HostileRequest): Promise<void> {
  const agent = request(emulator.listener);
  const target = `${hostile.path}${hostile.query === '' ? '' : `?${hostile.query}`}`;
  let test = agent[hostile.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch'](target);
  test = test.set('accept', hostile.html ? 'text/html' : 'application/json');
  const hostHeader = sendable('host', hostile.host);
  if (hostHeader !== undefined) test = test.set('host', hostHeader);
  const key = sendable('authorization', hostile.authorization);
  if (key !== undefined) test = test.set('authorization', key);
  const text = hostile.body.replaceAll('SELF', self);
  const response =
    hostile.method === 'GET' ? await test : await test.set('content-type', 'application/json').send(text);
  const where = `${hostile.method} ${hostile.path.slice(0, 200)} → ${response.status} ${response.text.slice(0, 300)}`;
  expect([where, response.status >= 200 && response.status < 500]).toEqual([where, true]);
  expect([where, STACK.test(response.text)]).toEqual([where, false]);
  if (response.status >= 400) {
    expect([where, response.headers['content-type']]).toEqual([
      where,
      expect.stringMatching(/^application\/json/),
    ]);
    expect(response.body).toMatchObject({
      status: 'ERROR',
      code: expect.any(String),
      message: expect.any(String),
    });
  }
}

/** The state is still valid: it snapshots, serialises and restores, in-process and over HTTP. */
async function checkState(emulator: Emulator): Promise<void> {
  const settled = await emulator.idle({ timeoutMs: 5_000 });
  expect(settled.idle).toBe(true);
  const snapshot = emulator.snapshot();
  const text = JSON.stringify(snapshot);
  expect(() => createEmulator().restore(JSON.parse(text))).not.toThrow();
  const served = await request(emulator.listener).get('/_emulator/snapshot?reveal=keys');
  expect(served.status).toBe(200);
  const other = createEmulator();
  const restored = await request(other.listener).post('/_emulator/state').send(served.body);
  expect([restored.status, restored.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  await request(emulator.listener).get('/nope').expect(404);
}

async function hostileEmulator(): Promise<{ emulator: Emulator; self: string }> {
  const emulator = createEmulator({ retry: { attempts: 1 }, timeoutMs: 500, idleTimeoutMs: 5_000 });
  const url = await emulator.listen(0, '127.0.0.1');
  return { emulator, self: new URL(url).port };
}

describe(`hostile requests (fast-check seed ${SEED})`, () => {
  describe.each(ROUTES)(`$method $path (${PER_ROUTE_RUNS} runs)`, (route) => {
    it('answers a JSON error or success, stays up, and keeps a valid state', async () => {
      const { emulator, self } = await hostileEmulator();
      try {
        await fc.assert(
          fc.asyncProperty(requestFor(route), async (hostile) => {
            await send(emulator, self, hostile);
            await checkState(emulator);
          }),
          { seed: SEED, numRuns: PER_ROUTE_RUNS },
        );
      } finally {
        await emulator.close({ timeoutMs: 0 });
      }
    });
  });

  it(`sequences across every route (${SEQUENCE_RUNS} runs of up to 8 requests)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.constantFrom(...ROUTES).chain((route) => requestFor(route)),
          { minLength: 1, maxLength: 8 },
        ),
        async (requests) => {
          const { emulator, self } = await hostileEmulator();
          try {
            for (const hostile of requests) await send(emulator, self, hostile);
            await checkState(emulator);
          } finally {
            await emulator.close({ timeoutMs: 0 });
          }
        },
      ),
      { seed: SEED, numRuns: SEQUENCE_RUNS },
    );
  });
});
