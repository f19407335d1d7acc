import {
  operationPath,
  operationsWithPaths,
  type PathOverrides,
  type BinaryInput,
  type InputOf,
  type OperationId,
  type PathPrefixes,
  type PlatformOperation,
  type PlatformOperations,
  type ResultOf,
} from '../contract/index.js';
import {
  uploadMediaRequestSchema,
  type AgentChatLimitChange,
  type AgentMessage,
  type SendAgentMessageRequest,
  type UploadMediaRequest,
  type UploadMediaResponse,
  type AvailabilityChange,
  type ChatParticipant,
  type ChatParticipantView,
  type ChatParticipantTerminate,
  type MessageResponse,
  type MessagingClientNumber,
  type Page,
  type PasswordChange,
  type SystemUser,
  type SystemUserCreate,
  type SystemUserUpdate,
  type UserCreate,
  type UserCreatedResponse,
  type UserCredits,
  type UserResponse,
  type UsersForClientPage,
  type UserSummary,
  type UserUpdate,
  type WebhookConfig,
  type WebhookConfigCreate,
  type WebhookConfigUpdate,
} from '../schemas/index.js';
import { contentTypeOf } from './media-types.js';
import { checkOptions, optionKeys } from '../util/options.js';
import { errorForStatus, PlatformNetworkError, PlatformResponseValidationError } from './errors.js';

/** The `fetch` the client calls (the global one by default). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link createPlatformClient}. */
export interface PlatformClientOptions {
  /** `{base_url}`: the platform's (or the emulator's) origin, e.g. `http://127.0.0.1:4010`. */
  readonly baseUrl: string;
  /** The developer key, sent as `Authorization: <API_KEY>` (no Bearer prefix). */
  readonly apiKey: string;
  /**
   * `{messaging_prefix}`, prepended to every `/Messaging/...` path.
   * @default ''
   */
  readonly messagingPrefix?: string;
  /**
   * `{chat_prefix}`, prepended to every `/ChatParticipant...` path. The documentation does not
   * give its value; the default matches the emulator's.
   * @default '/chat'
   */
  readonly chatPrefix?: string;
  /**
   * Paths of your own for the operations whose path the documentation does not show (v2
   * terminate and reopen, Send an agent message, Upload media for an agent message), under their
   * prefix: `{ sendAgentMessage: '/v2/agent-messages' }`. Give the emulator the same.
   * @default the emulator's paths (the operations table)
   */
  readonly pathOverrides?: PathOverrides;
  /** @default globalThis.fetch */
  readonly fetch?: FetchLike;
}

/** Page query of the paged operations. */
export type PageQuery = {
  /** Zero-based page index. */
  readonly page?: number;
  /** Records per page. */
  readonly size?: number;
};

/** Webhook configuration (MessagingClientWebHook). */
export interface WebhookConfigApi {
  /** POST: a client default (no messagingNumberId) or a per-number override. 409 on a duplicate. */
  create(input: WebhookConfigCreate): Promise<WebhookConfig>;
  /** PUT: by id; messagingNumberId is ignored (scope rule 7); '' disables a type. */
  update(input: WebhookConfigUpdate): Promise<WebhookConfig>;
  /** GET getForCurrentLoginUser: the client default only (404 when there is none). */
  getDefault(): Promise<WebhookConfig>;
  /** GET list: default first, then overrides by phone number. */
  list(query?: PageQuery): Promise<Page<WebhookConfig>>;
  /** DELETE by id. */
  delete(id: string): Promise<void>;
}

/** Number lookup (MessagingClientNumbers). */
export interface NumbersApi {
  /**
   * GET getForCurrentLoginUser?searchString=: rows whose phone number contains the fragment.
   * Send `row.messagingNumber.id` as messagingNumberId, never `row.id`.
   */
  lookup(searchString?: string, query?: PageQuery): Promise<Page<MessagingClientNumber>>;
}

/** User management, api/v1 (credential-free). */
export interface UsersApi {
  /** GET api/v1/users/me. */
  me(): Promise<UserResponse>;
  /** GET api/v1/users: UserSummary of the caller's client. */
  list(): Promise<UserSummary[]>;
  /** POST api/v1/users: no password; the response carries the one-time `temporaryPassword`. */
  create(input: UserCreate): Promise<UserCreatedResponse>;
  /** PUT api/v1/users: by id; no credentials. */
  update(input: UserUpdate): Promise<UserResponse>;
  /** DELETE api/v1/users/{id}: soft delete (disabled, signed out, removed from teams). */
  delete(id: string): Promise<UserResponse>;
  /** GET api/v1/users/page: UserResponse page of a client (the caller's without clientRef). */
  page(query?: PageQuery & { readonly clientRef?: string }): Promise<Page<UserResponse>>;
  /** PUT api/v1/users/availability: toggles (or sets `availabilityStatus` when given). */
  changeAvailability(input?: AvailabilityChange): Promise<UserResponse>;
  /** PUT api/v1/users/agent-chat-limit. */
  setAgentChatLimit(input: AgentChatLimitChange): Promise<UserResponse>;
  /** POST api/v1/users/me/password/change: 400 for a wrong old password or a mismatch. */
  changePassword(input: PasswordChange): Promise<MessageResponse>;
  /** GET api/v1/users/me/credits. */
  credits(): Promise<UserCredits>;
}

/** The deprecated SystemUsers operations (credential-bearing; password masked). */
export interface SystemUsersApi {
  /** @deprecated Use {@link UsersApi.create}. POST SystemUsers. */
  create(input: SystemUserCreate): Promise<SystemUser>;
  /**
   * @deprecated Use {@link UsersApi.update}. PUT SystemUsers. A fetched SystemUser can be sent
   * back as is: its masked password leaves the password unchanged.
   */
  update(input: SystemUserUpdate | SystemUser): Promise<SystemUser>;
  /** @deprecated Use {@link UsersApi.me}. */
  getCurrentLoginSystemUser(): Promise<SystemUser>;
  /** @deprecated Use {@link UsersApi.list}. SUPERVISOR only: 403 for other callers. */
  getCurrentClientUsers(): Promise<SystemUser[]>;
  /** @deprecated Use {@link UsersApi.page}. */
  getUsersForClient(query: PageQuery & { readonly clientRef: string }): Promise<UsersForClientPage>;
  /** @deprecated Use {@link UsersApi.changeAvailability}. */
  changeAvailableStatus(input?: AvailabilityChange): Promise<SystemUser>;
  /** @deprecated Use {@link UsersApi.setAgentChatLimit}. */
  updateAgentChatLimit(input: AgentChatLimitChange): Promise<UserResponse>;
  /** @deprecated Use {@link UsersApi.changePassword}. */
  changePassword(input: PasswordChange): Promise<MessageResponse>;
  /** @deprecated Use {@link UsersApi.credits}. */
  getMessagingCreditsForCurrentLoginUser(): Promise<UserCredits>;
}

/**
 * Live chat: the ChatParticipant resource and its closure operations. Authentication point 7:
 * only the deprecated terminateChatParticipantChat returns the agents as credential-bearing
 * SystemUser records; every other method returns a {@link ChatParticipantView}, whose
 * assignedTo and lastAssignedAgent are credential-free user records.
 */
export interface ChatParticipantsApi {
  /** GET ChatParticipant?id=. */
  get(id: string): Promise<ChatParticipantView>;
  /**
   * @deprecated Use {@link ChatParticipantsApi.terminate} / {@link ChatParticipantsApi.reopen}.
   * PUT ChatParticipant/terminateChatParticipantChat: merges the body into the stored record.
   * Beware rules 2 and 3: an omitted assignedTo clears the assignment, and each omitted flag of
   * conversationClosed, missedConversation, afterHoursConversation, sendRatingWidget and
   * chatBotConversation becomes false. Prefer {@link ChatParticipantsApi.setConversationClosed}.
   * Returns the credential-bearing shape (assignedTo a SystemUser).
   */
  terminateChatParticipantChat(
    participant: ChatParticipantTerminate | ChatParticipant | ChatParticipantView,
  ): Promise<ChatParticipant>;
  /**
   * Merge rule 4, the safe usage of the deprecated operation: fetches the participant, sets
   * conversationClosed (and sendRatingWidget when given) and sends the complete object back.
   * Resolves with the participant as {@link ChatParticipantsApi.get} returns it (credential-free).
   */
  setConversationClosed(
    id: string,
    conversationClosed: boolean,
    options?: { readonly sendRatingWidget?: boolean },
  ): Promise<ChatParticipantView>;
  /** v2 terminate, terminateChatParticipant (path not shown; the emulator's: POST {chat_prefix}/v2/ChatParticipant/{id}/terminate). */
  terminate(id: string): Promise<ChatParticipantView>;
  /** v2 reopen, reopenChatParticipant (path not shown; the emulator's: POST {chat_prefix}/v2/ChatParticipant/{id}/reopen). */
  reopen(id: string): Promise<ChatParticipantView>;
}

/**
 * Send an agent message (v2) and Upload media for an agent message (v2): how a bot answers a
 * chatbot webhook. Paths not shown in the documentation; the emulator's are
 * POST {chat_prefix}/v2/AgentMessage and POST {chat_prefix}/v2/AgentMessage/media (see
 * `pathOverrides`). Assignable to the bot's `AgentMessagesApi`: `createBot({ agentMessages:
 * platform.agentMessages })`.
 */
export interface PlatformAgentMessagesApi {
  /**
   * Sends `text` (or the `mediaUrl` an upload returned, with an optional `caption`) into the chat
   * `chatParticipantId` on `channel`, as the agent the API key resolves to.
   */
  send(input: SendAgentMessageRequest): Promise<AgentMessage>;
  /**
   * Uploads a file (its bytes as the request body, `contentType` as Content-Type: by default the
   * Blob's type, else what the file name's extension says, else application/octet-stream) and
   * resolves with the `mediaUrl` to send.
   */
  uploadMedia(input: UploadMediaRequest): Promise<UploadMediaResponse>;
}

/** What {@link PlatformClient.call} takes for an operation: its path parameters, query and body. */
export type OperationInput<Id extends OperationId> = InputOf<PlatformOperations[Id]>;

/** What {@link PlatformClient.call} resolves with for an operation: its 200 body, checked. */
export type OperationResult<Id extends OperationId> = ResultOf<PlatformOperations[Id]>;

/** The input argument of {@link PlatformClient.call}: optional when the operation needs none. */
export type OperationArgs<Id extends OperationId> =
  Record<never, never> extends OperationInput<Id>
    ? [input?: OperationInput<Id>]
    : [input: OperationInput<Id>];

/** A typed client of the platform's documented API (or of the emulator). */
export interface PlatformClient {
  readonly webhooks: WebhookConfigApi;
  readonly numbers: NumbersApi;
  readonly users: UsersApi;
  /** @deprecated operations, kept for code that still calls them. */
  readonly systemUsers: SystemUsersApi;
  readonly chatParticipants: ChatParticipantsApi;
  /** Send an agent message (v2) and its media upload: what `ctx.reply` calls. */
  readonly agentMessages: PlatformAgentMessagesApi;
  /**
   * Calls any operation of the platform API by its operation id (the OpenAPI operationId),
   * typed by the operations table: the same request, errors and response check as the methods.
   *
   * @example
   * const chat = await platform.call('terminateChatParticipant', { params: { id: chatParticipantId } });
   */
  call<Id extends OperationId>(operationId: Id, ...input: OperationArgs<Id>): Promise<OperationResult<Id>>;
}

/** An operation's input, as the request is built from it. */
export interface AnyInput {
  readonly params?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
}

function validatePrefix(name: string, prefix: unknown): string {
  if (typeof prefix !== 'string' || (prefix !== '' && !prefix.startsWith('/'))) {
    throw new TypeError(`${name} must be '' or start with '/', got ${JSON.stringify(prefix)}`);
  }
  return prefix.replace(/\/+$/, '');
}

/** The keys of {@link PlatformClientOptions}; anything else throws at construction. */
export const PLATFORM_CLIENT_OPTION_KEYS = optionKeys<PlatformClientOptions>()([
  'baseUrl',
  'apiKey',
  'messagingPrefix',
  'chatPrefix',
  'pathOverrides',
  'fetch',
]);

function validateOptions(options: PlatformClientOptions): {
  base: string;
  messaging: string;
  chat: string;
  fetch: FetchLike;
} {
  checkOptions('createPlatformClient', options, PLATFORM_CLIENT_OPTION_KEYS);
  if (typeof options.baseUrl !== 'string' || !URL.canParse(options.baseUrl)) {
    throw new TypeError(`baseUrl must be an absolute URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  const { protocol } = new URL(options.baseUrl);
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new TypeError(`apiKey must be a non-empty string, got ${JSON.stringify(options.apiKey)}`);
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw new TypeError('fetch must be a function (global fetch needs Node 18 or later)');
  }
  return {
    base: options.baseUrl.replace(/\/+$/, ''),
    messaging: validatePrefix('messagingPrefix', options.messagingPrefix ?? ''),
    chat: validatePrefix('chatPrefix', options.chatPrefix ?? '/chat'),
    fetch: fetchImpl,
  };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The validated options an operation is sent with. */
interface SenderSettings {
  readonly base: string;
  readonly prefixes: PathPrefixes;
  readonly apiKey: string;
  readonly fetch: FetchLike;
}

/**
 * The request of one operation of a table, and its answer: resolves with the body, checked
 * against the row's response schema when `check`, or throws a PlatformError. A JSON body is sent
 * as JSON, a binary body as it is with its content type. What every method of the client runs.
 * @internal
 */
export function createOperationSender(settings: SenderSettings) {
  const { base, prefixes, apiKey, fetch: fetchImpl } = settings;
  return async function send(
    operation: PlatformOperation,
    input: AnyInput,
    check: boolean,
  ): Promise<unknown> {
    const method = operation.method;
    const url = new URL(`${base}${operationPath(operation, prefixes, input.params ?? {})}`);
    for (const [key, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const request = { method, url: url.toString() };
    const headers: Record<string, string> = { authorization: apiKey, accept: 'application/json' };
    let body: RequestInit['body'];
    if (operation.body?.type === 'binary' && input.body !== undefined) {
      body = input.body as BinaryInput;
      // a FormData body gets its multipart boundary from fetch
      if (!(body instanceof FormData) && input.contentType !== undefined)
        headers['content-type'] = input.contentType;
    } else if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body);
    }
    let response: Response;
    try {
      response = await fetchImpl(request.url, { method, headers, ...(body === undefined ? {} : { body }) });
    } catch (error) {
      throw new PlatformNetworkError(`${method} ${request.url} failed: no response`, {
        status: 0,
        body: undefined,
        request,
        cause: error,
      });
    }
    const responseBody = await readBody(response);
    if (!response.ok) throw errorForStatus({ status: response.status, body: responseBody, request });
    if (!check) return responseBody;
    const parsed = operation.response.schema.safeParse(responseBody);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PlatformResponseValidationError(
        `${method} ${request.url}: unexpected response body at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        { status: response.status, body: responseBody, request, issues: parsed.error.issues },
      );
    }
    return parsed.data;
  };
}

/**
 * Creates a typed client of the documented API: webhook configuration, number lookup, user
 * management (api/v1 and the deprecated SystemUsers operations) and live-chat participants.
 * Every response is validated with the shared zod schemas; every failure is a
 * {@link PlatformError} subclass carrying `status` and `body`.
 *
 * @example
 * const platform = createPlatformClient({ baseUrl: emulator.url, apiKey: 'emu-supervisor-key' });
 * const [row] = (await platform.numbers.lookup('0001')).content;
 * await platform.webhooks.create({
 *   messagingNumberId: row?.messagingNumber.id,
 *   incomingMessageURL: 'https://example.test/webhooks/incoming',
 * });
 * const me = await platform.users.me();
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const { base, messaging, chat, fetch: fetchImpl } = validateOptions(options);
  const operations = operationsWithPaths(options.pathOverrides, 'createPlatformClient');
  const send = createOperationSender({
    base,
    prefixes: { messaging, chat },
    apiKey: options.apiKey.trim(),
    fetch: fetchImpl,
  });

  const call = <Id extends OperationId>(
    id: Id,
    ...[input]: OperationArgs<Id>
  ): Promise<OperationResult<Id>> => send(operations[id], input ?? {}, true) as Promise<OperationResult<Id>>;

  const webhooks: WebhookConfigApi = {
    create: (body) => call('createWebhookConfig', { body }),
    update: (body) => call('updateWebhookConfig', { body }),
    getDefault: () => call('getDefaultWebhookConfig'),
    list: (query = {}) => call('listWebhookConfigs', { query }),
    async delete(id) {
      // the body is not shown in the documentation: whatever the platform answers is accepted
      await send(operations.deleteWebhookConfig, { params: { id } }, false);
    },
  };

  const numbers: NumbersApi = {
    lookup: (searchString, query = {}) => call('lookupNumbers', { query: { ...query, searchString } }),
  };

  const users: UsersApi = {
    me: () => call('getMyProfile'),
    list: () => call('listUsers'),
    create: (body) => call('createUser', { body }),
    update: (body) => call('updateUser', { body }),
    delete: (id) => call('deleteUser', { params: { id } }),
    page: (query = {}) => call('listUsersPage', { query }),
    changeAvailability: (body = {}) => call('changeAvailability', { body }),
    setAgentChatLimit: (body) => call('setAgentChatLimit', { body }),
    changePassword: (body) => call('changeMyPassword', { body }),
    credits: () => call('getMyCredits'),
  };

  const systemUsers: SystemUsersApi = {
    create: (body) => call('createSystemUser', { body }),
    // a fetched SystemUser is sent back as it is (its masked password changes nothing); the
    // server checks it, as it checks any body
    update: (body) => call('updateSystemUser', { body: body as SystemUserUpdate }),
    getCurrentLoginSystemUser: () => call('getCurrentLoginSystemUser'),
    getCurrentClientUsers: () => call('getCurrentClientUsers'),
    getUsersForClient: (query) => call('getUsersForClient', { query }),
    changeAvailableStatus: (body = {}) => call('changeAvailableStatus', { body }),
    updateAgentChatLimit: (body) => call('updateAgentChatLimit', { body }),
    changePassword: (body) => call('changePassword', { body }),
    getMessagingCreditsForCurrentLoginUser: () => call('getMessagingCreditsForCurrentLoginUser'),
  };

  // merge rule 4: a fetched participant is sent back whole, as it is; the server checks it
  const terminate = (participant: ChatParticipantTerminate | ChatParticipant | ChatParticipantView) =>
    call('terminateChatParticipantChat', { body: participant as ChatParticipantTerminate });
  const chatParticipants: ChatParticipantsApi = {
    get: (id) => call('getChatParticipant', { query: { id } }),
    terminateChatParticipantChat: terminate,
    async setConversationClosed(id, conversationClosed, closeOptions = {}) {
      const current = await chatParticipants.get(id);
      // rule 4: send the complete object back, so rules 2 and 3 change nothing else
      await terminate({
        ...current,
        conversationClosed,
        ...(closeOptions.sendRatingWidget === undefined
          ? {}
          : { sendRatingWidget: closeOptions.sendRatingWidget }),
      });
      // point 7: the deprecated answer carries the agents' credentials; answer with the
      // credential-free record instead
      return chatParticipants.get(id);
    },
    terminate: (id) => call('terminateChatParticipant', { params: { id } }),
    reopen: (id) => call('reopenChatParticipant', { params: { id } }),
  };

  const agentMessages: PlatformAgentMessagesApi = {
    send: (body) => call('sendAgentMessage', { body }),
    async uploadMedia(input) {
      const parsed = uploadMediaRequestSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new TypeError(
          `uploadMedia: ${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'} (expected { data: Blob | Uint8Array, fileName, contentType? })`,
        );
      }
      const { data, fileName } = parsed.data;
      const contentType =
        parsed.data.contentType ??
        (data instanceof Blob && data.type !== '' ? data.type : contentTypeOf(fileName));
      // checked above: a Blob of this realm or a Uint8Array, what fetch sends as it is
      return call('uploadAgentMessageMedia', { query: { fileName }, body: data as BinaryInput, contentType });
    },
  };

  return { webhooks, numbers, users, systemUsers, chatParticipants, agentMessages, call };
}
