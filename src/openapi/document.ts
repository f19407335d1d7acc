import { z } from 'zod';
import {
  mayReturnCredentials,
  operationPath,
  operationsWithPaths,
  PAGE_QUERY,
  type PathOverrides,
  type OperationTable,
  type OperationTag,
  type PathPrefixes,
  type PlatformOperation,
} from '../contract/index.js';
import {
  COMPONENT_REF,
  refuseCredentials,
  schemaRef,
  usedComponents,
  type JsonSchema,
} from './json-schema.js';

/*
 * The OpenAPI 3.1 document of the platform interface: the operations of the operations table
 * (src/contract: the ones the emulator serves and the typed client calls) and the webhooks the
 * platform pushes, around the components json-schema.ts generates from src/schemas. No path,
 * parameter or schema is written here; only the document's wording and conventions are.
 *
 * Conventions (also in the document's info.description and docs/openapi.md):
 * - The prefixes are folded into the paths (`/chat/ChatParticipant`), with one server,
 *   `{baseUrl}`: mock servers and generators ignore per-path servers. `x-path-template` keeps
 *   each path as the documentation writes it; `x-path-prefixes` says which values were folded.
 * - What the documentation does not show and the emulator chose (a path, a query parameter, a
 *   response body, an error body) is marked `x-emulator-choice: true` and has the emulator's
 *   schema, so a client checking responses holds against a mock of the document.
 * - Authentication point 7 is in the schemas: every object a non-deprecated operation answers
 *   with lists the credential fields as `not: {}`. Deprecated operations are `deprecated: true`
 *   with `x-replaced-by` naming the replacement's operationId.
 * - Every operation has the documented 401 body; 403 and 409 where the documentation lists
 *   them; `default` for anything else.
 */

/** Where the document's server points. */
export interface OpenApiServerOptions {
  /** `{base_url}`, e.g. `http://127.0.0.1:4010`. */
  readonly baseUrl: string;
  /** `{messaging_prefix}` and `{chat_prefix}` (the emulator's `prefixes`), folded into the paths. */
  readonly prefixes: PathPrefixes;
  /** The paths of the operations whose path is not shown, when moved (the emulator's `pathOverrides`). */
  readonly pathOverrides?: PathOverrides | undefined;
}

/** Options of {@link createOpenApiDocument}. */
export interface OpenApiDocumentOptions {
  /**
   * One concrete server and its prefixes (the emulator serves its document this way). By
   * default the server is a template over `{baseUrl}`, defaulting to the emulator CLI's
   * address, and the paths carry the emulator's default prefixes.
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
  readonly [extension: `x-${string}`]: unknown;
}

/** The interface version every documented operation carries (section Versioning). */
export const INTERFACE_VERSION = '3.0.0';
/** The address the emulator CLI's examples use: the server's default `{baseUrl}`. */
const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';
/** The emulator's default prefixes, folded into the paths of the document the package ships. */
const DEFAULT_PREFIXES: PathPrefixes = { messaging: '', chat: '/chat' };

const TAGS: Readonly<
  Record<OperationTag | 'webhooks', { readonly name: string; readonly description: string }>
> = {
  config: {
    name: 'Webhook configuration',
    description:
      'MessagingClientWebHook: a client default (messagingNumberId omitted or null) applies to every number without an ' +
      'override; an override (messagingNumberId set) applies to its number only. At most one default per client and one ' +
      'override per number; scope cannot change on update; an empty URL disables that webhook type.',
  },
  numbers: {
    name: 'Number lookup',
    description:
      'Find the messagingNumberId of a number for a webhook override (the nested messagingNumber.id).',
  },
  users: { name: 'Users', description: 'User management, api/v1: credential-free records only.' },
  systemUsers: {
    name: 'Users (deprecated SystemUsers)',
    description:
      'The deprecated SystemUsers operations: they accept and return credential-bearing SystemUser records.',
  },
  liveChat: {
    name: 'Live chat',
    description: 'Chat participants: fetch one, the deprecated terminate/reopen and its v2 replacements.',
  },
  webhooks: {
    name: 'Webhooks',
    description:
      'What the platform POSTs to the URLs of the webhook configuration. Answer 200 OK within 5 seconds. ' +
      'Signing or verification of these requests: not shown.',
  },
};

const ref = (name: string): JsonSchema => ({ $ref: `${COMPONENT_REF}${name}` });
const jsonContent = (schema?: JsonSchema): JsonSchema => ({
  'application/json': schema === undefined ? {} : { schema },
});
/** Marks an object as the emulator's choice where the documentation shows nothing. */
const CHOICE = { 'x-emulator-choice': true } as const;

/** A zod parameter schema as a parameter's JSON Schema (its description goes on the parameter). */
function parameterSchema(schema: z.ZodType): { schema: JsonSchema; description: string | undefined } {
  const {
    $schema: _schema,
    description,
    ...json
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
  }) as JsonSchema;
  return { schema: json, description: typeof description === 'string' ? description : undefined };
}

function parameters(operation: PlatformOperation): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [name, schema] of Object.entries(operation.params?.shape ?? {})) {
    const { schema: json, description } = parameterSchema(schema as z.ZodType);
    list.push({ name, in: 'path', required: true, description, schema: json });
  }
  for (const [name, schema] of Object.entries(operation.query?.shape ?? {})) {
    const shared = (Object.entries(PAGE_QUERY) as [string, unknown][]).find(([, page]) => page === schema);
    if (shared !== undefined) {
      list.push({ $ref: `#/components/parameters/${shared[0]}` });
      continue;
    }
    const { schema: json, description } = parameterSchema(schema as z.ZodType);
    list.push({
      name,
      in: 'query',
      required: !(schema as z.ZodType).safeParse(undefined).success,
      description,
      schema: json,
      ...(operation.emulatorChoice?.query?.includes(name) === true ? CHOICE : {}),
    });
  }
  return list;
}

function requestBody(operation: PlatformOperation): JsonSchema | undefined {
  const body = operation.body;
  if (body === undefined) return undefined;
  if (body.type === 'json') {
    return { required: body.required, content: jsonContent(schemaRef(body.schema)) };
  }
  const bytes = { schema: { type: 'string', format: 'binary' } };
  return {
    required: true,
    description: body.description,
    content: Object.fromEntries(body.mediaTypes.map((type) => [type, bytes])),
  };
}

function responses(id: string, operation: PlatformOperation): JsonSchema {
  const { response, emulatorChoice } = operation;
  const credentialFree = !mayReturnCredentials(operation);
  const description = [
    emulatorChoice?.response === true ? "Body not shown in the interface documentation: the emulator's." : '',
    response.description,
    credentialFree ? 'Credential-free.' : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
  const schema = schemaRef(response.schema);
  if (credentialFree) refuseCredentials(schema, `The 200 body of ${id}`);
  const answers: JsonSchema = {
    '200': {
      description,
      content: jsonContent(schema),
      ...(emulatorChoice?.response === true ? CHOICE : {}),
    },
    '401': { $ref: '#/components/responses/Unauthorized' },
  };
  for (const status of ['403', '409'] as const) {
    const text = operation.errors?.[status];
    if (text !== undefined) {
      answers[status] = {
        description: `${text} Body not shown; the emulator answers an EmulatorErrorResponse.`,
        content: jsonContent(ref('EmulatorErrorResponse')),
        ...CHOICE,
      };
    }
  }
  answers.default = { $ref: '#/components/responses/Other' };
  return answers;
}

function operationObject(id: string, operation: PlatformOperation): JsonSchema {
  const replacedBy = operation.deprecated?.replacedBy;
  const body = requestBody(operation);
  const list = parameters(operation);
  return {
    operationId: id,
    summary: operation.summary,
    description: operation.description,
    tags: [TAGS[operation.tag].name],
    ...(operation.deprecated === undefined ? {} : { deprecated: true }),
    ...(typeof replacedBy === 'string' ? { 'x-replaced-by': replacedBy } : {}),
    ...(operation.auth === 'none' ? { security: [] } : {}),
    'x-path-template': `{${operation.prefix}_prefix}${operation.path}`,
    ...(operation.emulatorChoice?.path === true ? CHOICE : {}),
    ...(list.length === 0 ? {} : { parameters: list }),
    ...(body === undefined ? {} : { requestBody: body }),
    responses: responses(id, operation),
  };
}

/**
 * The paths: every operation of `table`, its prefix folded into its path. The document's table
 * is the platform's; another table (a test's) gives its own paths.
 */
export function openApiPaths(table: OperationTable, prefixes: PathPrefixes): Record<string, JsonSchema> {
  const items: Record<string, JsonSchema> = {};
  for (const [id, operation] of Object.entries(table)) {
    const replacedBy = operation.deprecated?.replacedBy;
    if (typeof replacedBy === 'string' && !(replacedBy in table)) {
      throw new TypeError(`${id} is replaced by ${replacedBy}, which is not in the operations table`);
    }
    const path = operationPath(operation, prefixes);
    const item = (items[path] ??= {});
    item[operation.method.toLowerCase()] = operationObject(id, operation);
  }
  return items;
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
          tags: [TAGS.webhooks.name],
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

function servers(options: OpenApiDocumentOptions): JsonSchema[] {
  if (options.server !== undefined) {
    return [{ url: options.server.baseUrl.replace(/\/+$/, ''), description: 'This emulator.' }];
  }
  return [
    {
      url: '{baseUrl}',
      description:
        '{base_url} of the interface documentation. The paths carry the prefixes (x-path-prefixes): generate the ' +
        "document with your platform's prefixes if they differ.",
      variables: {
        baseUrl: {
          default: DEFAULT_BASE_URL,
          description: "{base_url}: the platform's base URL (default: the emulator CLI's example address).",
        },
      },
    },
  ];
}

/** A page/size parameter component, from the zod schema the emulator reads it with. */
function pageParameter(name: keyof typeof PAGE_QUERY): JsonSchema {
  const { schema, description } = parameterSchema(PAGE_QUERY[name]);
  // the maximum is the emulator's (not shown in the documentation): its description says so
  const { maximum: _maximum, ...bounds } = schema;
  return { name, in: 'query', required: false, description, schema: bounds };
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
    content: jsonContent(ref('EmulatorErrorResponse')),
    ...CHOICE,
  },
};

const DESCRIPTION = `The webhook configuration, number lookup, user-management and live-chat operations of the
messaging platform, and the five webhooks it pushes (chatbot v1 and v2 as their own payloads).

Generated from the operations table and the zod schemas of the messaging-webhooks package
(src/contract, src/schemas) at build time: never edit it by hand.

- **Authentication**: every operation sends the developer key in the Authorization header, with no
  Bearer prefix (\`Authorization: <API_KEY>\`), and documents the 401 body.
- **Prefixes**: \`{messaging_prefix}\` and \`{chat_prefix}\` are folded into the paths
  (\`x-path-prefixes\` gives their values, \`x-path-template\` each path as the documentation writes it);
  the server is \`{baseUrl}\`.
- **Open enums**: where the receiver accepts values the documentation does not list, a field is
  \`anyOf\` of the documented \`enum\` and any string; a union of payload branches ends with a branch
  whose discriminator is \`not\` any documented value.
- **Not shown**: what the documentation does not show (the v2 terminate/reopen paths, a query
  parameter, a response or error body) is the emulator's choice, marked \`x-emulator-choice: true\`,
  with the emulator's schema.
- **Credentials**: only the deprecated operations return credential fields; every object the other
  operations answer with lists them as \`not: {}\`.
- **Deprecated** operations are \`deprecated: true\`, with \`x-replaced-by\` naming the replacement.`;

/**
 * The OpenAPI 3.1 document of the platform interface, generated from the operations table and
 * the zod schemas. The build writes it to `dist/openapi.json` (package export
 * `messaging-webhooks/openapi.json`); the emulator serves it at `/_emulator/openapi.json` with
 * its own server and prefixes.
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): OpenApiDocument {
  const prefixes = options.server?.prefixes ?? DEFAULT_PREFIXES;
  const operations = operationsWithPaths(options.server?.pathOverrides, 'createOpenApiDocument');
  const pathItems = openApiPaths(operations, prefixes);
  const webhookItems = webhooks();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging platform interface',
      version: INTERFACE_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: servers(options),
    'x-path-prefixes': { messaging: prefixes.messaging, chat: prefixes.chat },
    security: [{ apikeyAuth: [] }],
    tags: Object.values(TAGS).map(({ name, description }) => ({ name, description })),
    paths: pathItems,
    webhooks: webhookItems,
    components: {
      schemas: usedComponents([pathItems, webhookItems, RESPONSES]),
      securitySchemes: {
        apikeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The developer key itself, with no Bearer prefix: `Authorization: <API_KEY>`.',
        },
      },
      parameters: { page: pageParameter('page'), size: pageParameter('size') },
      responses: RESPONSES,
    },
  };
}

/**
 * The document as an emulator serves it: one server, the emulator's address as the client sees
 * it (the Host header, else `emulator.url`), and its prefixes in the paths.
 */
export function servedOpenApiDocument(
  emulator: {
    readonly url: string | undefined;
    readonly prefixes: PathPrefixes;
    readonly pathOverrides?: PathOverrides | undefined;
  },
  host: string | undefined,
): OpenApiDocument {
  const baseUrl = host === undefined ? (emulator.url ?? '') : `http://${host}`;
  return createOpenApiDocument({
    server: { baseUrl, prefixes: emulator.prefixes, pathOverrides: emulator.pathOverrides },
  });
}
