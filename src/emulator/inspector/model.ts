import { z } from 'zod';
import {
  compareWebhookConfigsForList,
  DELIVERY_TRANSITIONS,
  explainWebhookRoute,
  WEBHOOK_TYPES,
  WEBHOOK_URL_FIELDS,
  type DeliveryStatus,
  type WebhookConfig,
  type WebhookRouteReason,
  type WebhookType,
} from '../../schemas/index.js';
import { maskUrl } from '../../util/secrets.js';
import { answeredDuplicate } from '../../pipeline/answered-duplicate.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import {
  chatParticipantPage,
  deliveryListing,
  deliveryMatch,
  DELIVERY_STATES,
  messagePage,
  ratingWidgetPage,
  type CursorPage,
} from '../listings.js';
import { toWebhookConfigRow } from '../routes/webhook-config.js';
import { userDisplayName, webhookConfigFor, type OutboundMessage } from '../state/index.js';
import type { Emulator } from '../types.js';
import { customerOf, deliveryContent, quoted } from './summary.js';

/** Where an event of one type on one number would go, and which scope rule says so. */
interface InspectorRoute {
  readonly url: string | null;
  /**
   * The scope rule's answer, worded for the reader: where no configuration applies, `nothing
   * configured yet` when the client has none at all (a fresh emulator), else `no client default
   * and no override (rule 8)`.
   */
  readonly reason:
    | Exclude<WebhookRouteReason, 'no default (rule 8)'>
    | 'Cloud number: no session events'
    | 'nothing configured yet'
    | 'no client default and no override (rule 8)';
}

/**
 * One page of a table of the view: its rows, how many there are in all, the next page's cursor. A
 * {@link CursorPage} of the listings under the names the inspector's JSON has always had.
 */
export interface InspectorPage<T> {
  readonly rows: readonly T[];
  readonly total: number;
  /** The cursor of the next page (older rows; for agents, later ones); null on the last. */
  readonly next: string | null;
}

/** A listing's page as a table of the view, each record made a row. */
function inspectorPage<T, R>(page: CursorPage<T>, row: (item: T) => R): InspectorPage<R> {
  return { rows: page.items.map(row), total: page.total, next: page.nextCursor };
}

/** Rows per page of the chat, message, rating widget and agent tables. */
const INSPECTOR_PAGE_SIZE = 20;

/**
 * What the inspector page shows of the state (no credential beyond the seed's API keys). The
 * chats, messages and rating widgets are one page each, newest first: the view's size does not
 * grow with the state.
 */
export interface InspectorView {
  readonly clock: number;
  readonly keys: readonly { apiKey: string; email: string; role: string; clientRef: string }[];
  readonly numbers: readonly {
    readonly clientRef: string;
    readonly msisdn: string;
    readonly linkId: string;
    readonly messagingNumberId: string;
    readonly kind: 'lite' | 'cloud';
    readonly session: string | null;
    readonly flaggedUntil: number | null;
    readonly routes: Readonly<Record<WebhookType, InspectorRoute>>;
  }[];
  /** Per client, in List order: the default first, then overrides by phone number. */
  readonly configs: readonly (WebhookConfig & { readonly clientRef: string })[];
  readonly chats: InspectorPage<{
    readonly id: string;
    readonly clientRef: string;
    readonly number: string;
    readonly customer: string;
    readonly agent: string | null;
    readonly closed: boolean;
    readonly status: string;
  }>;
  /** The newest open chats (the trigger forms offer them). */
  readonly openChats: readonly { readonly id: string; readonly customer: string; readonly number: string }[];
  readonly agents: InspectorPage<{
    readonly id: string;
    readonly name: string;
    readonly clientRef: string;
    readonly liveChatRole: string | null;
    readonly available: boolean;
    readonly chatLimit: number;
    readonly openChats: number;
  }>;
  readonly ratingWidgets: InspectorPage<{
    id: string;
    chat: string;
    agent: string | null;
    by: string;
    time: string;
  }>;
  /** Outbound messages with the statuses the transition table allows next. */
  readonly messages: InspectorPage<{
    readonly gstId: string;
    readonly number: string;
    readonly to: string;
    readonly voice: boolean;
    readonly status: DeliveryStatus;
    readonly next: readonly DeliveryStatus[];
  }>;
}

const blankToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);
const cursor = z.preprocess(blankToUndefined, z.coerce.number().int().min(0).optional());

/**
 * Query of the page and its parts: the log's filters and page (newest first), and the position
 * and filter of the state tables (a cursor per table, from its Older link).
 */
export const logQuerySchema = z.object({
  type: z.preprocess(blankToUndefined, z.enum(WEBHOOK_TYPES).optional()),
  state: z.preprocess(blankToUndefined, z.enum(DELIVERY_STATES).optional()),
  /** The client number (msisdn) the event belongs to. */
  number: z.preprocess(blankToUndefined, z.string().optional()),
  page: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).default(0)),
  size: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(500).default(50)),
  /** The chats table: open or closed ones only. */
  chats: z.preprocess(blankToUndefined, z.enum(['open', 'closed']).optional()),
  /** The chats table: one customer's (phone number). */
  customer: z.preprocess(blankToUndefined, z.string().optional()),
  chatsBefore: cursor,
  messagesBefore: cursor,
  widgetsBefore: cursor,
  agentsAfter: cursor,
  /** The chat shown as a conversation (its chat participant id). */
  conversation: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  /** `1`: URLs with their tokens (an explicit reveal); masked otherwise. */
  reveal: z.preprocess(blankToUndefined, z.enum(['1']).optional()),
});
export type LogQuery = z.output<typeof logQuerySchema>;
/** The query with nothing set: the first page of everything. */
export const FIRST_PAGE: LogQuery = logQuerySchema.parse({});

/** The legal next statuses of an outbound message (PLAYED for voice messages only). */
function nextStatuses(status: DeliveryStatus, voice: boolean): DeliveryStatus[] {
  return DELIVERY_TRANSITIONS.filter((t) => t.from === status && (voice || t.voiceOnly !== true)).map(
    (t) => t.to,
  );
}

/** Builds the view from the emulator's state, with the emulator's own scope resolution. */
export function inspectorView(
  emulator: Pick<Emulator, 'state' | 'clock'> & {
    readonly isSeedKey?: ((userId: string, apiKey: string) => boolean) | undefined;
  },
  query: LogQuery = FIRST_PAGE,
): InspectorView {
  const { state } = emulator;
  const reveal = query.reveal === '1';
  const shownUrl = (url: string): string => (reveal ? url : maskUrl(url));
  const maskedConfig = (config: WebhookConfig): WebhookConfig => {
    if (reveal) return config;
    const masked: Record<string, unknown> = { ...config };
    for (const type of WEBHOOK_TYPES) {
      const field = WEBHOOK_URL_FIELDS[type];
      const value = config[field];
      if (typeof value === 'string') masked[field] = maskUrl(value);
    }
    return masked as WebhookConfig;
  };
  const refOf = (clientId: string): string => state.clients.get(clientId)?.clientRef ?? '';
  const userName = (id: string | null): string | null => {
    const user = id === null ? undefined : state.users.get(id);
    return user === undefined ? id : userDisplayName(user);
  };
  const msisdnOf = (linkId: string): string => state.numbers.get(linkId)?.messagingNumber.number ?? '';
  const newest = { limit: INSPECTOR_PAGE_SIZE, order: 'desc' } as const;
  const chats = chatParticipantPage(state, {
    ...newest,
    cursor: query.chatsBefore,
    open: query.chats === undefined ? undefined : query.chats === 'open',
    customer: query.customer,
    number: undefined,
    agent: undefined,
    clientRef: undefined,
  });
  const openChats = chatParticipantPage(state, {
    limit: 50,
    order: 'desc',
    cursor: undefined,
    open: true,
    customer: undefined,
    number: undefined,
    agent: undefined,
    clientRef: undefined,
  });
  const messages = messagePage(state, {
    ...newest,
    cursor: query.messagesBefore,
    status: undefined,
    number: undefined,
    chatParticipantId: undefined,
  });
  const widgets = ratingWidgetPage(state, {
    ...newest,
    cursor: query.widgetsBefore,
    chatParticipantId: undefined,
  });
  // agents: users with a live-chat role, in creation order (a page of them: users are many, too)
  const agentRows: InspectorView['agents']['rows'][number][] = [];
  let agentTotal = 0;
  let agentsNext: string | null = null;
  let position = 0;
  for (const user of state.users.values()) {
    if (user.liveChatRole === null || user.deleted) continue;
    agentTotal += 1;
    position += 1;
    if (position <= (query.agentsAfter ?? 0)) continue;
    if (agentRows.length === INSPECTOR_PAGE_SIZE) {
      agentsNext ??= String(position - 1);
      continue;
    }
    agentRows.push({
      id: user.id,
      name: userDisplayName(user),
      clientRef: refOf(user.clientId),
      liveChatRole: user.liveChatRole,
      available: user.availabilityStatus && !user.disabled,
      chatLimit: user.agentChatLimit,
      openChats: state.openChatCount(user.id),
    });
  }
  return {
    clock: emulator.clock.now(),
    // the seed's keys only (as the CLI prints them): a key set or made later is a credential
    keys: [...state.users.values()]
      .filter((u) => emulator.isSeedKey?.(u.id, u.apiKey) ?? true)
      .map((u) => ({
        apiKey: u.apiKey,
        email: u.email,
        role: u.liveChatRole ?? u.role,
        clientRef: refOf(u.clientId),
      })),
    numbers: [...state.numbers.values()].map((number) => {
      const config = webhookConfigFor(state, number);
      const session = state.sessions.get(number.id);
      // Whether the number's client configured anything: asked once per number, and only by a
      // type that no configuration routes.
      let configured: boolean | undefined;
      const routes = Object.fromEntries(
        WEBHOOK_TYPES.map((type): [WebhookType, InspectorRoute] => {
          if (type === 'session' && number.kind === 'cloud')
            return [type, { url: null, reason: 'Cloud number: no session events' }];
          const { url, reason } = explainWebhookRoute(
            config === undefined ? [] : [config],
            number.messagingNumber.id,
            type,
          );
          if (reason !== 'no default (rule 8)')
            return [type, { url: url === undefined ? null : shownUrl(url), reason }];
          configured ??= state.webhookConfigsOfClient(number.clientId).length > 0;
          return [
            type,
            {
              url: null,
              reason: configured ? 'no client default and no override (rule 8)' : 'nothing configured yet',
            },
          ];
        }),
      ) as Record<WebhookType, InspectorRoute>;
      return {
        clientRef: refOf(number.clientId),
        msisdn: number.messagingNumber.number,
        linkId: number.id,
        messagingNumberId: number.messagingNumber.id,
        kind: number.kind,
        session: session?.statusType ?? null,
        flaggedUntil: session?.flaggedUntil ?? null,
        routes,
      };
    }),
    configs: [...state.clients.values()].flatMap((client) =>
      state
        .webhookConfigsOfClient(client.id)
        .sort(compareWebhookConfigsForList)
        .map((config) => ({ clientRef: client.clientRef, ...maskedConfig(toWebhookConfigRow(config)) })),
    ),
    chats: inspectorPage(chats, (chat) => ({
      id: chat.id,
      clientRef: refOf(chat.clientId),
      number: chat.messagingClientNumber,
      customer: chat.sender,
      agent: userName(chat.assignedTo),
      closed: chat.conversationClosed,
      status: chat.conversationStatus,
    })),
    openChats: openChats.items.map((chat) => ({
      id: chat.id,
      customer: chat.sender,
      number: chat.messagingClientNumber,
    })),
    agents: { rows: agentRows, total: agentTotal, next: agentsNext },
    ratingWidgets: inspectorPage(widgets, (widget) => ({
      id: widget.id,
      chat: widget.chatParticipantId,
      agent: userName(widget.agentId),
      by: widget.triggeredBy,
      time: widget.time,
    })),
    messages: inspectorPage(messages, (message) => ({
      gstId: message.gstId,
      number: msisdnOf(message.numberId),
      to: message.to,
      voice: message.voice,
      status: message.status,
      next: nextStatuses(message.status, message.voice),
    })),
  };
}

/** What the receiver's answer says of a delivery, beyond its status. */
export interface DeliveryNotes {
  /** The receiver answered that it had seen the event already (`{"duplicate": true}`). */
  readonly answeredDuplicate: boolean;
  /** A chatbot event's direction. */
  readonly direction: 'INCOMING' | 'OUTGOING' | null;
  /**
   * Why the last attempt failed, in plain words: `connection refused`, `timeout (no answer
   * within 5000 ms)`, `HTTP 500: <first bytes of the body>`, else the error; null when it did not.
   */
  readonly failure: string | null;
}

/** Length of the receiver's body quoted in a failure reason. */
const QUOTED_BODY = 80;

/** The notes of a log entry (see {@link DeliveryNotes}). */
export function deliveryNotes(entry: DeliveryLogEntry): DeliveryNotes {
  const direction = entry.type === 'chatbot' ? entry.payload.direction : undefined;
  return {
    answeredDuplicate: answeredDuplicate(entry.responseStatus, entry.responseBody),
    direction: direction === 'INCOMING' || direction === 'OUTGOING' ? direction : null,
    failure: failureOf(entry),
  };
}

function failureOf(entry: DeliveryLogEntry): string | null {
  if (entry.error === null) return null;
  if (entry.responseStatus !== null) {
    const body = (entry.responseBody ?? '').replace(/\s+/g, ' ').trim();
    const quoted = body.length > QUOTED_BODY ? `${body.slice(0, QUOTED_BODY)}…` : body;
    return `HTTP ${entry.responseStatus}${quoted === '' ? '' : `: ${quoted}`}`;
  }
  if (/ECONNREFUSED/.test(entry.error)) return 'connection refused';
  const timeout = /^Timed out after (\d+) ms/.exec(entry.error);
  if (timeout !== null) return `timeout (no answer within ${timeout[1] ?? ''} ms)`;
  return entry.error;
}

/**
 * One page of the delivery log, newest first, and the totals for the pager: the page numbered
 * links of the inspector over the same listing and filters as `GET /_emulator/deliveries`
 * (`deliveryListing`, `deliveryMatch`). Page `n` starts after the `n × size` newest entries that
 * match, a position the listing's cursor reaches by a first page of that many.
 */
export function logPage(
  log: readonly DeliveryLogEntry[],
  query: LogQuery,
): { rows: DeliveryLogEntry[]; total: number; page: number; pages: number } {
  const listing = deliveryListing(log);
  const match = deliveryMatch(query);
  const total = match === undefined ? listing.size : listing.count(match);
  const pages = Math.max(1, Math.ceil(total / query.size));
  const page = Math.min(query.page, pages - 1);
  const skipped = page * query.size;
  const cursor =
    skipped === 0 ? undefined : listing.page({ order: 'desc', limit: skipped, match }).nextCursor;
  const rows = cursor === null ? [] : listing.page({ order: 'desc', limit: query.size, cursor, match }).items;
  return { rows, total, page, pages };
}

/** What an agent message said (Send an agent message, v2), or undefined for another message. */
function agentMessageText(message: OutboundMessage | undefined): string | undefined {
  const content = message?.agentMessage;
  if (content == null) return undefined;
  const text = content.caption ?? content.text;
  return content.mediaUrl === null ? (text ?? '') : `[media] ${text ?? content.mediaUrl}`;
}

/** One step of a conversation, as the deliveries tell it. */
interface ConversationItem {
  /** Who speaks: the customer, the business (bot or agent), or the platform (handover, closure). */
  readonly side: 'customer' | 'business' | 'platform';
  /** What happened: a message, an outbound message with its receipts, a handover, a closure. */
  readonly kind: 'message' | 'outbound' | 'handover' | 'closure';
  readonly text: string;
  /** Emulator time of the (first) delivery. */
  readonly time: number;
  /** The deliveries it is built from: sequence, id, type, state and the receiver's status. */
  readonly deliveries: readonly {
    readonly id: string;
    readonly sequence: number;
    readonly type: WebhookType;
    readonly state: string;
    readonly status: number | null;
  }[];
  /** An outbound message's receipts, in the order they were delivered. */
  readonly receipts: readonly string[];
}

/** A chat as a conversation: the chat, and its steps from the deliveries, oldest first. */
export interface ConversationView {
  readonly chat: {
    readonly id: string;
    readonly number: string;
    readonly customer: string;
    readonly agent: string | null;
    readonly status: string;
    readonly closed: boolean;
  };
  readonly items: readonly ConversationItem[];
}

/**
 * One chat as a conversation, built from the delivery log: the customer's messages (incoming and
 * INCOMING chatbot events, one bubble per message), the bot's and agents' messages (OUTGOING
 * chatbot events), outbound messages with their status receipts, the agent handovers (a chatbot
 * event naming a new agent, or an assignment event) and the closure. Undefined for an unknown chat.
 */
export function conversationOf(
  state: Pick<Emulator, 'state'>['state'],
  log: readonly DeliveryLogEntry[],
  chatParticipantId: string,
): ConversationView | undefined {
  const chat = state.chatParticipants.get(chatParticipantId);
  if (chat === undefined) return undefined;
  const agentName = (id: string | null): string | null => {
    const user = id === null ? undefined : state.users.get(id);
    return user === undefined ? id : userDisplayName(user);
  };
  const items: ConversationItem[] = [];
  const outbound = new Map<
    string,
    ConversationItem & { receipts: string[]; deliveries: ConversationItem['deliveries'][number][] }
  >();
  let agent: string | undefined;
  let closed = false;
  const ref = (entry: DeliveryLogEntry) => ({
    id: entry.id,
    sequence: entry.sequence,
    type: entry.type,
    state: entry.state,
    status: entry.responseStatus,
  });
  for (const entry of log) {
    // a fault's copy is the same event again: the conversation shows it once
    if (entry.duplicateOf !== null || entry.resendOf !== null) continue;
    const { payload } = entry;
    if (entry.type === 'chatbot') {
      if (payload.chatParticipantId !== chat.id) continue;
    } else if (
      entry.messagingNumber !== chat.messagingClientNumber ||
      customerOf(entry.type, payload) !== chat.sender
    ) {
      continue;
    }
    if (entry.type === 'incoming') {
      items.push({
        side: 'customer',
        kind: 'message',
        text: deliveryContent('incoming', payload),
        time: entry.emittedAt,
        deliveries: [ref(entry)],
        receipts: [],
      });
      continue;
    }
    if (entry.type === 'status') {
      const gstId = typeof payload.gstId === 'string' ? payload.gstId : '';
      const status = typeof payload.status === 'string' ? payload.status : '';
      const known = outbound.get(gstId);
      if (known === undefined) {
        const item = {
          side: 'business' as const,
          kind: 'outbound' as const,
          text: agentMessageText(state.messages.get(gstId)) ?? `Outbound message ${gstId.slice(0, 8)}`,
          time: entry.emittedAt,
          deliveries: [ref(entry)],
          receipts: [status],
        };
        outbound.set(gstId, item);
        items.push(item);
      } else {
        known.receipts.push(status);
        known.deliveries.push(ref(entry));
      }
      continue;
    }
    if (entry.type !== 'chatbot') continue;
    const named = typeof payload.assignedAgentName === 'string' ? payload.assignedAgentName : undefined;
    const text = typeof payload.messageText === 'string' ? payload.messageText : '';
    if (payload.messageType === 'USER_ACTION') {
      agent = named ?? agent;
      items.push({
        side: 'platform',
        kind: 'handover',
        text: text === '' ? `Assigned to ${named ?? 'an agent'}` : text,
        time: entry.emittedAt,
        deliveries: [ref(entry)],
        receipts: [],
      });
      continue;
    }
    if (named !== undefined && named !== agent) {
      agent = named;
      items.push({
        side: 'platform',
        kind: 'handover',
        text: `Agent ${named} holds the chat`,
        time: entry.emittedAt,
        deliveries: [ref(entry)],
        receipts: [],
      });
    }
    // the message itself: type and text (who holds the chat is shown as a handover)
    const said = deliveryContent('chatbot', {
      messageType: payload.messageType,
      messageText: payload.messageText,
    });
    if (payload.direction === 'INCOMING') {
      // the customer message its incoming delivery already shows: one bubble, both deliveries
      const last = items.at(-1);
      const quotedText = quoted(text);
      if (
        last?.side === 'customer' &&
        last.deliveries.every((d) => d.type !== 'chatbot') &&
        (last.text === said || (quotedText !== '' && last.text.includes(quotedText)))
      ) {
        (last.deliveries as ConversationItem['deliveries'][number][]).push(ref(entry));
      } else {
        items.push({
          side: 'customer',
          kind: 'message',
          text: said,
          time: entry.emittedAt,
          deliveries: [ref(entry)],
          receipts: [],
        });
      }
    } else {
      // an agent message (Send an agent message, v2): one bubble with its status receipts, which
      // name its gstId, the OUTGOING event's messageId
      const messageId = typeof payload.messageId === 'string' ? payload.messageId : '';
      const sent = state.messages.get(messageId);
      const item = {
        side: 'business' as const,
        kind: sent?.agentMessage == null ? ('message' as const) : ('outbound' as const),
        text: said,
        time: entry.emittedAt,
        deliveries: [ref(entry)],
        receipts: [] as string[],
      };
      if (item.kind === 'outbound' && !outbound.has(messageId)) outbound.set(messageId, item);
      items.push(item);
    }
    if (payload.conversationClosed === true && !closed) {
      closed = true;
      items.push({
        side: 'platform',
        kind: 'closure',
        text: 'Conversation closed',
        time: entry.emittedAt,
        deliveries: [ref(entry)],
        receipts: [],
      });
    }
  }
  const holder = agentName(chat.assignedTo);
  if (holder !== null && holder !== agent) {
    items.push({
      side: 'platform',
      kind: 'handover',
      text: `Agent ${holder} holds the chat (no event was sent)`,
      time: Number.NaN,
      deliveries: [],
      receipts: [],
    });
  }
  if (chat.conversationClosed && !closed) {
    items.push({
      side: 'platform',
      kind: 'closure',
      text: `Conversation closed (${chat.conversationStatus})`,
      time: Number.NaN,
      deliveries: [],
      receipts: [],
    });
  }
  return {
    chat: {
      id: chat.id,
      number: chat.messagingClientNumber,
      customer: chat.sender,
      agent: holder,
      status: chat.conversationStatus,
      closed: chat.conversationClosed,
    },
    items,
  };
}
