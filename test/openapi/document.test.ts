import { createOpenApiDocument } from '../../src/openapi/index.js';
import { CREDENTIAL_FIELDS } from '../../src/schemas/resources.js';
import { ENUM_FIELDS } from '../../src/schemas/parse.js';
import { WEBHOOK_URL_FIELDS } from '../../src/schemas/webhook-types.js';
import { documentValidator } from './validator.js';

/**
 * The document against the interface documentation, table by table: the operations (section
 * Endpoints) with their deprecation, authentication (section Authentication), the 401 body and
 * the other documented errors (section Errors), the credential rule (Authentication point 7),
 * the webhooks (section Events) and the open enums; and the shape tools need: one server with
 * the prefixes folded into the paths, every schema branch typed, what the documentation does not
 * show marked as the emulator's choice.
 */
const document = createOpenApiDocument();
const validatorOf = documentValidator(document);

type Body = 'shown' | 'not shown';
/**
 * method, path (the emulator's default prefixes folded in: `{messaging_prefix}` '', `{chat_prefix}`
 * '/chat'), deprecated, whether the documentation shows the 200 body.
 */
const OPERATIONS: readonly (readonly [string, string, boolean, Body])[] = [
  // Webhook configuration: response bodies of create, update, get default and delete are not shown
  ['post', '/Messaging/MessagingClientWebHook', false, 'not shown'],
  ['put', '/Messaging/MessagingClientWebHook', false, 'not shown'],
  ['get', '/Messaging/MessagingClientWebHook/getForCurrentLoginUser', false, 'not shown'],
  ['get', '/Messaging/MessagingClientWebHook/list', false, 'shown'],
  ['delete', '/Messaging/MessagingClientWebHook/{id}', false, 'not shown'],
  ['get', '/Messaging/MessagingClientNumbers/getForCurrentLoginUser', false, 'shown'],
  // User management, credential-free operations
  ['get', '/Messaging/api/v1/users/me', false, 'shown'],
  ['get', '/Messaging/api/v1/users', false, 'shown'],
  ['post', '/Messaging/api/v1/users', false, 'shown'],
  ['put', '/Messaging/api/v1/users', false, 'shown'],
  ['delete', '/Messaging/api/v1/users/{id}', false, 'not shown'],
  ['get', '/Messaging/api/v1/users/page', false, 'shown'],
  ['put', '/Messaging/api/v1/users/availability', false, 'shown'],
  ['put', '/Messaging/api/v1/users/agent-chat-limit', false, 'not shown'],
  ['post', '/Messaging/api/v1/users/me/password/change', false, 'shown'],
  ['get', '/Messaging/api/v1/users/me/credits', false, 'not shown'],
  // User management, deprecated operations
  ['post', '/Messaging/SystemUsers', true, 'shown'],
  ['put', '/Messaging/SystemUsers', true, 'shown'],
  ['get', '/Messaging/SystemUsers/getCurrentLoginSystemUser', true, 'shown'],
  ['get', '/Messaging/SystemUsers/getCurrentClientUsers', true, 'shown'],
  ['get', '/Messaging/SystemUsers/getUsersForClient', true, 'shown'],
  ['put', '/Messaging/SystemUsers/changeAvailableStatus', true, 'shown'],
  ['put', '/Messaging/SystemUsers/updateAgentChatLimit', true, 'not shown'],
  ['post', '/Messaging/SystemUsers/changePassword', true, 'shown'],
  ['get', '/Messaging/SystemUsers/getMessagingCreditsForCurrentLoginUser', true, 'not shown'],
  // Live chat: the participant fetch of merge rule 4, and the deprecated terminate (200 body not shown)
  ['get', '/chat/ChatParticipant', false, 'shown'],
  ['put', '/chat/ChatParticipant/terminateChatParticipantChat', true, 'not shown'],
  // its v2 replacements: paths and bodies not shown (the emulator's)
  ['post', '/chat/v2/ChatParticipant/{id}/terminate', false, 'not shown'],
  ['post', '/chat/v2/ChatParticipant/{id}/reopen', false, 'not shown'],
  // Reply to a customer from a chatbot webhook (referenced): paths and bodies not shown
  ['post', '/chat/v2/AgentMessage', false, 'not shown'],
  ['post', '/chat/v2/AgentMessage/media', false, 'not shown'],
];
/** The operations whose path the documentation does not show. */
const PATH_NOT_SHOWN = [
  '/chat/v2/ChatParticipant/{id}/terminate',
  '/chat/v2/ChatParticipant/{id}/reopen',
  '/chat/v2/AgentMessage',
  '/chat/v2/AgentMessage/media',
];

type Json = { readonly [key: string]: unknown };
/** The value at `keys` under `value`, undefined where a step is missing. */
const at = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>(
    (node, key) => (typeof node === 'object' && node !== null ? (node as Json)[key] : undefined),
    value,
  );
const operation = (method: string, path: string): Json => at(document.paths, path, method) as Json;
const response = (method: string, path: string, status: string): unknown =>
  at(operation(method, path), 'responses', status);
const bodySchema = (answer: unknown): unknown => at(answer, 'content', 'application/json', 'schema');
const refersTo = (schema: unknown, target: object): boolean =>
  JSON.stringify(schema ?? null).includes(JSON.stringify(target));
const REFUSED = JSON.stringify({ not: { enum: CREDENTIAL_FIELDS } });

/** Every object schema `schema` reaches through its $refs, each with the component it is in. */
function objectsOf(schema: unknown): { component: string; node: Json }[] {
  const found: { component: string; node: Json }[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, component: string): void => {
    if (Array.isArray(node)) node.forEach((item) => visit(item, component));
    else if (typeof node === 'object' && node !== null) {
      const { $ref: target, type } = node as Json;
      if (typeof target === 'string') {
        const name = target.replace('#/components/schemas/', '');
        if (!seen.has(name)) {
          seen.add(name);
          visit(document.components.schemas[name], name);
        }
        return;
      }
      if (type === 'object') found.push({ component, node: node as Json });
      Object.values(node).forEach((child) => visit(child, component));
    }
  };
  visit(schema, '(inline)');
  return found;
}
/** True when every object `schema` reaches refuses the nine credential fields as property names. */
const refusesCredentials = (schema: unknown): boolean =>
  objectsOf(schema).every(({ node }) => JSON.stringify(node.propertyNames ?? null).includes(REFUSED));

describe('operations (section Endpoints)', () => {
  it('lists exactly the documented operations', () => {
    const listed = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'servers')
        .map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual(OPERATIONS.map(([method, path]) => `${method} ${path}`).sort());
  });

  it.each(OPERATIONS)('%s %s: deprecated %s', (method, path, deprecated) => {
    const op = operation(method, path);
    expect(op.deprecated === true).toBe(deprecated);
    const replacement = op['x-replaced-by'];
    if (replacement !== undefined) {
      const target = OPERATIONS.map(([m, p]) => operation(m, p)).find((o) => o.operationId === replacement);
      expect(target?.deprecated).toBeUndefined();
    }
  });

  it.each(OPERATIONS)('%s %s: the documented 401 body', (method, path) => {
    expect(response(method, path, '401')).toEqual({ $ref: '#/components/responses/Unauthorized' });
  });

  it.each(OPERATIONS)('%s %s: deprecated %s, 200 body %s', (method, path, deprecated, body) => {
    const answer = response(method, path, '200');
    const schema = bodySchema(answer);
    // every answer has a schema: the documented one, or the emulator's, marked as its choice
    expect(schema).toEqual(expect.objectContaining({}));
    expect(objectsOf(schema).length).toBeGreaterThan(0);
    if (body === 'not shown') {
      expect(at(answer, 'x-emulator-choice')).toBe(true);
      expect(at(answer, 'description')).toMatch(
        /^Body not shown in the interface documentation: the emulator's\./,
      );
    } else {
      expect(at(answer, 'x-emulator-choice')).toBeUndefined();
    }
    // Authentication point 7: every operation but the deprecated ones is credential-free
    if (!deprecated) expect(refusesCredentials(schema)).toBe(true);
  });

  it.each(OPERATIONS)(
    '%s %s: x-path-template keeps the prefix; the path is marked when not shown',
    (method, path) => {
      const op = operation(method, path);
      const template = String(op['x-path-template']);
      expect(template).toMatch(/^\{(messaging|chat)_prefix\}\//);
      const prefix = template.startsWith('{chat_prefix}') ? '/chat' : '';
      expect(template.replace(/^\{\w+_prefix\}/, prefix)).toBe(path);
      expect(op['x-emulator-choice']).toBe(PATH_NOT_SHOWN.includes(path) ? true : undefined);
    },
  );

  it.each([
    ['post', '/Messaging/SystemUsers'],
    ['put', '/Messaging/SystemUsers'],
    ['get', '/Messaging/SystemUsers/getCurrentLoginSystemUser'],
    ['get', '/Messaging/SystemUsers/getCurrentClientUsers'],
    ['get', '/Messaging/SystemUsers/getUsersForClient'],
    ['put', '/Messaging/SystemUsers/changeAvailableStatus'],
  ])('%s %s returns credential-bearing SystemUser records', (method, path) => {
    const schema = bodySchema(response(method, path, '200'));
    const page = document.components.schemas.UsersForClientPage;
    const systemUser = { $ref: '#/components/schemas/SystemUser' };
    expect(
      refersTo(schema, systemUser) ||
        (refersTo(schema, { $ref: '#/components/schemas/UsersForClientPage' }) && refersTo(page, systemUser)),
    ).toBe(true);
  });
});

describe('authentication and errors (sections Authentication and Errors)', () => {
  it('apikeyAuth is the Authorization header carrying the key itself, required by every operation', () => {
    expect(document.components.securitySchemes.apikeyAuth).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: expect.stringMatching(/no Bearer prefix/),
    });
    expect(document.security).toEqual([{ apikeyAuth: [] }]);
    for (const [method, path] of OPERATIONS) expect(operation(method, path).security).toBeUndefined();
  });

  it('the 401 body: status ERROR, message, requestId (UUID), timestamp (ISO 8601)', () => {
    const validate = validatorOf({ $ref: '#/components/schemas/ErrorResponse' });
    const body = {
      status: 'ERROR',
      message: 'Unauthorized user',
      requestId: '3f0c1b7e-2a4d-4e8f-9b6a-0c5d7e9f1a2b',
      timestamp: '2026-01-01T12:00:00.000Z',
    };
    expect(validate(body)).toBe(true);
    expect(validate({ ...body, status: 'FAIL' })).toBe(false);
    expect(validate({ ...body, requestId: 'r-1' })).toBe(false);
    expect(validate({ ...body, timestamp: 'yesterday' })).toBe(false);
    const { message: _message, ...withoutMessage } = body;
    expect(validate(withoutMessage)).toBe(false);
  });

  it.each([
    ['post', '/Messaging/MessagingClientWebHook', '403'],
    ['post', '/Messaging/MessagingClientWebHook', '409'],
    ['get', '/Messaging/SystemUsers/getCurrentClientUsers', '403'],
  ])("%s %s answers a documented %s, its body not shown: the emulator's", (method, path, status) => {
    const answer = response(method, path, status);
    expect(at(answer, 'description')).toMatch(/Body not shown/);
    expect(at(answer, 'x-emulator-choice')).toBe(true);
    expect(bodySchema(answer)).toEqual({ $ref: '#/components/schemas/EmulatorErrorResponse' });
  });

  it('the documented 403 and 409 are the only ones', () => {
    const listed = OPERATIONS.flatMap(([method, path]) =>
      ['403', '409']
        .filter((status) => response(method, path, status) !== undefined)
        .map((s) => `${method} ${path} ${s}`),
    );
    expect(listed).toEqual([
      'post /Messaging/MessagingClientWebHook 403',
      'post /Messaging/MessagingClientWebHook 409',
      'get /Messaging/SystemUsers/getCurrentClientUsers 403',
    ]);
  });
});

describe('the credential rule (Authentication point 7)', () => {
  const schemaOf = (method: string, path: string) =>
    validatorOf(bodySchema(response(method, path, '200')) as object);
  const profile = schemaOf('get', '/Messaging/api/v1/users/me');
  const participant = schemaOf('get', '/chat/ChatParticipant');
  const page = schemaOf('get', '/Messaging/api/v1/users/page');
  const summaries = schemaOf('get', '/Messaging/api/v1/users');
  const numbers = schemaOf('get', '/Messaging/MessagingClientNumbers/getForCurrentLoginUser');
  const paged = (content: unknown[]) => ({ content, totalElements: 1, totalPages: 1, number: 0, size: 20 });

  it.each(CREDENTIAL_FIELDS)(
    'credential-free answers refuse %s at the top level, nested and in arrays',
    (field) => {
      expect(profile({ id: 'u1', email: 'a@b.test' })).toBe(true);
      expect(profile({ id: 'u1', [field]: 'secret' })).toBe(false);
      expect(profile({ id: 'u1', [field]: null })).toBe(false);
      expect(participant({ id: 'c1', assignedTo: { id: 'u2' } })).toBe(true);
      expect(participant({ id: 'c1', assignedTo: { id: 'u2', [field]: '' } })).toBe(false);
      expect(participant({ id: 'c1', lastAssignedAgent: { id: 'u2', [field]: '' } })).toBe(false);
      expect(page(paged([{ id: 'u1' }]))).toBe(true);
      expect(page(paged([{ id: 'u1', [field]: 'x' }]))).toBe(false);
      expect(summaries([{ id: 'u1' }, { id: 'u2', [field]: 'x' }])).toBe(false);
      const row = { id: 'link', messagingNumber: { id: 'n1', number: '+27820000001' } };
      expect(numbers(paged([row]))).toBe(true);
      expect(numbers(paged([{ ...row, messagingNumber: { ...row.messagingNumber, [field]: 'x' } }]))).toBe(
        false,
      );
    },
  );

  it('credential-free schemas leave the credential fields out of their properties (generators see them absent)', () => {
    const credentialFree = OPERATIONS.filter(([, , deprecated]) => !deprecated).flatMap(([method, path]) =>
      objectsOf(bodySchema(response(method, path, '200'))),
    );
    const declared = credentialFree.flatMap(({ component, node }) =>
      CREDENTIAL_FIELDS.filter((field) => field in ((node.properties as Json | undefined) ?? {})).map(
        (field) => `${component}.${field}`,
      ),
    );
    expect(declared).toEqual([]);
  });
});

describe('the shape tools read', () => {
  it('one server, {baseUrl}; the prefixes folded into the paths; no per-path servers', () => {
    expect(document.servers).toEqual([
      expect.objectContaining({
        url: '{baseUrl}',
        variables: { baseUrl: expect.objectContaining({ default: 'http://127.0.0.1:4010' }) },
      }),
    ]);
    expect(document['x-path-prefixes']).toEqual({ messaging: '', chat: '/chat' });
    for (const item of Object.values(document.paths)) expect(item.servers).toBeUndefined();
  });

  it('every branch of every anyOf and oneOf is typed (a generator types an untyped branch as unknown)', () => {
    const untyped: string[] = [];
    const typed = (branch: Json): boolean =>
      typeof branch.type === 'string' ||
      Array.isArray(branch.type) ||
      typeof branch.$ref === 'string' ||
      (['anyOf', 'oneOf', 'allOf'] as const).some(
        (key) => Array.isArray(branch[key]) && (branch[key] as Json[]).every(typed),
      );
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}/${i}`));
      else if (typeof node === 'object' && node !== null) {
        for (const key of ['anyOf', 'oneOf'] as const) {
          const branches = (node as Json)[key];
          if (Array.isArray(branches)) {
            branches.forEach((branch: Json, i) => {
              if (!typed(branch)) untyped.push(`${path}/${key}/${i}`);
            });
          }
        }
        for (const [key, child] of Object.entries(node)) walk(child, `${path}/${key}`);
      }
    };
    walk(document, '#');
    expect(untyped).toEqual([]);
  });
});

describe('webhooks (section Events)', () => {
  it('has the five webhook types, chatbot v1 and v2 as their own payloads', () => {
    const webhooks = Object.values(document.webhooks).map((item) => at(item, 'post') as Json);
    expect(webhooks.map((op) => at(bodySchema(op.requestBody), '$ref'))).toEqual([
      '#/components/schemas/IncomingMessage',
      '#/components/schemas/StatusUpdate',
      '#/components/schemas/SessionStatus',
      '#/components/schemas/PartnerEvent',
      '#/components/schemas/ChatbotEventV1',
      '#/components/schemas/ChatbotEventV2',
    ]);
    expect(new Set(webhooks.map((op) => op['x-url-field']))).toEqual(
      new Set(Object.values(WEBHOOK_URL_FIELDS)),
    );
    expect(webhooks.map((op) => op['x-chatbot-payload-version'])).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      'v1',
      'v2',
    ]);
  });
});

describe('open enums', () => {
  /** Every schema in the document's components under a property named `field`. */
  function propertySchemas(field: string): Json[] {
    const found: Json[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        const property = at(node, 'properties', field);
        if (property !== undefined) found.push(property as Json);
        Object.values(node).forEach(walk);
      }
    };
    walk(document.components.schemas);
    return found;
  }
  const DISCRIMINATORS = new Set(['messageContentType', 'status', 'eventType', 'direction']);
  const rows = Object.entries(ENUM_FIELDS).flatMap(([type, table]) =>
    Object.entries(table).map(([field, values]) => [type, field, [...values]] as const),
  );

  it.each(rows)('%s %s: the documented values, and any other string', (_type, field, values) => {
    const text = propertySchemas(field).map((schema) => JSON.stringify(schema));
    const open = JSON.stringify({ anyOf: [{ type: 'string', enum: values }, { type: 'string' }] }).slice(
      1,
      -1,
    );
    const unlisted = JSON.stringify({ not: { enum: values } }).slice(1, -1);
    const discriminated = DISCRIMINATORS.has(field) && text.some((t) => t.includes(unlisted));
    expect({ field, open: text.some((t) => t.includes(open)) || discriminated }).toEqual({
      field,
      open: true,
    });
  });
});
