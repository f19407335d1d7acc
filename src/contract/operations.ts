import { z } from 'zod';
import {
  agentChatLimitSchema,
  availabilityChangeSchema,
  chatParticipantSchema,
  chatParticipantTerminateSchema,
  chatParticipantViewSchema,
  messageResponseSchema,
  passwordChangeSchema,
  systemUserCreateSchema,
  systemUserSchema,
  systemUserUpdateSchema,
  userCreatedResponseSchema,
  userCreateSchema,
  userCreditsSchema,
  userResponseSchema,
  usersForClientPageSchema,
  userSummarySchema,
  userUpdateSchema,
} from '../schemas/resources.js';
import {
  agentMessageSchema,
  sendAgentMessageRequestSchema,
  uploadMediaResponseSchema,
} from '../schemas/agent-message.js';
import {
  webhookConfigCreateSchema,
  webhookConfigSchema,
  webhookConfigUpdateSchema,
} from '../schemas/webhook-config.js';
import { defineOperations, type PlatformOperation } from './operation.js';
import { messagingClientNumberPageSchema, userResponsePageSchema, webhookConfigPageSchema } from './pages.js';
import { booleanQuery, PAGE_QUERY, requiredQuery } from './query.js';

/*
 * The platform API, one row per operation, in the order of the interface documentation's
 * section Endpoints: the emulator serves each row with a handler registered under its id
 * (src/emulator/routes), the typed client calls it (src/client), the OpenAPI document lists it
 * (src/openapi). Adding an operation is a row here and a handler there.
 *
 * Every documented operation takes `Authorization: <API_KEY>` and documents the 401 body.
 * Response bodies the documentation does not show are the emulator's (`emulatorChoice`); so
 * are the v2 terminate and reopen paths.
 */

const json = <S extends z.ZodType>(schema: S) => ({ type: 'json', schema, required: true }) as const;
const optionalJson = <S extends z.ZodType>(schema: S) => ({ type: 'json', schema, required: false }) as const;
const id = (description: string) => z.object({ id: z.string().min(1).describe(description) });

const WEBHOOK = '/Messaging/MessagingClientWebHook';
const USERS = '/Messaging/api/v1/users';
const SYSTEM_USERS = '/Messaging/SystemUsers';

/** The messaging API's common fields: under `{messaging_prefix}`, authenticated by API key. */
const messaging = { prefix: 'messaging', auth: 'apiKey' } as const;
/** The live-chat API's: under `{chat_prefix}`. */
const chat = { prefix: 'chat', auth: 'apiKey' } as const;

/**
 * Send an agent message (v2) and its media upload: paths not shown. Chosen beside the other v2
 * live-chat operations, under `{chat_prefix}`; `pathOverrides` (client and emulator) moves them.
 */
const AGENT_MESSAGE = '/v2/AgentMessage';

/**
 * The media types Upload media for an agent message (v2) accepts: not shown in the
 * documentation. Chosen: what the incoming MEDIA payload's examples name (pdf, jpg, mp4) and the
 * common image, video, audio and document types a messaging channel carries.
 */
export const AGENT_MEDIA_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'video/mp4',
  'video/3gpp',
  'audio/mpeg',
  'audio/mp4',
  'audio/aac',
  'audio/ogg',
  'audio/amr',
  'application/pdf',
  'text/plain',
  'application/octet-stream',
] as const;

/** Change availability's emulator extension: the value in the query when there is no body. */
const availabilityQuery = z.object({
  availabilityStatus: booleanQuery().describe(
    'Sets the value instead of toggling when the request has no body (the emulator’s extension).',
  ),
});

/** Every operation of the platform API, keyed by operation id. */
export const PLATFORM_OPERATIONS = defineOperations({
  // Webhook configuration: response bodies of create, update, get default and delete are not shown
  createWebhookConfig: {
    ...messaging,
    method: 'POST',
    path: WEBHOOK,
    tag: 'config',
    summary: 'Create a webhook configuration',
    description:
      'Include messagingNumberId (the nested messagingNumber.id of the number lookup) for a per-number override; ' +
      'omit it for the client default. The number must belong to your client (scope rule 6).',
    body: json(webhookConfigCreateSchema),
    response: { schema: webhookConfigSchema, description: 'The new MessagingClientWebHook row.' },
    errors: {
      403: "messagingNumberId is not linked to the authenticated user's client.",
      409: 'A second client default, or a second override for the same number (scope rule 5).',
    },
    emulatorChoice: { response: true },
  },
  updateWebhookConfig: {
    ...messaging,
    method: 'PUT',
    path: WEBHOOK,
    tag: 'config',
    summary: 'Update a webhook configuration',
    description:
      'Identified by id. An empty string in a URL field disables that type; messagingNumberId is ignored (scope rule 7: ' +
      'delete and recreate to change scope).',
    body: json(webhookConfigUpdateSchema),
    response: { schema: webhookConfigSchema, description: 'The updated MessagingClientWebHook row.' },
    emulatorChoice: { response: true },
  },
  getDefaultWebhookConfig: {
    ...messaging,
    method: 'GET',
    path: `${WEBHOOK}/getForCurrentLoginUser`,
    tag: 'config',
    summary: 'Get the client default',
    description:
      "Returns only the client default configuration of the caller's client (the emulator answers 404 when there is none).",
    response: { schema: webhookConfigSchema, description: 'The client default MessagingClientWebHook row.' },
    emulatorChoice: { response: true },
  },
  listWebhookConfigs: {
    ...messaging,
    method: 'GET',
    path: `${WEBHOOK}/list`,
    tag: 'config',
    summary: 'List webhook configurations',
    description: 'A Page of configurations: the default first, then overrides ordered by their phone number.',
    query: z.object(PAGE_QUERY),
    response: { schema: webhookConfigPageSchema, description: 'The page.' },
  },
  deleteWebhookConfig: {
    ...messaging,
    method: 'DELETE',
    path: `${WEBHOOK}/{id}`,
    tag: 'config',
    summary: 'Delete a webhook configuration',
    description:
      'Deleting an override re-exposes its number to the client default; deleting the default keeps the overrides and ' +
      'stops events for every number without one (scope rule 8).',
    params: id('The id of the configuration.'),
    response: { schema: webhookConfigSchema, description: 'The deleted MessagingClientWebHook row.' },
    emulatorChoice: { response: true },
  },

  lookupNumbers: {
    ...messaging,
    method: 'GET',
    path: '/Messaging/MessagingClientNumbers/getForCurrentLoginUser',
    tag: 'numbers',
    summary: 'Number lookup',
    description:
      "The caller's numbers whose phone number contains searchString. Send content[].messagingNumber.id as " +
      'messagingNumberId, never the row id (the client-number link id).',
    query: z.object({
      searchString: z
        .string()
        .optional()
        .describe(
          'A partial match on the phone number; any fragment works (the emulator lists every number when it is empty).',
        ),
      ...PAGE_QUERY,
    }),
    response: { schema: messagingClientNumberPageSchema, description: 'A page of number rows.' },
  },

  // User management, credential-free operations
  getMyProfile: {
    ...messaging,
    method: 'GET',
    path: `${USERS}/me`,
    tag: 'users',
    summary: 'Get my profile',
    description: "The caller's own profile.",
    response: { schema: userResponseSchema, description: 'The caller as a UserResponse.' },
  },
  listUsers: {
    ...messaging,
    method: 'GET',
    path: USERS,
    tag: 'users',
    summary: 'List organization users',
    description:
      "UserSummary records of the caller's client (the client comes from the authentication context).",
    response: { schema: z.array(userSummarySchema), description: 'The users.' },
  },
  createUser: {
    ...messaging,
    method: 'POST',
    path: USERS,
    tag: 'users',
    summary: 'Create a user',
    description:
      'Takes no password: a one-time temporary password is generated and returned once, in this response; the user ' +
      'sets their own at first login. The client is clientRef, or the caller’s when omitted.',
    body: json(userCreateSchema),
    response: { schema: userCreatedResponseSchema, description: 'The new user and its temporary password.' },
  },
  updateUser: {
    ...messaging,
    method: 'PUT',
    path: USERS,
    tag: 'users',
    summary: 'Update a user',
    description: 'Identified by id; carries no credentials.',
    body: json(userUpdateSchema),
    response: { schema: userResponseSchema, description: 'The updated user.' },
  },
  deleteUser: {
    ...messaging,
    method: 'DELETE',
    path: `${USERS}/{id}`,
    tag: 'users',
    summary: 'Delete a user',
    description:
      'Soft delete: the user is disabled, signed out and removed from teams; the record is retained.',
    params: id('The id of the user.'),
    response: { schema: userResponseSchema, description: 'The deleted user as a UserResponse.' },
    emulatorChoice: { response: true },
  },
  listUsersPage: {
    ...messaging,
    method: 'GET',
    path: `${USERS}/page`,
    tag: 'users',
    summary: 'List users (paginated)',
    description: 'A page of UserResponse for a client.',
    query: z.object({
      ...PAGE_QUERY,
      clientRef: z.string().optional().describe("The client (default: the caller's)."),
    }),
    response: { schema: userResponsePageSchema, description: 'The page.' },
  },
  changeAvailability: {
    ...messaging,
    method: 'PUT',
    path: `${USERS}/availability`,
    tag: 'users',
    summary: 'Change availability',
    description: "Toggles the authenticated agent's online/offline status (availabilityStatus).",
    query: availabilityQuery,
    body: optionalJson(availabilityChangeSchema),
    response: { schema: userResponseSchema, description: 'The caller after the change.' },
    emulatorChoice: { query: ['availabilityStatus'] },
  },
  setAgentChatLimit: {
    ...messaging,
    method: 'PUT',
    path: `${USERS}/agent-chat-limit`,
    tag: 'users',
    summary: 'Set agent chat limit',
    description: 'Sets the maximum concurrent chats (agentChatLimit) of an agent for the given client.',
    body: json(agentChatLimitSchema),
    response: { schema: userResponseSchema, description: 'The agent as a UserResponse.' },
    emulatorChoice: { response: true },
  },
  changeMyPassword: {
    ...messaging,
    method: 'POST',
    path: `${USERS}/me/password/change`,
    tag: 'users',
    summary: 'Change my password',
    description: 'Requires the old password, the new password and its confirmation.',
    body: json(passwordChangeSchema),
    response: { schema: messageResponseSchema, description: 'Done.' },
  },
  getMyCredits: {
    ...messaging,
    method: 'GET',
    path: `${USERS}/me/credits`,
    tag: 'users',
    summary: 'Get my credits',
    description: 'The credit balance of the authenticated caller.',
    response: { schema: userCreditsSchema, description: "The balances of the caller's Client." },
    emulatorChoice: { response: true },
  },

  // User management, deprecated operations: credential-bearing
  createSystemUser: {
    ...messaging,
    method: 'POST',
    path: SYSTEM_USERS,
    tag: 'systemUsers',
    summary: 'Create a user (deprecated)',
    description: 'Accepts and returns credential-bearing SystemUser fields.',
    deprecated: { replacedBy: 'createUser' },
    body: json(systemUserCreateSchema),
    response: { schema: systemUserSchema, description: 'The new user, credential-bearing.' },
  },
  updateSystemUser: {
    ...messaging,
    method: 'PUT',
    path: SYSTEM_USERS,
    tag: 'systemUsers',
    summary: 'Update a user (deprecated)',
    description: 'Accepts and returns credential-bearing fields.',
    deprecated: { replacedBy: 'updateUser' },
    body: json(systemUserUpdateSchema),
    response: { schema: systemUserSchema, description: 'The updated user, credential-bearing.' },
  },
  getCurrentLoginSystemUser: {
    ...messaging,
    method: 'GET',
    path: `${SYSTEM_USERS}/getCurrentLoginSystemUser`,
    tag: 'systemUsers',
    summary: 'Get the current user (deprecated)',
    description: 'Credential-bearing.',
    deprecated: { replacedBy: 'getMyProfile' },
    response: { schema: systemUserSchema, description: 'The caller, credential-bearing.' },
  },
  getCurrentClientUsers: {
    ...messaging,
    method: 'GET',
    path: `${SYSTEM_USERS}/getCurrentClientUsers`,
    tag: 'systemUsers',
    summary: "Get the client's users (deprecated)",
    description: 'Supervisor-only: full SystemUser records.',
    deprecated: { replacedBy: 'listUsers' },
    response: { schema: z.array(systemUserSchema), description: 'The users, credential-bearing.' },
    errors: { 403: 'The caller does not have the SUPERVISOR live-chat role.' },
  },
  getUsersForClient: {
    ...messaging,
    method: 'GET',
    path: `${SYSTEM_USERS}/getUsersForClient`,
    tag: 'systemUsers',
    summary: 'Get users for a client, paginated (deprecated)',
    description: 'Credential-bearing SystemUser records of one client.',
    deprecated: { replacedBy: 'listUsersPage' },
    query: z.object({ clientRef: requiredQuery().describe('The client reference.'), ...PAGE_QUERY }),
    response: { schema: usersForClientPageSchema, description: 'content, totalElements, totalPages.' },
  },
  changeAvailableStatus: {
    ...messaging,
    method: 'PUT',
    path: `${SYSTEM_USERS}/changeAvailableStatus`,
    tag: 'systemUsers',
    summary: 'Change availability (deprecated)',
    description: "Toggles the authenticated agent's online/offline status; credential-bearing result.",
    deprecated: { replacedBy: 'changeAvailability' },
    query: availabilityQuery,
    body: optionalJson(availabilityChangeSchema),
    response: { schema: systemUserSchema, description: 'The caller after the change, credential-bearing.' },
    emulatorChoice: { query: ['availabilityStatus'] },
  },
  updateAgentChatLimit: {
    ...messaging,
    method: 'PUT',
    path: `${SYSTEM_USERS}/updateAgentChatLimit`,
    tag: 'systemUsers',
    summary: 'Set agent chat limit (deprecated)',
    description: 'Behaviour identical to Set agent chat limit.',
    deprecated: { replacedBy: 'setAgentChatLimit' },
    body: json(agentChatLimitSchema),
    response: {
      schema: userResponseSchema,
      description: 'The agent as a UserResponse, like setAgentChatLimit.',
    },
    emulatorChoice: { response: true },
  },
  changePassword: {
    ...messaging,
    method: 'POST',
    path: `${SYSTEM_USERS}/changePassword`,
    tag: 'systemUsers',
    summary: 'Change password (deprecated)',
    description: 'Behaviour identical to Change my password.',
    deprecated: { replacedBy: 'changeMyPassword' },
    body: json(passwordChangeSchema),
    response: { schema: messageResponseSchema, description: 'Done.' },
  },
  getMessagingCreditsForCurrentLoginUser: {
    ...messaging,
    method: 'GET',
    path: `${SYSTEM_USERS}/getMessagingCreditsForCurrentLoginUser`,
    tag: 'systemUsers',
    summary: 'Get my credits (deprecated)',
    description: 'Behaviour identical to Get my credits.',
    deprecated: { replacedBy: 'getMyCredits' },
    response: {
      schema: userCreditsSchema,
      description: 'The balances of the caller’s Client, like getMyCredits.',
    },
    emulatorChoice: { response: true },
  },

  // Live chat
  getChatParticipant: {
    ...chat,
    method: 'GET',
    path: '/ChatParticipant',
    tag: 'liveChat',
    summary: 'Get a chat participant',
    description:
      'The participant record, to toggle conversationClosed and send back whole to the deprecated terminate ' +
      '(merge rule 4). The query parameter is not shown in the documentation; the emulator reads id.',
    query: z.object({
      id: requiredQuery('the chat participant id').describe('The chat participant id.'),
    }),
    response: {
      schema: chatParticipantViewSchema,
      description: 'The participant (assignedTo and lastAssignedAgent as credential-free user records).',
    },
    emulatorChoice: { query: ['id'] },
  },
  terminateChatParticipantChat: {
    ...chat,
    method: 'PUT',
    path: '/ChatParticipant/terminateChatParticipantChat',
    tag: 'liveChat',
    summary: 'Terminate or reopen a chat (deprecated)',
    description:
      'conversationClosed true terminates, false reopens. Fetch the participant, toggle conversationClosed and send ' +
      'the complete object back: omitted flags become false and an omitted assignedTo clears the assignment. ' +
      'Terminating with sendRatingWidget true moves assignedTo to lastAssignedAgent, sets expectingRating and ' +
      'triggers the rating widget. Replaced by terminateChatParticipant and reopenChatParticipant.',
    deprecated: { replacedBy: 'terminateChatParticipant' },
    body: json(chatParticipantTerminateSchema),
    response: {
      schema: chatParticipantSchema,
      description: 'The updated ChatParticipant (assignedTo as a credential-bearing SystemUser).',
    },
    emulatorChoice: { response: true },
  },
  terminateChatParticipant: {
    ...chat,
    method: 'POST',
    path: '/v2/ChatParticipant/{id}/terminate',
    tag: 'liveChat',
    summary: 'Terminate a chat (v2)',
    description:
      'Takes only the chat id; the actor (terminatedBy) is resolved from the API key. Triggers the rating widget when ' +
      'the stored sendRatingWidget is true. The emulator answers 409 ILLEGAL_TRANSITION when the chat is already closed.',
    params: id('The chat participant id.'),
    response: { schema: chatParticipantViewSchema, description: 'The closed participant.' },
    emulatorChoice: { path: true, response: true },
  },
  reopenChatParticipant: {
    ...chat,
    method: 'POST',
    path: '/v2/ChatParticipant/{id}/reopen',
    tag: 'liveChat',
    summary: 'Reopen a chat (v2)',
    description:
      'Takes only the chat id; the actor (openedBy) is resolved from the API key. The emulator answers 409 ' +
      'ILLEGAL_TRANSITION when the chat is open, and 409 CONFLICT when the customer already has another open chat on the number.',
    params: id('The chat participant id.'),
    response: { schema: chatParticipantViewSchema, description: 'The reopened participant.' },
    emulatorChoice: { path: true, response: true },
  },

  // Reply to a customer from a chatbot webhook (referenced): paths and responses not shown
  sendAgentMessage: {
    ...chat,
    method: 'POST',
    path: AGENT_MESSAGE,
    tag: 'liveChat',
    summary: 'Send an agent message (v2)',
    description:
      'Answers a chatbot webhook: chatParticipantId from the payload, channel and text (or the mediaUrl an upload ' +
      'returned). The sending agent is resolved from the API key. The emulator answers 404 for a chat of another ' +
      'client, 403 for a caller without a live-chat role, 409 CONFLICT when the chat is closed, 400 when channel is ' +
      'not the chat’s; it records the ' +
      'message, emits an OUTGOING chatbot event where the configuration asks for one, and status receipts.',
    body: json(sendAgentMessageRequestSchema),
    response: { schema: agentMessageSchema, description: 'The message as recorded.' },
    emulatorChoice: { path: true, response: true },
  },
  uploadAgentMessageMedia: {
    ...chat,
    method: 'POST',
    path: `${AGENT_MESSAGE}/media`,
    tag: 'liveChat',
    summary: 'Upload media for an agent message (v2)',
    description:
      'The file’s bytes as the request body with its media type as Content-Type, its name in fileName; send the ' +
      'returned mediaUrl with Send an agent message (v2). The emulator stores the file and serves it at mediaUrl; ' +
      'it answers 413 over its size limit (5 MiB by default) and 415 for a media type it does not list.',
    query: z.object({
      fileName: requiredQuery('the file name').describe('The file’s name, e.g. receipt.pdf.'),
    }),
    body: {
      type: 'binary',
      mediaTypes: AGENT_MEDIA_TYPES,
      description: 'The file’s bytes.',
    },
    response: { schema: uploadMediaResponseSchema, description: 'Where the file is: send it as mediaUrl.' },
    emulatorChoice: { path: true, query: ['fileName'], response: true },
  },
});

/** The operations table's type. */
export type PlatformOperations = typeof PLATFORM_OPERATIONS;
/** The id of an operation of the platform API (its OpenAPI operationId). */
export type OperationId = keyof PlatformOperations;

/** The rows of the table, each with its id. */
export function operationEntries(): readonly (readonly [OperationId, PlatformOperation])[] {
  return Object.entries(PLATFORM_OPERATIONS) as [OperationId, PlatformOperation][];
}

/** The operations whose path the documentation does not show (the rows' `emulatorChoice.path`). */
export type UnshownPathOperationId = {
  [Id in OperationId]: PlatformOperations[Id] extends { readonly emulatorChoice: { readonly path: true } }
    ? Id
    : never;
}[OperationId];

/**
 * Paths of your own for the operations whose path the documentation does not show (the v2
 * terminate and reopen, Send an agent message and its media upload), each under its row's prefix,
 * with the row's `{name}` parameters: `{ sendAgentMessage: '/v2/agent-messages' }`. A documented
 * path cannot be moved.
 */
export type PathOverrides = { readonly [Id in UnshownPathOperationId]?: `/${string}` };

const PARAM_NAMES = /\{(\w+)\}/g;

/**
 * The operations table with `overrides` applied, each checked: an operation whose path is not
 * shown, a path starting with `/` that keeps the row's path parameters. Throws a TypeError that
 * names `owner` and the culprit.
 */
export function operationsWithPaths(overrides: PathOverrides | undefined, owner: string): PlatformOperations {
  if (overrides === undefined) return PLATFORM_OPERATIONS;
  if (typeof overrides !== 'object' || overrides === null) {
    throw new TypeError(`${owner}: pathOverrides must be an object, got ${JSON.stringify(overrides)}`);
  }
  const table: Record<string, PlatformOperation> = { ...PLATFORM_OPERATIONS };
  for (const [id, path] of Object.entries(overrides) as [string, unknown][]) {
    if (path === undefined) continue;
    const row = table[id];
    if (row?.emulatorChoice?.path !== true) {
      const movable = operationEntries()
        .filter(([, operation]) => operation.emulatorChoice?.path === true)
        .map(([name]) => name);
      throw new TypeError(
        `${owner}: pathOverrides.${id}: only an operation whose path the documentation does not show can be moved (${movable.join(', ')})`,
      );
    }
    if (typeof path !== 'string' || !path.startsWith('/') || /[?#\s]/.test(path)) {
      throw new TypeError(
        `${owner}: pathOverrides.${id} must be a path starting with '/', got ${JSON.stringify(path)}`,
      );
    }
    const wanted = [...row.path.matchAll(PARAM_NAMES)].map((match) => match[1]).sort();
    const given = [...path.matchAll(PARAM_NAMES)].map((match) => match[1]).sort();
    if (wanted.join() !== given.join()) {
      throw new TypeError(
        `${owner}: pathOverrides.${id} must have the path parameters ${wanted.map((name) => `{${String(name)}}`).join(', ') || '(none)'}, got ${JSON.stringify(path)}`,
      );
    }
    table[id] = { ...row, path: path as `/${string}` };
  }
  return table as unknown as PlatformOperations;
}
