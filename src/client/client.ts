import { z } from 'zod';
import {
  chatParticipantSchema,
  chatParticipantViewSchema,
  messageResponseSchema,
  messagingClientNumberSchema,
  pageSchema,
  systemUserSchema,
  userCreatedResponseSchema,
  userCreditsSchema,
  userResponseSchema,
  usersForClientPageSchema,
  userSummarySchema,
  webhookConfigSchema,
  type AgentChatLimitChange,
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
  /** v2 terminate (emulator path POST {chat_prefix}/v2/ChatParticipant/{id}/terminate). */
  terminate(id: string): Promise<ChatParticipantView>;
  /** v2 reopen (emulator path POST {chat_prefix}/v2/ChatParticipant/{id}/reopen). */
  reopen(id: string): Promise<ChatParticipantView>;
}

/** A typed client of the platform's documented API (or of the emulator). */
export interface PlatformClient {
  readonly webhooks: WebhookConfigApi;
  readonly numbers: NumbersApi;
  readonly users: UsersApi;
  /** @deprecated operations, kept for code that still calls them. */
  readonly systemUsers: SystemUsersApi;
  readonly chatParticipants: ChatParticipantsApi;
}

type Query = Readonly<Record<string, string | number | undefined>>;

interface CallOptions {
  readonly query?: Query;
  readonly body?: unknown;
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
  const apiKey = options.apiKey.trim();

  async function call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    { query = {}, body }: CallOptions = {},
  ): Promise<z.output<S>> {
    const url = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const request = { method, url: url.toString() };
    const headers: Record<string, string> = { authorization: apiKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetchImpl(request.url, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
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
    const parsed = schema.safeParse(responseBody);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PlatformResponseValidationError(
        `${method} ${request.url}: unexpected response body at ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        { status: response.status, body: responseBody, request, issues: parsed.error.issues },
      );
    }
    return parsed.data;
  }

  const m = (path: string): string => `${messaging}/Messaging${path}`;
  const c = (path: string): string => `${chat}${path}`;
  const id = (value: string): string => encodeURIComponent(value);
  const ignored = z.unknown();

  const webhooks: WebhookConfigApi = {
    create: (input) => call('POST', m('/MessagingClientWebHook'), webhookConfigSchema, { body: input }),
    update: (input) => call('PUT', m('/MessagingClientWebHook'), webhookConfigSchema, { body: input }),
    getDefault: () => call('GET', m('/MessagingClientWebHook/getForCurrentLoginUser'), webhookConfigSchema),
    list: (query = {}) =>
      call('GET', m('/MessagingClientWebHook/list'), pageSchema(webhookConfigSchema), { query }),
    async delete(configId) {
      await call('DELETE', m(`/MessagingClientWebHook/${id(configId)}`), ignored);
    },
  };

  const numbers: NumbersApi = {
    lookup: (searchString, query = {}) =>
      call(
        'GET',
        m('/MessagingClientNumbers/getForCurrentLoginUser'),
        pageSchema(messagingClientNumberSchema),
        { query: { ...query, searchString } },
      ),
  };

  const v1 = (path = ''): string => m(`/api/v1/users${path}`);
  const users: UsersApi = {
    me: () => call('GET', v1('/me'), userResponseSchema),
    list: () => call('GET', v1(), z.array(userSummarySchema)),
    create: (input) => call('POST', v1(), userCreatedResponseSchema, { body: input }),
    update: (input) => call('PUT', v1(), userResponseSchema, { body: input }),
    delete: (userId) => call('DELETE', v1(`/${id(userId)}`), userResponseSchema),
    page: (query = {}) => call('GET', v1('/page'), pageSchema(userResponseSchema), { query }),
    changeAvailability: (input = {}) => call('PUT', v1('/availability'), userResponseSchema, { body: input }),
    setAgentChatLimit: (input) => call('PUT', v1('/agent-chat-limit'), userResponseSchema, { body: input }),
    changePassword: (input) =>
      call('POST', v1('/me/password/change'), messageResponseSchema, { body: input }),
    credits: () => call('GET', v1('/me/credits'), userCreditsSchema),
  };

  const su = (path = ''): string => m(`/SystemUsers${path}`);
  const systemUsers: SystemUsersApi = {
    create: (input) => call('POST', su(), systemUserSchema, { body: input }),
    update: (input) => call('PUT', su(), systemUserSchema, { body: input }),
    getCurrentLoginSystemUser: () => call('GET', su('/getCurrentLoginSystemUser'), systemUserSchema),
    getCurrentClientUsers: () => call('GET', su('/getCurrentClientUsers'), z.array(systemUserSchema)),
    getUsersForClient: (query) => call('GET', su('/getUsersForClient'), usersForClientPageSchema, { query }),
    changeAvailableStatus: (input = {}) =>
      call('PUT', su('/changeAvailableStatus'), systemUserSchema, { body: input }),
    updateAgentChatLimit: (input) =>
      call('PUT', su('/updateAgentChatLimit'), userResponseSchema, { body: input }),
    changePassword: (input) => call('POST', su('/changePassword'), messageResponseSchema, { body: input }),
    getMessagingCreditsForCurrentLoginUser: () =>
      call('GET', su('/getMessagingCreditsForCurrentLoginUser'), userCreditsSchema),
  };

  const terminatePath = c('/ChatParticipant/terminateChatParticipantChat');
  const chatParticipants: ChatParticipantsApi = {
    get: (participantId) =>
      call('GET', c('/ChatParticipant'), chatParticipantViewSchema, { query: { id: participantId } }),
    terminateChatParticipantChat: (participant) =>
      call('PUT', terminatePath, chatParticipantSchema, { body: participant }),
    async setConversationClosed(participantId, conversationClosed, closeOptions = {}) {
      const current = await chatParticipants.get(participantId);
      // rule 4: send the complete object back, so rules 2 and 3 change nothing else
      await call('PUT', terminatePath, chatParticipantSchema, {
        body: {
          ...current,
          conversationClosed,
          ...(closeOptions.sendRatingWidget === undefined
            ? {}
            : { sendRatingWidget: closeOptions.sendRatingWidget }),
        },
      });
      // point 7: the deprecated answer carries the agents' credentials; answer with the
      // credential-free record instead
      return chatParticipants.get(participantId);
    },
    terminate: (participantId) =>
      call('POST', c(`/v2/ChatParticipant/${id(participantId)}/terminate`), chatParticipantViewSchema),
    reopen: (participantId) =>
      call('POST', c(`/v2/ChatParticipant/${id(participantId)}/reopen`), chatParticipantViewSchema),
  };

  return { webhooks, numbers, users, systemUsers, chatParticipants };
}
