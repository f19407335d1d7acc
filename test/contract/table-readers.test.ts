import request from 'supertest';
import { z } from 'zod';
import { createOperationSender } from '../../src/client/client.js';
import { PlatformError } from '../../src/client/index.js';
import { defineOperations, operationEntries, PLATFORM_OPERATIONS } from '../../src/contract/index.js';
import { createEmulator, DEFAULT_API_KEYS, type Emulator } from '../../src/emulator/index.js';
import { registerOperations, type OperationHandlers } from '../../src/emulator/http/operations.js';
import { openApiPaths } from '../../src/openapi/document.js';
import { CREDENTIAL_FIELDS, userResponseSchema } from '../../src/schemas/index.js';

/*
 * The operations table read three ways: the emulator routes exactly its rows, and a row of a
 * table of one's own (a media upload with a binary body) is served by its handler, called by
 * the client's sender and documented by the OpenAPI generator with nothing else written. With
 * `checkResponses`, an answer its row does not allow is a 500 naming the operation.
 */

const KEY = DEFAULT_API_KEYS.supervisor;

const TABLE = defineOperations({
  uploadMedia: {
    method: 'POST',
    prefix: 'chat',
    path: '/v2/uploads/{id}/media',
    auth: 'apiKey',
    tag: 'liveChat',
    summary: 'Upload media',
    description: 'Bytes in, a message out.',
    params: z.object({ id: z.string().min(1) }),
    query: z.object({ caption: z.string().optional() }),
    body: {
      type: 'binary',
      mediaTypes: ['image/png', 'application/octet-stream'],
      description: 'The bytes.',
    },
    // a schema no component names: documented in place
    response: { schema: z.object({ mediaUrl: z.string() }), description: 'Where the bytes are.' },
    emulatorChoice: { path: true, response: true },
  },
  leakyProfile: {
    method: 'GET',
    prefix: 'messaging',
    path: '/Messaging/test/leaky',
    auth: 'apiKey',
    tag: 'users',
    summary: 'A profile with a credential',
    description: 'Not deprecated: may not answer a credential field.',
    response: { schema: userResponseSchema, description: 'The profile.' },
  },
  legacyProfile: {
    method: 'GET',
    prefix: 'messaging',
    path: '/Messaging/test/legacy',
    auth: 'apiKey',
    tag: 'systemUsers',
    summary: 'A deprecated profile with a credential',
    description: 'Deprecated: may answer credential fields.',
    deprecated: { replacedBy: 'leakyProfile' },
    response: { schema: userResponseSchema, description: 'The profile.' },
  },
  brokenProfile: {
    method: 'GET',
    prefix: 'messaging',
    path: '/Messaging/test/broken',
    auth: 'apiKey',
    tag: 'users',
    summary: 'A profile without an id',
    description: 'Its answer breaks its schema.',
    response: { schema: userResponseSchema, description: 'The profile.' },
  },
});

const received: { bytes: number[]; type: string | undefined; id: string; caption: string | undefined }[] = [];
const HANDLERS: OperationHandlers<typeof TABLE> = {
  uploadMedia({ params, query, body, headers }) {
    received.push({ bytes: [...body], type: headers['content-type'], id: params.id, caption: query.caption });
    return { mediaUrl: `https://media.test/${params.id}/${body.length}` };
  },
  leakyProfile: ({ auth }) => ({ id: auth.user.id, apiKey: auth.user.apiKey }) as never,
  legacyProfile: ({ auth }) => ({ id: auth.user.id, apiKey: auth.user.apiKey }) as never,
  brokenProfile: () => ({ email: 'no-id@demo.test' }) as never,
};

/** An emulator serving TABLE beside the platform's operations, answers checked. */
function emulatorServingTable(): Emulator {
  return createEmulator({
    routeGroups: [
      (router, { prefixes }) =>
        registerOperations(router, prefixes, TABLE, HANDLERS, { checkResponses: true }),
    ],
  });
}

describe('the platform table', () => {
  it('the emulator routes exactly its operations, each with its method, path and authentication', async () => {
    const emulator = createEmulator({ messagingPrefix: '/api', chatPrefix: '/live' });
    const platform = emulator.router
      .routes()
      .filter((route) => !route.path.startsWith('/_emulator'))
      .map(({ method, path, auth }) => `${method} ${path} ${String(auth)}`);
    const rows = operationEntries().map(([, op]) => {
      const prefix = op.prefix === 'chat' ? '/live' : '/api';
      return `${op.method} ${prefix}${op.path.replace(/\{(\w+)\}/g, ':$1')} true`;
    });
    expect(platform.sort()).toEqual(rows.sort());
    expect(rows).toHaveLength(Object.keys(PLATFORM_OPERATIONS).length);
    await emulator.close();
  });
});

describe('a row of a table of its own', () => {
  let emulator: Emulator;
  beforeAll(() => {
    emulator = emulatorServingTable();
  });
  afterAll(() => emulator.close());

  it('a binary body: sent as bytes by the client, received as bytes by the handler, in process', async () => {
    const send = createOperationSender({
      base: 'http://emulator.local',
      prefixes: emulator.prefixes,
      apiKey: KEY,
      fetch: emulator.fetch,
    });
    const answer = await send(
      TABLE.uploadMedia,
      {
        params: { id: 'a b' },
        query: { caption: 'hi' },
        body: new Uint8Array([1, 2, 3]),
        contentType: 'image/png',
      },
      true,
    );
    expect(answer).toEqual({ mediaUrl: 'https://media.test/a b/3' });
    expect(received).toEqual([{ bytes: [1, 2, 3], type: 'image/png', id: 'a b', caption: 'hi' }]);
    // no bytes is a 400 naming the body; no key a 401, before the body is read
    const empty = await send(TABLE.uploadMedia, { params: { id: 'x' } }, true).catch((e: unknown) => e);
    expect(empty).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', field: 'body' } });
    const anonymous = await request(emulator.listener).post('/chat/v2/uploads/x/media').send('bytes');
    expect(anonymous.status).toBe(401);
  });

  it('is documented: its path, its parameters and its binary body under each media type', () => {
    const paths = openApiPaths(TABLE, { messaging: '', chat: '/chat' });
    const upload = paths['/chat/v2/uploads/{id}/media']?.post as Record<string, unknown>;
    expect(upload).toMatchObject({
      operationId: 'uploadMedia',
      'x-emulator-choice': true,
      'x-path-template': '{chat_prefix}/v2/uploads/{id}/media',
      parameters: [
        { name: 'id', in: 'path', required: true },
        { name: 'caption', in: 'query', required: false },
      ],
      requestBody: {
        required: true,
        content: {
          'image/png': { schema: { type: 'string', format: 'binary' } },
          'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        },
      },
    });
    // its answer, named by no component, is written in place, credential fields refused
    const answer = (upload.responses as Record<string, { content: Record<string, { schema: unknown }> }>)[
      '200'
    ];
    expect(answer?.content['application/json']?.schema).toEqual({
      type: 'object',
      properties: { mediaUrl: { type: 'string' } },
      required: ['mediaUrl'],
      propertyNames: { not: { enum: [...CREDENTIAL_FIELDS] } },
    });
  });

  it('checkResponses: a credential field in a non-deprecated answer is a 500 naming the operation and field', async () => {
    const leaky = await request(emulator.listener).get('/Messaging/test/leaky').set('authorization', KEY);
    expect(leaky.status).toBe(500);
    expect(leaky.body).toMatchObject({ code: 'INTERNAL', field: 'apiKey' });
    expect(leaky.body.message).toMatch(/^leakyProfile answered the credential field apiKey/);
    // a deprecated operation may answer one
    const legacy = await request(emulator.listener).get('/Messaging/test/legacy').set('authorization', KEY);
    expect(legacy.status).toBe(200);
    expect(legacy.body).toMatchObject({ apiKey: KEY });
  });

  it('checkResponses: an answer its response schema refuses is a 500 naming the operation and field', async () => {
    const broken = await request(emulator.listener).get('/Messaging/test/broken').set('authorization', KEY);
    expect(broken.status).toBe(500);
    expect(broken.body).toMatchObject({ code: 'INTERNAL', field: 'id' });
    expect(broken.body.message).toMatch(/^brokenProfile answered a body its response schema refuses at id/);
  });
});

describe('checkResponses', () => {
  /** A stored configuration whose URL the response schema refuses (only a bug could store one). */
  function storeBrokenDefault(emulator: Emulator): void {
    const clientId = emulator.describe().clients.find((c) => c.clientRef === 'demo')?.id ?? '';
    emulator.state.putWebhookConfig({
      id: 'broken',
      clientId,
      messagingNumberId: null,
      messagingNumberMsisdn: null,
      incomingMessageURL: 'ftp://not-http.test',
      chatbotIncludeOutgoing: false,
      chatbotStopOnAgentAssignment: false,
      chatbotPayloadVersion: null,
    });
  }

  it('is on by default under a test runner (NODE_ENV test): the emulator answers 500, not the broken row', async () => {
    expect(process.env.NODE_ENV).toBe('test');
    const emulator = createEmulator();
    storeBrokenDefault(emulator);
    const error = await emulator
      .client(KEY)
      .webhooks.getDefault()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, body: { code: 'INTERNAL', field: 'incomingMessageURL' } });
    await emulator.close();
  });

  it('off, the broken row goes out and the client refuses it', async () => {
    const emulator = createEmulator({ checkResponses: false });
    storeBrokenDefault(emulator);
    const error = await emulator
      .client(KEY)
      .webhooks.getDefault()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 200, code: 'INVALID_RESPONSE' });
    await emulator.close();
  });

  it('refuses a value that is not a boolean', () => {
    expect(() => createEmulator({ checkResponses: 'yes' as never })).toThrow(
      /checkResponses must be a boolean, got "yes"/,
    );
  });
});

it('a PlatformError carries the emulator’s answer through the in-process fetch', async () => {
  const emulator = createEmulator();
  const error = await emulator
    .client('not-a-key')
    .users.me()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PlatformError);
  expect(error).toMatchObject({ status: 401, body: { status: 'ERROR', code: 'UNAUTHORIZED' } });
  await emulator.close();
});
