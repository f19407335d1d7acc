import { COMPONENT_REF, CREDENTIAL_FREE, usedComponents, type JsonSchema } from './json-schema.js';

/*
 * The OpenAPI 3.1 document of the platform interface: the operations the interface documentation
 * shows (and the emulator serves) and the webhooks it pushes, around the schemas of
 * json-schema.ts. The operations are data written from the documentation; every schema is a
 * $ref to a component generated from src/schemas.
 *
 * Conventions (also in the document's info.description and docs/openapi.md):
 * - What the documentation leaves "not shown" stays unspecified: a response whose body is not
 *   shown has no schema (its description says what the emulator answers); v2 chat termination
 *   (paths not shown) is not in the document.
 * - Credential-free operations (every non-deprecated one) answer with schemas that refuse the
 *   nine credential fields at any depth (Authentication point 7); deprecated operations are
 *   `deprecated: true` with `x-replaced-by` naming the replacement's operationId.
 * - Every operation has the documented 401 body; 403 and 409 where the documentation lists them
 *   (body not shown); `default` for anything else.
 */

/** Where the document's servers point. */
export interface OpenApiServerOptions {
  /** `{base_url}`, e.g. `http://127.0.0.1:4010`. */
  readonly baseUrl: string;
  /** `{messaging_prefix}` and `{chat_prefix}` (the emulator's `prefixes`). */
  readonly prefixes: { readonly messaging: string; readonly chat: string };
}

export interface OpenApiDocumentOptions {
  /**
   * One concrete server (the emulator serves its document this way). By default the servers are
   * templates over `{baseUrl}`, `{messagingPrefix}` and `{chatPrefix}`, with the emulator's
   * defaults as the variables' defaults.
   */
  readonly server?: OpenApiServerOptions | undefined;
}

/** An OpenAPI 3.1 document as plain JSON data. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: JsonSchema;
  readonly servers: readonly JsonSchema[];
  readonly security: readonly JsonSchema[];
  readonly tags: readonly JsonSchema[];
  readonly paths: Readonly<Record<string, JsonSchema>>;
  readonly webhooks: Readonly<Record<string, JsonSchema>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes: Readonly<Record<string, JsonSchema>>;
    readonly parameters: Readonly<Record<string, JsonSchema>>;
    readonly responses: Readonly<Record<string, JsonSchema>>;
  };
}

/** The interface version every documented operation carries (section Versioning). */
export const INTERFACE_VERSION = '3.0.0';
/** The address the emulator CLI's examples use: the servers' default `{baseUrl}`. */
const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

const TAGS = {
  config: 'Webhook configuration',
  numbers: 'Number lookup',
  users: 'Users',
  systemUsers: 'Users (deprecated SystemUsers)',
  liveChat: 'Live chat',
  webhooks: 'Webhooks',
} as const;
type Tag = (typeof TAGS)[keyof typeof TAGS];

const TAG_DESCRIPTIONS: Readonly<Record<Tag, string>> = {
  [TAGS.config]:
    'MessagingClientWebHook: a client default (messagingNumberId omitted or null) applies to every number without an ' +
    'override; an override (messagingNumberId set) applies to its number only. At most one default per client and one ' +
    'override per number; scope cannot change on update; an empty URL disables that webhook type.',
  [TAGS.numbers]:
    'Find the messagingNumberId of a number for a webhook override (the nested messagingNumber.id).',
  [TAGS.users]: 'User management, api/v1: credential-free records only.',
  [TAGS.systemUsers]:
    'The deprecated SystemUsers operations: they accept and return credential-bearing SystemUser records.',
  [TAGS.liveChat]: 'Chat participants: fetch one, and the deprecated terminate/reopen.',
  [TAGS.webhooks]:
    'What the platform POSTs to the URLs of the webhook configuration. Answer 200 OK within 5 seconds. ' +
    'Signing or verification of these requests: not shown.',
};

const ref = (name: string): JsonSchema => ({ $ref: `${COMPONENT_REF}${name}` });
const jsonContent = (schema?: JsonSchema): JsonSchema => ({
  'application/json': schema === undefined ? {} : { schema },
});
/** A credential-free body: the schema and Authentication point 7 together. */
const credentialFree = (schema: JsonSchema): JsonSchema => ({ allOf: [schema, ref(CREDENTIAL_FREE)] });

interface Response {
  readonly description: string;
  readonly schema?: JsonSchema;
}
/** A 200 answer with a documented body. */
const ok = (description: string, schema: JsonSchema): Response => ({ description, schema });
/** A 200 answer whose body the documentation does not show: no schema (credential-free if the operation is). */
const notShown = (description: string): Response => ({
  description: `Body not shown in the interface documentation. ${description}`,
});

interface OperationSpec {
  readonly id: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: Tag;
  /** A deprecated operation: the operationId of its replacement (null when that is not in the document). */
  readonly replacedBy?: string | null;
  readonly parameters?: readonly JsonSchema[];
  readonly body?: { readonly schema: string; readonly required?: boolean };
  readonly ok: Response;
  /** Documented error answers other than 401 (their body shape is not shown). */
  readonly errors?: { readonly 403?: string; readonly 409?: string };
}

function operation(spec: OperationSpec): JsonSchema {
  // Authentication point 7: only the deprecated operations return credential fields, so every
  // other 200 body refuses them, a body not shown included.
  const deprecated = spec.replacedBy !== undefined;
  let okSchema = spec.ok.schema;
  if (!deprecated) okSchema = okSchema === undefined ? ref(CREDENTIAL_FREE) : credentialFree(okSchema);
  const responses: JsonSchema = {
    '200': {
      description: deprecated ? spec.ok.description : `${spec.ok.description} Credential-free.`,
      content: jsonContent(okSchema),
    },
    '401': { $ref: '#/components/responses/Unauthorized' },
  };
  for (const status of ['403', '409'] as const) {
    const description = spec.errors?.[status];
    if (description !== undefined) {
      responses[status] = { description: `${description} Body not shown.`, content: jsonContent() };
    }
  }
  responses.default = { $ref: '#/components/responses/Other' };
  return {
    operationId: spec.id,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    ...(deprecated ? { deprecated: true } : {}),
    ...(typeof spec.replacedBy === 'string' ? { 'x-replaced-by': spec.replacedBy } : {}),
    ...(spec.parameters === undefined ? {} : { parameters: spec.parameters }),
    ...(spec.body === undefined
      ? {}
      : {
          requestBody: {
            required: spec.body.required ?? true,
            content: jsonContent(ref(spec.body.schema)),
          },
        }),
    responses,
  };
}

const query = (name: string, schema: JsonSchema, description: string, required = false): JsonSchema => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});
const pathId = (description: string): JsonSchema => ({
  name: 'id',
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', minLength: 1 },
});
const PAGING = [{ $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/size' }];
const arrayOf = (name: string): JsonSchema => ({ type: 'array', items: ref(name) });

const M = '/Messaging';
const WEBHOOK = `${M}/MessagingClientWebHook`;
const USERS = `${M}/api/v1/users`;
const SYSTEM_USERS = `${M}/SystemUsers`;

/** The paths under `{messaging_prefix}`. */
function messagingPaths(): Record<string, JsonSchema> {
  return {
    [WEBHOOK]: {
      post: operation({
        id: 'createWebhookConfig',
        summary: 'Create a webhook configuration',
        description:
          'Include messagingNumberId (the nested messagingNumber.id of the number lookup) for a per-number override; ' +
          'omit it for the client default. The number must belong to your client (scope rule 6).',
        tag: TAGS.config,
        body: { schema: 'WebhookConfigCreate' },
        ok: notShown('The emulator answers with the MessagingClientWebHook row.'),
        errors: {
          403: "messagingNumberId is not linked to the authenticated user's client.",
          409: 'A second client default, or a second override for the same number (scope rule 5).',
        },
      }),
      put: operation({
        id: 'updateWebhookConfig',
        summary: 'Update a webhook configuration',
        description:
          'Identified by id. An empty string in a URL field disables that type; messagingNumberId is ignored (scope rule 7: ' +
          'delete and recreate to change scope).',
        tag: TAGS.config,
        body: { schema: 'WebhookConfigUpdate' },
        ok: notShown('The emulator answers with the updated MessagingClientWebHook row.'),
      }),
    },
    [`${WEBHOOK}/getForCurrentLoginUser`]: {
      get: operation({
        id: 'getDefaultWebhookConfig',
        summary: 'Get the client default',
        description: "Returns only the client default configuration of the caller's client.",
        tag: TAGS.config,
        ok: notShown(
          'The emulator answers with the MessagingClientWebHook row, or 404 when there is no default.',
        ),
      }),
    },
    [`${WEBHOOK}/list`]: {
      get: operation({
        id: 'listWebhookConfigs',
        summary: 'List webhook configurations',
        description:
          'A Page of configurations: the default first, then overrides ordered by their phone number.',
        tag: TAGS.config,
        parameters: PAGING,
        ok: ok('The page.', ref('MessagingClientWebHookPage')),
      }),
    },
    [`${WEBHOOK}/{id}`]: {
      delete: operation({
        id: 'deleteWebhookConfig',
        summary: 'Delete a webhook configuration',
        description:
          'Deleting an override re-exposes its number to the client default; deleting the default keeps the overrides and ' +
          'stops events for every number without one (scope rule 8).',
        tag: TAGS.config,
        parameters: [pathId('The id of the configuration.')],
        ok: notShown('The emulator answers with the deleted MessagingClientWebHook row.'),
      }),
    },
    [`${M}/MessagingClientNumbers/getForCurrentLoginUser`]: {
      get: operation({
        id: 'lookupNumbers',
        summary: 'Number lookup',
        description:
          "The caller's numbers whose phone number contains searchString. Send content[].messagingNumber.id as " +
          'messagingNumberId, never the row id (the client-number link id).',
        tag: TAGS.numbers,
        parameters: [
          query(
            'searchString',
            { type: 'string' },
            'A partial match on the phone number; any fragment works (the emulator lists every number when it is empty).',
          ),
          ...PAGING,
        ],
        ok: ok('A page of number rows.', ref('MessagingClientNumberPage')),
      }),
    },
    ...userPaths(),
    ...systemUserPaths(),
  };
}

function userPaths(): Record<string, JsonSchema> {
  return {
    [`${USERS}/me`]: {
      get: operation({
        id: 'getMyProfile',
        summary: 'Get my profile',
        description: "The caller's own profile.",
        tag: TAGS.users,
        ok: ok('The caller as a UserResponse.', ref('UserResponse')),
      }),
    },
    [USERS]: {
      get: operation({
        id: 'listUsers',
        summary: 'List organization users',
        description:
          "UserSummary records of the caller's client (the client comes from the authentication context).",
        tag: TAGS.users,
        ok: ok('The users.', arrayOf('UserSummary')),
      }),
      post: operation({
        id: 'createUser',
        summary: 'Create a user',
        description:
          'Takes no password: a one-time temporary password is generated and returned once, in this response; the user ' +
          'sets their own at first login. The client is clientRef, or the caller’s when omitted.',
        tag: TAGS.users,
        body: { schema: 'UserCreate' },
        ok: ok('The new user and its temporary password.', ref('UserCreatedResponse')),
      }),
      put: operation({
        id: 'updateUser',
        summary: 'Update a user',
        description: 'Identified by id; carries no credentials.',
        tag: TAGS.users,
        body: { schema: 'UserUpdate' },
        ok: ok('The updated user.', ref('UserResponse')),
      }),
    },
    [`${USERS}/{id}`]: {
      delete: operation({
        id: 'deleteUser',
        summary: 'Delete a user',
        description:
          'Soft delete: the user is disabled, signed out and removed from teams; the record is retained.',
        tag: TAGS.users,
        parameters: [pathId('The id of the user.')],
        ok: notShown('The emulator answers with the deleted user as a UserResponse.'),
      }),
    },
    [`${USERS}/page`]: {
      get: operation({
        id: 'listUsersPage',
        summary: 'List users (paginated)',
        description: 'A page of UserResponse for a client.',
        tag: TAGS.users,
        parameters: [
          query('clientRef', { type: 'string' }, "The client (default: the caller's)."),
          ...PAGING,
        ],
        ok: ok('The page.', ref('UserResponsePage')),
      }),
    },
    [`${USERS}/availability`]: {
      put: operation({
        id: 'changeAvailability',
        summary: 'Change availability',
        description: "Toggles the authenticated agent's online/offline status (availabilityStatus).",
        tag: TAGS.users,
        body: { schema: 'AvailabilityChange', required: false },
        ok: ok('The caller after the change.', ref('UserResponse')),
      }),
    },
    [`${USERS}/agent-chat-limit`]: {
      put: operation({
        id: 'setAgentChatLimit',
        summary: 'Set agent chat limit',
        description: 'Sets the maximum concurrent chats (agentChatLimit) of an agent for the given client.',
        tag: TAGS.users,
        body: { schema: 'AgentChatLimitChange' },
        ok: notShown('The emulator answers with the agent as a UserResponse.'),
      }),
    },
    [`${USERS}/me/password/change`]: {
      post: operation({
        id: 'changeMyPassword',
        summary: 'Change my password',
        description: 'Requires the old password, the new password and its confirmation.',
        tag: TAGS.users,
        body: { schema: 'PasswordChange' },
        ok: ok('Done.', ref('MessageResponse')),
      }),
    },
    [`${USERS}/me/credits`]: {
      get: operation({
        id: 'getMyCredits',
        summary: 'Get my credits',
        description: 'The credit balance of the authenticated caller.',
        tag: TAGS.users,
        ok: notShown("The emulator answers with the balances of the caller's Client."),
      }),
    },
  };
}

function systemUserPaths(): Record<string, JsonSchema> {
  return {
    [SYSTEM_USERS]: {
      post: operation({
        id: 'createSystemUser',
        summary: 'Create a user (deprecated)',
        description: 'Accepts and returns credential-bearing SystemUser fields.',
        tag: TAGS.systemUsers,
        replacedBy: 'createUser',
        body: { schema: 'SystemUserCreate' },
        ok: ok('The new user, credential-bearing.', ref('SystemUser')),
      }),
      put: operation({
        id: 'updateSystemUser',
        summary: 'Update a user (deprecated)',
        description: 'Accepts and returns credential-bearing fields.',
        tag: TAGS.systemUsers,
        replacedBy: 'updateUser',
        body: { schema: 'SystemUserUpdate' },
        ok: ok('The updated user, credential-bearing.', ref('SystemUser')),
      }),
    },
    [`${SYSTEM_USERS}/getCurrentLoginSystemUser`]: {
      get: operation({
        id: 'getCurrentLoginSystemUser',
        summary: 'Get the current user (deprecated)',
        description: 'Credential-bearing.',
        tag: TAGS.systemUsers,
        replacedBy: 'getMyProfile',
        ok: ok('The caller, credential-bearing.', ref('SystemUser')),
      }),
    },
    [`${SYSTEM_USERS}/getCurrentClientUsers`]: {
      get: operation({
        id: 'getCurrentClientUsers',
        summary: "Get the client's users (deprecated)",
        description: 'Supervisor-only: full SystemUser records.',
        tag: TAGS.systemUsers,
        replacedBy: 'listUsers',
        ok: ok('The users, credential-bearing.', arrayOf('SystemUser')),
        errors: { 403: 'The caller does not have the SUPERVISOR live-chat role.' },
      }),
    },
    [`${SYSTEM_USERS}/getUsersForClient`]: {
      get: operation({
        id: 'getUsersForClient',
        summary: 'Get users for a client, paginated (deprecated)',
        description: 'Credential-bearing SystemUser records of one client.',
        tag: TAGS.systemUsers,
        replacedBy: 'listUsersPage',
        parameters: [query('clientRef', { type: 'string' }, 'The client reference.', true), ...PAGING],
        ok: ok('content, totalElements, totalPages.', ref('UsersForClientPage')),
      }),
    },
    [`${SYSTEM_USERS}/changeAvailableStatus`]: {
      put: operation({
        id: 'changeAvailableStatus',
        summary: 'Change availability (deprecated)',
        description: "Toggles the authenticated agent's online/offline status; credential-bearing result.",
        tag: TAGS.systemUsers,
        replacedBy: 'changeAvailability',
        body: { schema: 'AvailabilityChange', required: false },
        ok: ok('The caller after the change, credential-bearing.', ref('SystemUser')),
      }),
    },
    [`${SYSTEM_USERS}/updateAgentChatLimit`]: {
      put: operation({
        id: 'updateAgentChatLimit',
        summary: 'Set agent chat limit (deprecated)',
        description: 'Behaviour identical to Set agent chat limit.',
        tag: TAGS.systemUsers,
        replacedBy: 'setAgentChatLimit',
        body: { schema: 'AgentChatLimitChange' },
        ok: notShown('The emulator answers like setAgentChatLimit (a UserResponse).'),
      }),
    },
    [`${SYSTEM_USERS}/changePassword`]: {
      post: operation({
        id: 'changePassword',
        summary: 'Change password (deprecated)',
        description: 'Behaviour identical to Change my password.',
        tag: TAGS.systemUsers,
        replacedBy: 'changeMyPassword',
        body: { schema: 'PasswordChange' },
        ok: ok('Done.', ref('MessageResponse')),
      }),
    },
    [`${SYSTEM_USERS}/getMessagingCreditsForCurrentLoginUser`]: {
      get: operation({
        id: 'getMessagingCreditsForCurrentLoginUser',
        summary: 'Get my credits (deprecated)',
        description: 'Behaviour identical to Get my credits.',
        tag: TAGS.systemUsers,
        replacedBy: 'getMyCredits',
        ok: notShown('The emulator answers like getMyCredits.'),
      }),
    },
  };
}

/** The paths under `{chat_prefix}`. */
function chatPaths(): Record<string, JsonSchema> {
  return {
    '/ChatParticipant': {
      get: operation({
        id: 'getChatParticipant',
        summary: 'Get a chat participant',
        description:
          'The participant record, to toggle conversationClosed and send back whole to the deprecated terminate ' +
          '(merge rule 4). The query parameter is not shown in the documentation; the emulator reads id.',
        tag: TAGS.liveChat,
        parameters: [query('id', { type: 'string', minLength: 1 }, 'The chat participant id.', true)],
        ok: ok('The participant (assignedTo and lastAssignedAgent included).', ref('ChatParticipant')),
      }),
    },
    '/ChatParticipant/terminateChatParticipantChat': {
      put: operation({
        id: 'terminateChatParticipantChat',
        summary: 'Terminate or reopen a chat (deprecated)',
        description:
          'conversationClosed true terminates, false reopens. Fetch the participant, toggle conversationClosed and send ' +
          'the complete object back: omitted flags become false and an omitted assignedTo clears the assignment. ' +
          'Terminating with sendRatingWidget true moves assignedTo to lastAssignedAgent, sets expectingRating and ' +
          'triggers the rating widget. Replaced by the v2 terminate and reopen operations (paths not shown).',
        tag: TAGS.liveChat,
        replacedBy: null,
        body: { schema: 'ChatParticipantTerminate' },
        ok: notShown('The emulator answers with the updated ChatParticipant (assignedTo as a SystemUser).'),
      }),
    },
  };
}

interface WebhookSpec {
  readonly type: 'incoming' | 'status' | 'session' | 'event' | 'chatbot';
  readonly urlField: string;
  readonly schema: string;
  readonly summary: string;
  readonly description: string;
  readonly payloadVersion?: 'v1' | 'v2';
}

const WEBHOOKS: Readonly<Record<string, WebhookSpec>> = {
  incomingMessage: {
    type: 'incoming',
    urlField: 'incomingMessageURL',
    schema: 'IncomingMessage',
    summary: 'Incoming message',
    description: 'A customer sends a message to your number.',
  },
  statusUpdate: {
    type: 'status',
    urlField: 'statusUpdateURL',
    schema: 'StatusUpdate',
    summary: 'Status update',
    description:
      'The delivery status of an outbound message changes (ACCEPTED → SENT → DELIVERED → READ → PLAYED, or FAILED).',
  },
  sessionStatus: {
    type: 'session',
    urlField: 'sessionStatusURL',
    schema: 'SessionStatus',
    summary: 'Session status',
    description: 'A Lite session connection state changes (Cloud numbers emit no session events).',
  },
  partnerEvent: {
    type: 'event',
    urlField: 'eventWebhookURL',
    schema: 'PartnerEvent',
    summary: 'Partner event',
    description: 'A platform-level event from the messaging provider.',
  },
  chatbotEventV1: {
    type: 'chatbot',
    urlField: 'chatbotWebhookURL',
    schema: 'ChatbotEventV1',
    payloadVersion: 'v1',
    summary: 'Chatbot conversation event, payload v1',
    description:
      'A chatbot conversation event, when the configuration has chatbotPayloadVersion v1 (or omitted or null: the ' +
      'default, deprecated). INCOMING always; OUTGOING with chatbotIncludeOutgoing; none while an agent is assigned with ' +
      'chatbotStopOnAgentAssignment.',
  },
  chatbotEventV2: {
    type: 'chatbot',
    urlField: 'chatbotWebhookURL',
    schema: 'ChatbotEventV2',
    payloadVersion: 'v2',
    summary: 'Chatbot conversation event, payload v2',
    description:
      'A chatbot conversation event, when the configuration has chatbotPayloadVersion v2: v1 plus team, quote and BSUID ' +
      'fields. Same flags as v1.',
  },
};

function webhooks(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(WEBHOOKS).map(([name, spec]) => [
      name,
      {
        post: {
          operationId: `${name}Webhook`,
          summary: spec.summary,
          description: `${spec.description} Sent to the configuration's ${spec.urlField}.`,
          tags: [TAGS.webhooks],
          security: [],
          'x-webhook-type': spec.type,
          'x-url-field': spec.urlField,
          ...(spec.payloadVersion === undefined ? {} : { 'x-chatbot-payload-version': spec.payloadVersion }),
          requestBody: { required: true, content: jsonContent(ref(spec.schema)) },
          responses: {
            '200': { description: 'Received. Answer 200 OK within 5 seconds; slower answers risk retries.' },
            '4XX': {
              description:
                'Not accepted: the platform counts any answer other than 200 as a failed delivery. Retry schedule and count: not shown.',
            },
          },
        },
      },
    ]),
  );
}

function servers(options: OpenApiDocumentOptions, prefix: 'messaging' | 'chat'): JsonSchema[] {
  if (options.server !== undefined) {
    const { baseUrl, prefixes } = options.server;
    return [{ url: `${baseUrl.replace(/\/+$/, '')}${prefixes[prefix]}`, description: 'This emulator.' }];
  }
  const variable = prefix === 'messaging' ? 'messagingPrefix' : 'chatPrefix';
  return [
    {
      url: `{baseUrl}{${variable}}`,
      description: `{base_url}{${prefix}_prefix} of the interface documentation.`,
      variables: {
        baseUrl: {
          default: DEFAULT_BASE_URL,
          description: "{base_url}: the platform's base URL (default: the emulator CLI's example address).",
        },
        [variable]: {
          default: prefix === 'messaging' ? '' : '/chat',
          description: `{${prefix}_prefix}: the path prefix of the ${prefix === 'messaging' ? 'messaging' : 'live-chat'} API (default: the emulator's).`,
        },
      },
    },
  ];
}

const RESPONSES: Readonly<Record<string, JsonSchema>> = {
  Unauthorized: {
    description: 'Missing or unknown API key.',
    content: jsonContent(ref('ErrorResponse')),
  },
  Other: {
    description:
      'Any other error: not shown in the interface documentation. The emulator answers 400 for a malformed request ' +
      'and 404 for an unknown id, with the 401 body plus code (and field on a 400).',
    content: jsonContent(),
  },
};

const DESCRIPTION = `The webhook configuration, number lookup, user-management and live-chat operations of the
messaging platform, and the five webhooks it pushes (chatbot v1 and v2 as their own payloads).

Generated from the zod schemas of the messaging-webhooks package (src/schemas, src/openapi) at build
time: never edit it by hand.

- **Authentication**: every operation sends the developer key in the Authorization header, with no
  Bearer prefix (\`Authorization: <API_KEY>\`), and documents the 401 body.
- **Open enums**: where the receiver accepts values the documentation does not list, a field is
  \`anyOf\` of the documented \`enum\` and any string; a union of payload branches ends with a branch
  whose discriminator is \`not\` any documented value.
- **Not shown**: what the documentation does not show stays unspecified: such a response has no
  schema, and its description says what the emulator answers.
- **Credentials**: only the deprecated operations return credential fields; every other response
  schema refuses them at any depth (component CredentialFree).
- **Deprecated** operations are \`deprecated: true\`, with \`x-replaced-by\` naming the replacement.`;

/**
 * The OpenAPI 3.1 document of the platform interface, generated from the zod schemas. The build
 * writes it to `dist/openapi.json` (package export `messaging-webhooks/openapi.json`); the
 * emulator serves it at `/_emulator/openapi.json` with its own server.
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const chatServers = servers(options, 'chat');
  const chat = Object.fromEntries(
    Object.entries(chatPaths()).map(([path, item]) => [path, { servers: chatServers, ...item }]),
  );
  const paths = { ...messagingPaths(), ...chat };
  const responses = RESPONSES;
  const webhookItems = webhooks();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging platform interface',
      version: INTERFACE_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: servers(options, 'messaging'),
    security: [{ apikeyAuth: [] }],
    tags: Object.values(TAGS).map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths,
    webhooks: webhookItems,
    components: {
      schemas: usedComponents([paths, webhookItems, responses]),
      securitySchemes: {
        apikeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The developer key itself, with no Bearer prefix: `Authorization: <API_KEY>`.',
        },
      },
      parameters: {
        page: query('page', { type: 'integer', minimum: 0 }, 'Zero-based page index (default 0).'),
        size: query(
          'size',
          { type: 'integer', minimum: 1 },
          'Records per page. Default and maximum not shown; the emulator uses 20 and accepts up to 1000.',
        ),
      },
      responses,
    },
  };
}

/**
 * The document as an emulator serves it: one server, the emulator's address as the client sees
 * it (the Host header, else `emulator.url`) and its prefixes.
 */
export function servedOpenApiDocument(
  emulator: { readonly url: string | undefined; readonly prefixes: OpenApiServerOptions['prefixes'] },
  host: string | undefined,
): OpenApiDocument {
  const baseUrl = host === undefined ? (emulator.url ?? '') : `http://${host}`;
  return createOpenApiDocument({ server: { baseUrl, prefixes: emulator.prefixes } });
}
