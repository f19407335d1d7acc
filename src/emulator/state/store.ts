import { newId } from '../ids.js';
import { z } from 'zod';
import {
  chatParticipantSeedSchema,
  type EmulatorChatParticipant,
  type EmulatorClient,
  type EmulatorNumber,
  type EmulatorTeam,
  type EmulatorUser,
  type MediaRecord,
  type OutboundMessage,
  type RatingWidgetTrigger,
  type SessionState,
  type StoredWebhookConfig,
} from './records.js';
import type { DeliveryTransition } from '../../schemas/index.js';
import { createSequence, type Sequence } from './sequence.js';

/*
 * The emulator's state: one Map per resource, keyed by id, and the indexes every lookup on a
 * trigger's or a route's path goes through (by API key, e-mail, clientRef, msisdn, number id,
 * (client, number), (number, customer), agent). Nothing outside this module writes to the Maps
 * or to an indexed field of a record: the methods below change both the record and its
 * indexes, so no lookup ever needs to scan. Fields no index reads (a user's availability, a
 * chat's subject, a message's status...) are changed on the records directly.
 */

/**
 * How much of what a long run leaves behind the state keeps. Open chats, users, numbers and
 * configurations are never dropped; these three grow with every conversation and message.
 */
export interface RetentionOptions {
  /**
   * Closed chat participants kept; beyond it the oldest closed chat (by creation) is dropped (a
   * GET of its id is then a 404; the customer writing again opens a new chat, as after any
   * closure; its outbound messages and rating widgets are kept, under their own limits).
   * @default 10000
   */
  readonly closedChats?: number;
  /**
   * Outbound messages kept; beyond it the oldest is dropped (a status change for its gstId is
   * then a 404).
   * @default 100000
   */
  readonly messages?: number;
  /** Rating widget records kept; beyond it the oldest is dropped. @default 10000 */
  readonly ratingWidgets?: number;
  /**
   * Uploaded media files kept (Upload media for an agent message, v2); beyond it the oldest is
   * dropped (its mediaUrl then answers 404). @default 1000
   */
  readonly media?: number;
  /** Bytes of uploaded media kept in all; beyond it the oldest files are dropped. @default 268435456 (256 MiB) */
  readonly mediaBytes?: number;
}

/** The defaults of {@link RetentionOptions} but the media ones ({@link DEFAULT_MEDIA_RETENTION}). */
export const DEFAULT_RETENTION: Readonly<Required<Omit<RetentionOptions, 'media' | 'mediaBytes'>>> = {
  closedChats: 10_000,
  messages: 100_000,
  ratingWidgets: 10_000,
};

/** The defaults of the media limits of {@link RetentionOptions}. */
export const DEFAULT_MEDIA_RETENTION = { media: 1000, mediaBytes: 256 * 1024 * 1024 } as const;

/** Retention as resolved: every record limit, and the media limits that were given. */
export type ResolvedRetention = Readonly<Required<Omit<RetentionOptions, 'media' | 'mediaBytes'>>> &
  Pick<RetentionOptions, 'media' | 'mediaBytes'>;

/** A listing in record order, read-only (cursor pages, totals). */
export type Listing<T> = Pick<Sequence<T>, 'size' | 'page' | 'count' | 'values'>;

/** Thrown when a change would break an invariant of the state (a duplicate key, say). */
export class StateConflictError extends TypeError {
  override readonly name = 'StateConflictError';
}

/** The emulator's mutable state: the records, their indexes, and the only ways to change either. */
export interface EmulatorState {
  readonly clients: ReadonlyMap<string, EmulatorClient>;
  readonly teams: ReadonlyMap<string, EmulatorTeam>;
  readonly users: ReadonlyMap<string, EmulatorUser>;
  readonly numbers: ReadonlyMap<string, EmulatorNumber>;
  readonly webhookConfigs: ReadonlyMap<string, StoredWebhookConfig>;
  readonly chatParticipants: ReadonlyMap<string, EmulatorChatParticipant>;
  /** Outbound messages by gstId. */
  readonly messages: ReadonlyMap<string, OutboundMessage>;
  /** Lite sessions, keyed by number link id. */
  readonly sessions: ReadonlyMap<string, SessionState>;
  /** Rating widgets triggered by chat termination, by trigger id (routes/live-chat.ts). */
  readonly ratingWidgets: ReadonlyMap<string, RatingWidgetTrigger>;
  /** Uploaded media files by id (Upload media for an agent message, v2). */
  readonly media: ReadonlyMap<string, MediaRecord>;
  readonly retention: ResolvedRetention;
  /**
   * The records in creation order, for paged listings: every chat, the open ones, the closed
   * ones, outbound messages and rating widgets.
   */
  readonly listings: {
    readonly chatParticipants: Listing<EmulatorChatParticipant>;
    readonly openChats: Listing<EmulatorChatParticipant>;
    readonly closedChats: Listing<EmulatorChatParticipant>;
    readonly messages: Listing<OutboundMessage>;
    readonly ratingWidgets: Listing<RatingWidgetTrigger>;
    readonly media: Listing<MediaRecord>;
  };

  // lookups, each by key
  clientByRef(clientRef: string): EmulatorClient | undefined;
  /** The user owning an API key, disabled or deleted included (callers decide). */
  userByApiKey(apiKey: string): EmulatorUser | undefined;
  /** The user that is not deleted with this e-mail, case-insensitively (e-mails are login names). */
  liveUserByEmail(email: string): EmulatorUser | undefined;
  /** A client's users in creation order, deleted ones included. */
  usersOfClient(clientId: string): Iterable<EmulatorUser>;
  numberByMsisdn(msisdn: string): EmulatorNumber | undefined;
  /** By the nested messaging number id (the messagingNumberId of the webhook API). */
  numberByMessagingNumberId(id: string): EmulatorNumber | undefined;
  numbersOfClient(clientId: string): readonly EmulatorNumber[];
  /** A client's configurations, default and overrides, in creation order. */
  webhookConfigsOfClient(clientId: string): StoredWebhookConfig[];
  /**
   * The configuration of (client, number): the override of that messaging number id, or the
   * client default for null (scope rule 5 allows one of each).
   */
  webhookConfigOf(clientId: string, messagingNumberId: string | null): StoredWebhookConfig | undefined;
  /** The open chat of a customer on a number (at most one). */
  openChat(numberId: string, sender: string): EmulatorChatParticipant | undefined;
  /** Open chats assigned to a user (counted against agentChatLimit). */
  openChatCount(userId: string): number;
  /** The rating widgets a chat triggered, oldest first. */
  ratingWidgetsOf(chatParticipantId: string): readonly RatingWidgetTrigger[];

  // changes
  addClient(client: EmulatorClient): void;
  addTeam(team: EmulatorTeam): void;
  addUser(user: EmulatorUser): void;
  setUserApiKey(user: EmulatorUser, apiKey: string): void;
  setUserEmail(user: EmulatorUser, email: string): void;
  /** Soft delete: the record stays; its e-mail is free again. */
  setUserDeleted(user: EmulatorUser, deleted: boolean): void;
  /** A number, with its session when it is a Lite number. */
  addNumber(number: EmulatorNumber, session?: SessionState | null): void;
  /** Creates or replaces (same id, same scope) a configuration. */
  putWebhookConfig(config: StoredWebhookConfig): void;
  deleteWebhookConfig(id: string): void;
  addChatParticipant(participant: EmulatorChatParticipant): void;
  /** Closes or reopens a chat; reopening a customer's second open chat on a number is refused. */
  setConversationClosed(participant: EmulatorChatParticipant, closed: boolean): void;
  /** Assigns a chat to a user (id), or to nobody (null). */
  setAssignedTo(participant: EmulatorChatParticipant, userId: string | null): void;
  addMessage(message: OutboundMessage): void;
  addRatingWidget(widget: RatingWidgetTrigger): void;
  /** Keeps an uploaded file; the oldest are dropped beyond the media retention limits. */
  addMedia(media: MediaRecord): void;
  /** Drops every record (the Maps stay the same objects). */
  clear(): void;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The retention options checked: each an integer >= 0 (a TypeError names the culprit). */
export function resolveRetention(options: RetentionOptions = {}): ResolvedRetention {
  const resolved: { -readonly [K in keyof ResolvedRetention]: ResolvedRetention[K] } = {
    ...DEFAULT_RETENTION,
  };
  for (const key of [
    ...Object.keys(DEFAULT_RETENTION),
    ...Object.keys(DEFAULT_MEDIA_RETENTION),
  ] as (keyof RetentionOptions)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0) {
      throw new TypeError(`retention.${key} must be an integer >= 0, got ${String(value)}`);
    }
    resolved[key] = value;
  }
  return resolved;
}

/** An empty state. */
export function createEmptyState(retention: RetentionOptions = {}): EmulatorState {
  const clients = new Map<string, EmulatorClient>();
  const teams = new Map<string, EmulatorTeam>();
  const users = new Map<string, EmulatorUser>();
  const numbers = new Map<string, EmulatorNumber>();
  const webhookConfigs = new Map<string, StoredWebhookConfig>();
  const chatParticipants = new Map<string, EmulatorChatParticipant>();
  const messages = new Map<string, OutboundMessage>();
  const sessions = new Map<string, SessionState>();
  const ratingWidgets = new Map<string, RatingWidgetTrigger>();
  const media = new Map<string, MediaRecord>();
  let mediaBytes = 0;
  const limits = resolveRetention(retention);

  const clientsByRef = new Map<string, EmulatorClient>();
  const usersByApiKey = new Map<string, EmulatorUser>();
  const liveUsersByEmail = new Map<string, EmulatorUser>();
  const usersByClient = new Map<string, Map<string, EmulatorUser>>();
  const numbersByMsisdn = new Map<string, EmulatorNumber>();
  const numbersByMessagingId = new Map<string, EmulatorNumber>();
  const numbersByClient = new Map<string, EmulatorNumber[]>();
  /** Per client: every configuration (creation order), and the one per scope. */
  const configsByClient = new Map<
    string,
    { all: Map<string, StoredWebhookConfig>; byScope: Map<string | null, StoredWebhookConfig> }
  >();
  /** Per number link id, per customer: the open chat. */
  const openChats = new Map<string, Map<string, EmulatorChatParticipant>>();
  /** Per user id: the ids of the open chats assigned to them. */
  const openChatsByAgent = new Map<string, Set<string>>();
  const widgetsByChat = new Map<string, RatingWidgetTrigger[]>();
  const chatOrder = createSequence<EmulatorChatParticipant>();
  const openOrder = createSequence<EmulatorChatParticipant>();
  const closedOrder = createSequence<EmulatorChatParticipant>();
  const messageOrder = createSequence<OutboundMessage>();
  const widgetOrder = createSequence<RatingWidgetTrigger>();
  const mediaOrder = createSequence<MediaRecord>();
  const none: readonly never[] = [];

  const emailKey = (email: string): string => email.toLowerCase();
  // readonly in the record types: only the methods below write an indexed field
  const writable = <T>(record: T): Writable<T> => record;

  /** Throws when the customer has another open chat on the number (at most one). */
  function checkOpen(participant: EmulatorChatParticipant): void {
    const open = openChats.get(participant.numberId)?.get(participant.sender);
    if (open !== undefined && open !== participant) {
      throw new StateConflictError(
        `Customer ${participant.sender} already has an open chat (${open.id}) on this number`,
      );
    }
  }
  function indexOpen(participant: EmulatorChatParticipant): void {
    checkOpen(participant);
    let ofNumber = openChats.get(participant.numberId);
    if (ofNumber === undefined) {
      openChats.set(participant.numberId, (ofNumber = new Map<string, EmulatorChatParticipant>()));
    }
    ofNumber.set(participant.sender, participant);
    openOrder.add(participant.id, participant, chatOrder.seqOf(participant.id));
    if (participant.assignedTo !== null) indexAgent(participant.assignedTo, participant.id);
  }
  function unindexOpen(participant: EmulatorChatParticipant): void {
    const ofNumber = openChats.get(participant.numberId);
    if (ofNumber?.get(participant.sender) === participant) ofNumber.delete(participant.sender);
    openOrder.delete(participant.id);
    if (participant.assignedTo !== null) unindexAgent(participant.assignedTo, participant.id);
  }
  function indexAgent(userId: string, chatId: string): void {
    let chats = openChatsByAgent.get(userId);
    if (chats === undefined) openChatsByAgent.set(userId, (chats = new Set()));
    chats.add(chatId);
  }
  function unindexAgent(userId: string, chatId: string): void {
    const chats = openChatsByAgent.get(userId);
    chats?.delete(chatId);
    if (chats?.size === 0) openChatsByAgent.delete(userId);
  }

  /** Drops a closed chat (retention). Its messages and rating widgets are kept. */
  function dropChat(participant: EmulatorChatParticipant): void {
    chatParticipants.delete(participant.id);
    chatOrder.delete(participant.id);
    closedOrder.delete(participant.id);
  }
  function enforceClosedChats(): void {
    while (closedOrder.size > limits.closedChats) {
      const oldest = closedOrder.first();
      if (oldest === undefined) return;
      dropChat(oldest);
    }
  }
  function dropWidget(widget: RatingWidgetTrigger): void {
    ratingWidgets.delete(widget.id);
    widgetOrder.delete(widget.id);
    const ofChat = widgetsByChat.get(widget.chatParticipantId);
    if (ofChat === undefined) return;
    // the oldest of its chat too, almost always
    const at = ofChat.indexOf(widget);
    if (at >= 0) ofChat.splice(at, 1);
    if (ofChat.length === 0) widgetsByChat.delete(widget.chatParticipantId);
  }

  const state: EmulatorState = {
    clients,
    teams,
    users,
    numbers,
    webhookConfigs,
    chatParticipants,
    messages,
    sessions,
    ratingWidgets,
    media,
    retention: limits,
    listings: {
      chatParticipants: chatOrder,
      openChats: openOrder,
      closedChats: closedOrder,
      messages: messageOrder,
      ratingWidgets: widgetOrder,
      media: mediaOrder,
    },

    clientByRef: (clientRef) => clientsByRef.get(clientRef),
    userByApiKey: (apiKey) => usersByApiKey.get(apiKey),
    liveUserByEmail: (email) => liveUsersByEmail.get(emailKey(email)),
    usersOfClient: (clientId) => usersByClient.get(clientId)?.values() ?? none,
    numberByMsisdn: (msisdn) => numbersByMsisdn.get(msisdn),
    numberByMessagingNumberId: (id) => numbersByMessagingId.get(id),
    numbersOfClient: (clientId) => numbersByClient.get(clientId) ?? none,
    webhookConfigsOfClient: (clientId) => [...(configsByClient.get(clientId)?.all.values() ?? none)],
    webhookConfigOf: (clientId, messagingNumberId) =>
      configsByClient.get(clientId)?.byScope.get(messagingNumberId),
    openChat: (numberId, sender) => openChats.get(numberId)?.get(sender),
    openChatCount: (userId) => openChatsByAgent.get(userId)?.size ?? 0,
    ratingWidgetsOf: (chatParticipantId) => widgetsByChat.get(chatParticipantId) ?? none,

    addClient(client) {
      if (clients.has(client.id)) throw new StateConflictError(`Client id ${client.id} is already used`);
      if (clientsByRef.has(client.clientRef)) {
        throw new StateConflictError(`clientRef ${client.clientRef} is already used`);
      }
      clients.set(client.id, client);
      clientsByRef.set(client.clientRef, client);
    },
    addTeam(team) {
      if (teams.has(team.id)) throw new StateConflictError(`Team id ${team.id} is already used`);
      teams.set(team.id, team);
    },
    addUser(user) {
      if (users.has(user.id)) throw new StateConflictError(`User id ${user.id} is already used`);
      if (usersByApiKey.has(user.apiKey)) {
        throw new StateConflictError(`apiKey of ${user.email} is already used`);
      }
      if (!user.deleted && liveUsersByEmail.has(emailKey(user.email))) {
        throw new StateConflictError(`A user with e-mail ${user.email} already exists`);
      }
      users.set(user.id, user);
      usersByApiKey.set(user.apiKey, user);
      if (!user.deleted) liveUsersByEmail.set(emailKey(user.email), user);
      let ofClient = usersByClient.get(user.clientId);
      if (ofClient === undefined)
        usersByClient.set(user.clientId, (ofClient = new Map<string, EmulatorUser>()));
      ofClient.set(user.id, user);
    },
    setUserApiKey(user, apiKey) {
      if (user.apiKey === apiKey) return;
      if (users.get(user.id) !== user) {
        writable(user).apiKey = apiKey; // not stored yet: addUser indexes it
        return;
      }
      if (usersByApiKey.has(apiKey)) throw new StateConflictError('That apiKey is already used');
      usersByApiKey.delete(user.apiKey);
      writable(user).apiKey = apiKey;
      usersByApiKey.set(apiKey, user);
    },
    setUserEmail(user, email) {
      if (user.email === email) return;
      if (users.get(user.id) !== user) {
        writable(user).email = email; // not stored yet: addUser indexes it
        return;
      }
      const key = emailKey(email);
      const holder = liveUsersByEmail.get(key);
      if (!user.deleted && holder !== undefined && holder !== user) {
        throw new StateConflictError(`A user with e-mail ${email} already exists`);
      }
      if (!user.deleted) {
        liveUsersByEmail.delete(emailKey(user.email));
        liveUsersByEmail.set(key, user);
      }
      writable(user).email = email;
    },
    setUserDeleted(user, deleted) {
      if (user.deleted === deleted) return;
      if (users.get(user.id) !== user) {
        writable(user).deleted = deleted; // not stored yet: addUser indexes it
        return;
      }
      const key = emailKey(user.email);
      if (deleted) {
        liveUsersByEmail.delete(key);
      } else {
        if (liveUsersByEmail.has(key)) {
          throw new StateConflictError(`A user with e-mail ${user.email} already exists`);
        }
        liveUsersByEmail.set(key, user);
      }
      writable(user).deleted = deleted;
    },
    addNumber(number, session = null) {
      if (numbers.has(number.id)) throw new StateConflictError(`Number id ${number.id} is already used`);
      if (numbersByMsisdn.has(number.messagingNumber.number)) {
        throw new StateConflictError(`Number ${number.messagingNumber.number} is already used`);
      }
      if (numbersByMessagingId.has(number.messagingNumber.id)) {
        throw new StateConflictError(`messagingNumberId ${number.messagingNumber.id} is already used`);
      }
      numbers.set(number.id, number);
      numbersByMsisdn.set(number.messagingNumber.number, number);
      numbersByMessagingId.set(number.messagingNumber.id, number);
      const ofClient = numbersByClient.get(number.clientId);
      if (ofClient === undefined) numbersByClient.set(number.clientId, [number]);
      else ofClient.push(number);
      if (number.kind === 'lite') {
        sessions.set(number.id, session ?? { statusType: null, status: null, flaggedUntil: null });
      }
    },
    putWebhookConfig(config) {
      let ofClient = configsByClient.get(config.clientId);
      if (ofClient === undefined) {
        configsByClient.set(config.clientId, (ofClient = { all: new Map(), byScope: new Map() }));
      }
      const current = webhookConfigs.get(config.id);
      if (
        current !== undefined &&
        (current.clientId !== config.clientId || current.messagingNumberId !== config.messagingNumberId)
      ) {
        // scope rule 7: scope cannot change on update
        throw new StateConflictError(`Configuration ${config.id} cannot change scope`);
      }
      const holder = ofClient.byScope.get(config.messagingNumberId);
      if (holder !== undefined && holder.id !== config.id) {
        // scope rule 5: one default per client, one override per (client, number)
        throw new StateConflictError(`The scope of configuration ${config.id} is taken by ${holder.id}`);
      }
      webhookConfigs.set(config.id, config);
      ofClient.all.set(config.id, config);
      ofClient.byScope.set(config.messagingNumberId, config);
    },
    deleteWebhookConfig(id) {
      const config = webhookConfigs.get(id);
      if (config === undefined) return;
      webhookConfigs.delete(id);
      const ofClient = configsByClient.get(config.clientId);
      ofClient?.all.delete(id);
      ofClient?.byScope.delete(config.messagingNumberId);
    },
    addChatParticipant(participant) {
      if (chatParticipants.has(participant.id)) {
        throw new StateConflictError(`Chat participant id ${participant.id} is already used`);
      }
      if (!participant.conversationClosed) checkOpen(participant);
      chatParticipants.set(participant.id, participant);
      chatOrder.add(participant.id, participant);
      if (participant.conversationClosed) {
        closedOrder.add(participant.id, participant, chatOrder.seqOf(participant.id));
        enforceClosedChats();
      } else {
        indexOpen(participant);
      }
    },
    setConversationClosed(participant, closed) {
      if (participant.conversationClosed === closed) return;
      if (closed) {
        unindexOpen(participant);
        writable(participant).conversationClosed = true;
        closedOrder.add(participant.id, participant, chatOrder.seqOf(participant.id));
        enforceClosedChats();
      } else {
        indexOpen(participant); // throws on a second open chat: nothing changed yet
        writable(participant).conversationClosed = false;
        closedOrder.delete(participant.id);
      }
    },
    setAssignedTo(participant, userId) {
      if (participant.assignedTo === userId) return;
      if (!participant.conversationClosed) {
        if (participant.assignedTo !== null) unindexAgent(participant.assignedTo, participant.id);
        if (userId !== null) indexAgent(userId, participant.id);
      }
      writable(participant).assignedTo = userId;
    },
    addMessage(message) {
      if (messages.has(message.gstId)) throw new StateConflictError(`gstId ${message.gstId} is already used`);
      messages.set(message.gstId, message);
      messageOrder.add(message.gstId, message);
      while (messageOrder.size > limits.messages) {
        const oldest = messageOrder.first();
        if (oldest === undefined) break;
        messages.delete(oldest.gstId);
        messageOrder.delete(oldest.gstId);
      }
    },
    addRatingWidget(widget) {
      if (ratingWidgets.has(widget.id))
        throw new StateConflictError(`Rating widget id ${widget.id} is already used`);
      ratingWidgets.set(widget.id, widget);
      widgetOrder.add(widget.id, widget);
      const ofChat = widgetsByChat.get(widget.chatParticipantId);
      if (ofChat === undefined) widgetsByChat.set(widget.chatParticipantId, [widget]);
      else ofChat.push(widget);
      while (widgetOrder.size > limits.ratingWidgets) {
        const oldest = widgetOrder.first();
        if (oldest === undefined) break;
        dropWidget(oldest);
      }
    },
    addMedia(record) {
      if (media.has(record.id)) throw new StateConflictError(`Media id ${record.id} is already used`);
      media.set(record.id, record);
      mediaOrder.add(record.id, record);
      mediaBytes += record.size;
      const maxFiles = limits.media ?? DEFAULT_MEDIA_RETENTION.media;
      const maxBytes = limits.mediaBytes ?? DEFAULT_MEDIA_RETENTION.mediaBytes;
      while (mediaOrder.size > maxFiles || (mediaBytes > maxBytes && mediaOrder.size > 0)) {
        const oldest = mediaOrder.first();
        if (oldest === undefined) break;
        media.delete(oldest.id);
        mediaOrder.delete(oldest.id);
        mediaBytes -= oldest.size;
      }
    },
    clear() {
      mediaBytes = 0;
      for (const map of [
        clients,
        teams,
        users,
        numbers,
        webhookConfigs,
        chatParticipants,
        messages,
        sessions,
        ratingWidgets,
        media,
        clientsByRef,
        usersByApiKey,
        liveUsersByEmail,
        usersByClient,
        numbersByMsisdn,
        numbersByMessagingId,
        numbersByClient,
        configsByClient,
        openChats,
        openChatsByAgent,
        widgetsByChat,
      ] as Map<unknown, unknown>[]) {
        map.clear();
      }
      for (const sequence of [chatOrder, openOrder, closedOrder, messageOrder, widgetOrder, mediaOrder])
        sequence.clear();
    },
  };
  return state;
}

/** The ChatParticipant seed's defaults, parsed once: a new chat reads them, no parse per chat. */
const DEFAULTS = chatParticipantSeedSchema.parse({ clientRef: 'x', messagingClientNumber: 'x', sender: 'x' });

/**
 * Moves an outbound message along a documented delivery transition at `now`: its status, and the
 * fields the transition sets (a FAILED without codes of its own gets the generic ones).
 */
export function applyDeliveryTransition(
  message: OutboundMessage,
  transition: DeliveryTransition,
  now: string,
  failure: { readonly errorCode?: string | undefined; readonly errorCodeString?: string | undefined } = {},
): void {
  message.status = transition.to;
  for (const field of transition.sets) {
    if (field === 'deliveryTime') message.deliveryTime = now;
    else if (field === 'readTime') message.readTime = now;
    else if (field === 'playedTime') message.playedTime = now;
    else if (field === 'errorCode') message.errorCode = failure.errorCode ?? '1000';
    else message.errorCodeString = failure.errorCodeString ?? 'Message failed to send';
  }
}

/**
 * An outbound message to a chat's customer, ACCEPTED at `sendTime`, of one shape whatever sends it
 * (a business message, an agent's message): `fields` are what differ between the two.
 */
export function newOutboundMessage(
  number: EmulatorNumber,
  participant: EmulatorChatParticipant,
  sendTime: string,
  fields: Pick<OutboundMessage, 'gstId' | 'voice' | 'template' | 'ctId' | 'conversationCtId'> &
    Partial<Pick<OutboundMessage, 'agentMessage'>>,
): OutboundMessage {
  return {
    gstId: fields.gstId,
    clientId: number.clientId,
    numberId: number.id,
    chatParticipantId: participant.id,
    to: participant.sender,
    recipientUserId: participant.userId,
    conversationId: participant.conversationId,
    participantId: participant.engineParticipantId,
    voice: fields.voice,
    template: fields.template,
    ctId: fields.ctId,
    conversationCtId: fields.conversationCtId,
    status: 'ACCEPTED',
    sendTime,
    deliveryTime: null,
    readTime: null,
    playedTime: null,
    errorCode: null,
    errorCodeString: null,
    ...(fields.agentMessage === undefined ? {} : { agentMessage: fields.agentMessage }),
  };
}

/**
 * Builds a chat participant record for a customer on a number (not stored). One object literal
 * with every field: a customer's first message makes one, so it is built in one allocation of
 * one shape.
 */
export function newChatParticipant(
  state: Pick<EmulatorState, 'clients'>,
  number: EmulatorNumber,
  sender: string,
  /** Its creation time: a Date, or the ISO 8601 text of one. */
  now: Date | string,
  seed: Partial<z.output<typeof chatParticipantSeedSchema>> = {},
): EmulatorChatParticipant {
  const time = typeof now === 'string' ? now : now.toISOString();
  const firstName = seed.firstName ?? DEFAULTS.firstName;
  const lastName = seed.lastName ?? DEFAULTS.lastName;
  return {
    id: seed.id ?? newId(),
    clientRef: state.clients.get(number.clientId)?.clientRef ?? '',
    messagingClientNumber: number.messagingNumber.number,
    sender,
    userId: seed.userId ?? bsuidFor(sender),
    username: seed.username ?? DEFAULTS.username,
    parentUserId: seed.parentUserId ?? DEFAULTS.parentUserId,
    firstName,
    lastName,
    email: seed.email ?? DEFAULTS.email,
    subject: seed.subject ?? DEFAULTS.subject,
    team: seed.team ?? DEFAULTS.team,
    conversationClosed: seed.conversationClosed ?? DEFAULTS.conversationClosed,
    missedConversation: seed.missedConversation ?? DEFAULTS.missedConversation,
    afterHoursConversation: seed.afterHoursConversation ?? DEFAULTS.afterHoursConversation,
    chatBotConversation: seed.chatBotConversation ?? DEFAULTS.chatBotConversation,
    sendRatingWidget: seed.sendRatingWidget ?? DEFAULTS.sendRatingWidget,
    channel: seed.channel ?? DEFAULTS.channel,
    conversationStatus: seed.conversationStatus ?? DEFAULTS.conversationStatus,
    assignedTo: seed.assignedTo ?? DEFAULTS.assignedTo,
    lastAssignedAgent: seed.lastAssignedAgent ?? DEFAULTS.lastAssignedAgent,
    openedBy: seed.openedBy ?? DEFAULTS.openedBy,
    terminatedBy: seed.terminatedBy ?? DEFAULTS.terminatedBy,
    unread: seed.unread ?? DEFAULTS.unread,
    rated: seed.rated ?? DEFAULTS.rated,
    expectingRating: seed.expectingRating ?? DEFAULTS.expectingRating,
    companyName: seed.companyName ?? DEFAULTS.companyName,
    accountNumber: seed.accountNumber ?? DEFAULTS.accountNumber,
    activeFlow: seed.activeFlow ?? DEFAULTS.activeFlow,
    nodeName: seed.nodeName ?? DEFAULTS.nodeName,
    botName: seed.botName ?? DEFAULTS.botName,
    timezone: seed.timezone ?? DEFAULTS.timezone,
    gstn: seed.gstn ?? DEFAULTS.gstn,
    ctn: seed.ctn ?? DEFAULTS.ctn,
    clientId: number.clientId,
    numberId: number.id,
    fullName: firstName === '' ? lastName : lastName === '' ? firstName : `${firstName} ${lastName}`,
    phoneNumber: sender,
    createdTime: time,
    lastMessageTime: time,
    customerLastMessageTime: null,
    conversationId: newId(),
    engineParticipantId: newId(),
    lastOutboundTemplate: null,
  };
}

/**
 * A BSUID for a customer phone number. The BSUID format is not shown in the documentation;
 * the emulator derives a stable `BSUID.<digits>` so the same customer keeps the same id.
 */
function bsuidFor(msisdn: string): string {
  return `BSUID.${msisdn.replace(/\D/g, '')}`;
}

/** Display name of a user: first and last name, else the e-mail. */
export function userDisplayName(user: Pick<EmulatorUser, 'firstName' | 'lastName' | 'email'>): string {
  const name = [user.firstName, user.lastName].filter((part) => part !== '').join(' ');
  return name === '' ? user.email : name;
}

/** Finds a number by link id, nested number id or msisdn: whatever a control call names it by. */
export function findNumber(state: EmulatorState, ref: string): EmulatorNumber | undefined {
  return state.numbers.get(ref) ?? state.numberByMessagingNumberId(ref) ?? state.numberByMsisdn(ref);
}

/** Scope rules 1–3: the configuration for events on a number: its override, else the client default. */
export function webhookConfigFor(
  state: EmulatorState,
  number: EmulatorNumber,
): StoredWebhookConfig | undefined {
  return (
    state.webhookConfigOf(number.clientId, number.messagingNumber.id) ??
    state.webhookConfigOf(number.clientId, null)
  );
}
