import request from 'supertest';
import { createEmulator, DEFAULT_API_KEYS, type Emulator } from '../../src/emulator/index.js';
import type { OpenApiDocument } from '../../src/openapi/index.js';
import { CREDENTIAL_FIELDS } from '../../src/schemas/index.js';
import { documentValidator, errorsOf } from './validator.js';

/**
 * Every operation of the emulator driven through its HTTP API (in-process, supertest), success
 * and error answers, each response body validated with ajv against the response schema of its
 * operation in the OpenAPI document the emulator serves at /_emulator/openapi.json: the answer's
 * status when the operation documents it, else `default`. Request bodies the emulator accepts
 * are validated against the operation's requestBody schema too. The emulator also checks each
 * answer against the operations table itself (`checkResponses`: the response schema and the
 * credential rule at any depth). The last test checks that every operation of the document was
 * called, with its 200, its 401 and each documented 403 and 409.
 */

type Method = 'get' | 'post' | 'put' | 'delete';
interface Operation {
  readonly method: Method;
  /** The path, its prefix (`{messaging_prefix}` or `{chat_prefix}`) folded in. */
  readonly path: string;
  readonly spec: {
    readonly requestBody?: { readonly content: Record<string, { readonly schema?: object }> };
    readonly responses: Record<
      string,
      { readonly $ref?: string; readonly content?: Record<string, { schema?: object }> }
    >;
  };
}

const SUPERVISOR = DEFAULT_API_KEYS.supervisor;
const AGENT = DEFAULT_API_KEYS.agent;
const OTHER = DEFAULT_API_KEYS.otherClient;

let emulator: Emulator;
let document: OpenApiDocument;
let validatorOf: ReturnType<typeof documentValidator>;
const operations = new Map<string, Operation>();
/** operationId → statuses answered. */
const answered = new Map<string, Set<string>>();
const counts = { validated: 0, unspecified: 0, requestBodies: 0 };

beforeAll(async () => {
  emulator = createEmulator({ retry: { attempts: 1 }, checkResponses: true });
  const served = await request(emulator.listener).get('/_emulator/openapi.json').expect(200);
  document = served.body as OpenApiDocument;
  validatorOf = documentValidator(document);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, spec] of Object.entries(item)) {
      const op = spec as Operation['spec'] & { operationId: string };
      operations.set(op.operationId, { method: method as Method, path, spec: op });
    }
  }
});
afterAll(async () => {
  await emulator.close();
  if (process.env.OPENAPI_REPORT === '1') {
    process.stdout.write(
      `emulator responses: ${counts.validated} validated against a schema, ${counts.unspecified} against an unspecified body ` +
        `(not shown), ${counts.requestBodies} request bodies validated\n`,
    );
  }
});

/** A response body, as the tests read it. */
type Body = { readonly [key: string]: unknown };
const idOf = (body: Body): string => String(body.id);

interface Call {
  readonly key?: string | null;
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** The Content-Type of a binary body (a Buffer), sent as it is. */
  readonly contentType?: string;
}

/**
 * Calls an operation of the document on the emulator, expects `status`, and validates the answer
 * against the document. Resolves with the response body.
 */
async function call(operationId: string, status: number, options: Call = {}): Promise<Body> {
  const op = operations.get(operationId);
  if (op === undefined) throw new Error(`No operation ${operationId} in the document`);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(options.params?.[name] ?? ''),
  );
  let req = request(emulator.listener)[op.method](path);
  const key = options.key === undefined ? SUPERVISOR : options.key;
  if (key !== null) req = req.set('authorization', key);
  if (options.query !== undefined) req = req.query(options.query);
  if (options.contentType !== undefined) req = req.set('content-type', options.contentType);
  if (options.body !== undefined) req = req.send(options.body as object);
  const response = await req;
  expect({ operationId, status: response.status }).toEqual({ operationId, status });

  const answers = answered.get(operationId) ?? new Set<string>();
  answers.add(String(status));
  answered.set(operationId, answers);

  let documented = op.spec.responses[String(status)] ?? op.spec.responses.default;
  if (documented?.$ref !== undefined) {
    const name = documented.$ref.replace('#/components/responses/', '');
    documented = document.components.responses[name];
  }
  const media = documented?.content?.['application/json'];
  expect({ operationId, status, media: media !== undefined }).toEqual({ operationId, status, media: true });
  if (media?.schema === undefined) {
    counts.unspecified += 1;
  } else {
    const validate = validatorOf(media.schema);
    const valid = validate(response.body);
    expect({ operationId, status, valid, errors: errorsOf(validate) }).toEqual({
      operationId,
      status,
      valid: true,
      errors: '',
    });
    counts.validated += 1;
  }

  const requestSchema = op.spec.requestBody?.content['application/json']?.schema;
  if (status < 300 && options.body !== undefined && requestSchema !== undefined) {
    const validate = validatorOf(requestSchema);
    const valid = validate(options.body);
    expect({ operationId, request: valid, errors: errorsOf(validate) }).toEqual({
      operationId,
      request: true,
      errors: '',
    });
    counts.requestBodies += 1;
  }
  return response.body as Body;
}

/** Every operation answers 401, with the documented body, without a key, with an unknown key and with `Bearer <key>`. */
async function expectUnauthorized(operationId: string, options: Call = {}): Promise<void> {
  await call(operationId, 401, { ...options, key: null });
  await call(operationId, 401, { ...options, key: 'not-a-key' });
  await call(operationId, 401, { ...options, key: `Bearer ${SUPERVISOR}` });
}

describe('webhook configuration and number lookup', () => {
  let lite: { id: string; messagingNumber: { id: string } };
  let defaultId: string;
  let overrideId: string;

  it('lookupNumbers', async () => {
    const page = await call('lookupNumbers', 200, { query: { searchString: '0001' } });
    lite = (page.content as (typeof lite)[])[0] as typeof lite;
    await call('lookupNumbers', 200, { query: { searchString: '', page: '0', size: '5' } });
    await call('lookupNumbers', 400, { query: { size: 'many' } });
    await expectUnauthorized('lookupNumbers');
  });

  it('createWebhookConfig', async () => {
    const body = { incomingMessageURL: 'http://127.0.0.1:9/webhooks/incoming', chatbotPayloadVersion: 'v2' };
    defaultId = idOf(await call('createWebhookConfig', 200, { body }));
    await call('createWebhookConfig', 409, { body });
    await call('createWebhookConfig', 403, { body: { messagingNumberId: lite.id, statusUpdateURL: '' } });
    const override = {
      messagingNumberId: lite.messagingNumber.id,
      incomingMessageURL: '',
      chatbotWebhookURL: '',
    };
    overrideId = idOf(await call('createWebhookConfig', 200, { body: override }));
    await call('createWebhookConfig', 409, { body: override });
    await call('createWebhookConfig', 400, {
      key: OTHER,
      body: { incomingMessageURL: 'ftp://example.test/in' },
    });
    await expectUnauthorized('createWebhookConfig', { body });
  });

  it('updateWebhookConfig', async () => {
    await call('updateWebhookConfig', 200, {
      body: { id: defaultId, statusUpdateURL: '', chatbotIncludeOutgoing: true },
    });
    await call('updateWebhookConfig', 404, { body: { id: 'no-such-config', statusUpdateURL: '' } });
    await expectUnauthorized('updateWebhookConfig', { body: { id: defaultId } });
  });

  it('getDefaultWebhookConfig', async () => {
    await call('getDefaultWebhookConfig', 200);
    await call('getDefaultWebhookConfig', 404, { key: OTHER });
    await expectUnauthorized('getDefaultWebhookConfig');
  });

  it('listWebhookConfigs', async () => {
    const page = await call('listWebhookConfigs', 200, { query: { page: '0', size: '10' } });
    expect(page.content).toHaveLength(2);
    await call('listWebhookConfigs', 400, { query: { size: '0' } });
    await expectUnauthorized('listWebhookConfigs');
  });

  it('deleteWebhookConfig', async () => {
    await call('deleteWebhookConfig', 200, { params: { id: overrideId } });
    await call('deleteWebhookConfig', 404, { params: { id: overrideId } });
    await call('deleteWebhookConfig', 200, { params: { id: defaultId } });
    await expectUnauthorized('deleteWebhookConfig', { params: { id: defaultId } });
  });
});

describe('users, api/v1 (credential-free)', () => {
  let adaId: string;
  let newId: string;

  it('getMyProfile', async () => {
    await call('getMyProfile', 200);
    adaId = idOf(await call('getMyProfile', 200, { key: AGENT }));
    await expectUnauthorized('getMyProfile');
  });

  it('listUsers', async () => {
    await call('listUsers', 200);
    await expectUnauthorized('listUsers');
  });

  it('createUser', async () => {
    const body = { email: 'nia@demo.test', firstName: 'Nia', liveChatRole: 'AGENT', teamIds: [] };
    const created = await call('createUser', 200, { body });
    newId = idOf(created);
    await call('createUser', 409, { body });
    await call('createUser', 400, { body: { email: 'pw@demo.test', password: 'chosen' } });
    await call('createUser', 400, { body: { email: 'not-an-email' } });
    await expectUnauthorized('createUser', { body });
  });

  it('updateUser', async () => {
    await call('updateUser', 200, { body: { id: newId, lastName: 'Ncube', agentChatLimit: 2 } });
    await call('updateUser', 400, { body: { id: newId, apiKey: 'chosen-key' } });
    await call('updateUser', 404, { body: { id: 'no-such-user' } });
    await expectUnauthorized('updateUser', { body: { id: newId } });
  });

  it('listUsersPage', async () => {
    await call('listUsersPage', 200, { query: { page: '0', size: '2' } });
    await call('listUsersPage', 200, { query: { clientRef: 'demo' } });
    await call('listUsersPage', 403, { query: { clientRef: 'other' } });
    await expectUnauthorized('listUsersPage');
  });

  it('changeAvailability', async () => {
    await call('changeAvailability', 200, { key: AGENT });
    await call('changeAvailability', 200, { key: AGENT, body: { availabilityStatus: true } });
    await call('changeAvailability', 400, { key: AGENT, body: { availabilityStatus: 'online' } });
    await expectUnauthorized('changeAvailability');
  });

  it('setAgentChatLimit', async () => {
    await call('setAgentChatLimit', 200, { body: { userId: adaId, agentChatLimit: 3 } });
    await call('setAgentChatLimit', 404, { body: { userId: 'no-such-user', agentChatLimit: 3 } });
    await call('setAgentChatLimit', 400, { body: { userId: adaId, agentChatLimit: -1 } });
    await expectUnauthorized('setAgentChatLimit', { body: { userId: adaId, agentChatLimit: 3 } });
  });

  it('changeMyPassword', async () => {
    const change = { oldPassword: 'password', newPassword: 'n3w-secret', confirmNewPassword: 'n3w-secret' };
    await call('changeMyPassword', 200, { key: AGENT, body: change });
    await call('changeMyPassword', 400, {
      key: AGENT,
      body: { ...change, oldPassword: 'n3w-secret', confirmNewPassword: 'typo' },
    });
    await expectUnauthorized('changeMyPassword', { body: change });
  });

  it('getMyCredits', async () => {
    await call('getMyCredits', 200);
    await expectUnauthorized('getMyCredits');
  });

  it('deleteUser', async () => {
    await call('deleteUser', 200, { params: { id: newId } });
    await call('deleteUser', 404, { params: { id: newId } });
    await expectUnauthorized('deleteUser', { params: { id: newId } });
  });
});

describe('users, deprecated SystemUsers (credential-bearing)', () => {
  let legacyId: string;
  let adaId: string;

  it('createSystemUser', async () => {
    const created = await call('createSystemUser', 200, {
      body: { email: 'legacy@demo.test', password: 'pw-12345' },
    });
    legacyId = idOf(created);
    await expectUnauthorized('createSystemUser', { body: { email: 'x@demo.test' } });
  });

  it('updateSystemUser', async () => {
    await call('updateSystemUser', 200, { body: { id: legacyId, firstName: 'Lee', apiKey: 'legacy-key' } });
    await expectUnauthorized('updateSystemUser', { body: { id: legacyId } });
  });

  it('getCurrentLoginSystemUser', async () => {
    await call('getCurrentLoginSystemUser', 200);
    adaId = idOf(await call('getCurrentLoginSystemUser', 200, { key: AGENT }));
    await expectUnauthorized('getCurrentLoginSystemUser');
  });

  it('getCurrentClientUsers: supervisors only', async () => {
    await call('getCurrentClientUsers', 200);
    await call('getCurrentClientUsers', 403, { key: AGENT });
    await expectUnauthorized('getCurrentClientUsers');
  });

  it('getUsersForClient', async () => {
    await call('getUsersForClient', 200, { query: { clientRef: 'demo', page: '0', size: '3' } });
    await call('getUsersForClient', 400, { query: {} });
    await expectUnauthorized('getUsersForClient', { query: { clientRef: 'demo' } });
  });

  it('changeAvailableStatus', async () => {
    await call('changeAvailableStatus', 200, { key: AGENT });
    await expectUnauthorized('changeAvailableStatus');
  });

  it('updateAgentChatLimit', async () => {
    await call('updateAgentChatLimit', 200, { body: { userId: adaId, agentChatLimit: 2 } });
    await expectUnauthorized('updateAgentChatLimit', { body: { userId: adaId, agentChatLimit: 2 } });
  });

  it('changePassword', async () => {
    const change = {
      oldPassword: 'n3w-secret',
      newPassword: 'n3w-secret-2',
      confirmNewPassword: 'n3w-secret-2',
    };
    await call('changePassword', 200, { key: AGENT, body: change });
    await expectUnauthorized('changePassword', { body: change });
  });

  it('getMessagingCreditsForCurrentLoginUser', async () => {
    await call('getMessagingCreditsForCurrentLoginUser', 200);
    await expectUnauthorized('getMessagingCreditsForCurrentLoginUser');
  });
});

describe('live chat', () => {
  let chatId: string;

  it('getChatParticipant: credential-free, the assigned agent included', async () => {
    // a chat of client "other" (no webhook configured there, so nothing is delivered)
    chatId = emulator.customerMessage({
      number: '+27830000001',
      from: '+27831234567',
      text: 'Hi',
    }).chatParticipantId;
    const olga = await call('getMyProfile', 200, { key: OTHER });
    emulator.assignAgent({ chatParticipantId: chatId, userId: idOf(olga) });
    const participant = await call('getChatParticipant', 200, { key: OTHER, query: { id: chatId } });
    expect(participant.assignedTo).toEqual(expect.objectContaining({ id: olga.id }));
    await call('getChatParticipant', 400, { key: OTHER, query: {} });
    await call('getChatParticipant', 404, { query: { id: chatId } });
    await expectUnauthorized('getChatParticipant', { query: { id: chatId } });
  });

  it('terminateChatParticipantChat: the fetched object sent back, toggled', async () => {
    const participant = await call('getChatParticipant', 200, { key: OTHER, query: { id: chatId } });
    await call('terminateChatParticipantChat', 200, {
      key: OTHER,
      body: { ...participant, conversationClosed: true, sendRatingWidget: true },
    });
    await call('terminateChatParticipantChat', 200, {
      key: OTHER,
      body: { id: chatId, conversationClosed: false },
    });
    await call('terminateChatParticipantChat', 400, { key: OTHER, body: { conversationClosed: true } });
    await expectUnauthorized('terminateChatParticipantChat', { body: { id: chatId } });
  });

  it('terminateChatParticipant (v2): credential-free; a second terminate is an illegal transition', async () => {
    const closed = await call('terminateChatParticipant', 200, { key: OTHER, params: { id: chatId } });
    expect(closed.conversationClosed).toBe(true);
    await call('terminateChatParticipant', 409, { key: OTHER, params: { id: chatId } });
    await call('terminateChatParticipant', 404, { params: { id: chatId } });
    await expectUnauthorized('terminateChatParticipant', { params: { id: chatId } });
  });

  it('reopenChatParticipant (v2): credential-free; reopening an open chat is an illegal transition', async () => {
    const reopened = await call('reopenChatParticipant', 200, { key: OTHER, params: { id: chatId } });
    expect(reopened.conversationClosed).toBe(false);
    await call('reopenChatParticipant', 409, { key: OTHER, params: { id: chatId } });
    await expectUnauthorized('reopenChatParticipant', { params: { id: chatId } });
  });

  it('uploadAgentMessageMedia (v2): the mediaUrl; 415 for an unlisted media type', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const upload = { query: { fileName: 'a.png' }, body: bytes, contentType: 'image/png' };
    const uploaded = await call('uploadAgentMessageMedia', 200, { key: OTHER, ...upload });
    expect(uploaded.mediaUrl).toEqual(expect.stringContaining('/_emulator/media/'));
    await call('uploadAgentMessageMedia', 415, { key: OTHER, ...upload, contentType: 'application/x-sh' });
    await call('uploadAgentMessageMedia', 400, { key: OTHER, ...upload, query: {} });
    await expectUnauthorized('uploadAgentMessageMedia', upload);
  });

  it('sendAgentMessage (v2): the message; 404 for another client’s chat, 409 for a closed one', async () => {
    const body = { chatParticipantId: chatId, channel: 'MESSAGING', text: 'Hello' };
    const sent = await call('sendAgentMessage', 200, { key: OTHER, body });
    expect(sent).toEqual(expect.objectContaining({ chatParticipantId: chatId, text: 'Hello' }));
    await call('sendAgentMessage', 404, { body });
    await call('sendAgentMessage', 400, {
      key: OTHER,
      body: { chatParticipantId: chatId, channel: 'MESSAGING' },
    });
    await expectUnauthorized('sendAgentMessage', { body });
    await call('terminateChatParticipant', 200, { key: OTHER, params: { id: chatId } });
    await call('sendAgentMessage', 409, { key: OTHER, body });
  });
});

describe('the document against the emulator', () => {
  it('refuses a credential-bearing record where an operation is credential-free (the check bites)', async () => {
    const systemUser = await call('getCurrentLoginSystemUser', 200);
    const profile =
      operations.get('getMyProfile')?.spec.responses['200']?.content?.['application/json']?.schema;
    const validate = validatorOf(profile as object);
    expect(validate(systemUser)).toBe(false);
    expect(errorsOf(validate)).toMatch(/must NOT be valid|boolean schema is false/);
    // the same record without its credential fields (and the nested Client carrying two) passes
    const dropped = new Set<string>([...CREDENTIAL_FIELDS, 'client']);
    const rest = Object.fromEntries(Object.entries(systemUser).filter(([key]) => !dropped.has(key)));
    expect(validate(rest)).toBe(true);
  });

  it('called every documented operation, with its 200, its 401 and each documented 403 and 409', () => {
    const missing: string[] = [];
    for (const [operationId, op] of operations) {
      const expected = ['200', '401', ...['403', '409'].filter((status) => status in op.spec.responses)];
      for (const status of expected)
        if (!answered.get(operationId)?.has(status)) missing.push(`${operationId} ${status}`);
    }
    expect(missing).toEqual([]);
    expect(operations.size).toBe(31);
  });
});
