import { z } from 'zod';
import {
  compareWebhookConfigsForList,
  DELIVERY_TRANSITIONS,
  explainWebhookRoute,
  WEBHOOK_TYPES,
  type DeliveryStatus,
  type WebhookConfig,
  type WebhookRouteReason,
  type WebhookType,
} from '../../schemas/index.js';
import type { DeliveryLogEntry } from '../emit/delivery.js';
import type { Emulator } from '../emulator.js';
import { toWebhookConfigRow } from '../routes/webhook-config.js';
import { activeChatCount, userDisplayName, webhookConfigsOfClient } from '../state.js';

/** Where an event of one type on one number would go, and which scope rule says so. */
export interface InspectorRoute {
  readonly url: string | null;
  readonly reason: WebhookRouteReason | 'Cloud number: no session events';
}

/** What the inspector page shows of the state (no credential beyond the seed's API keys). */
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
  readonly chats: readonly {
    readonly id: string;
    readonly clientRef: string;
    readonly number: string;
    readonly customer: string;
    readonly agent: string | null;
    readonly closed: boolean;
    readonly status: string;
  }[];
  readonly agents: readonly {
    readonly id: string;
    readonly name: string;
    readonly clientRef: string;
    readonly liveChatRole: string | null;
    readonly available: boolean;
    readonly chatLimit: number;
    readonly openChats: number;
  }[];
  readonly ratingWidgets: readonly {
    id: string;
    chat: string;
    agent: string | null;
    by: string;
    time: string;
  }[];
  /** Outbound messages with the statuses the transition table allows next. */
  readonly messages: readonly {
    readonly gstId: string;
    readonly number: string;
    readonly to: string;
    readonly voice: boolean;
    readonly status: DeliveryStatus;
    readonly next: readonly DeliveryStatus[];
  }[];
}

/** The legal next statuses of an outbound message (PLAYED for voice messages only). */
export function nextStatuses(status: DeliveryStatus, voice: boolean): DeliveryStatus[] {
  return DELIVERY_TRANSITIONS.filter((t) => t.from === status && (voice || t.voiceOnly !== true)).map(
    (t) => t.to,
  );
}

/** Builds the view from the emulator's state, with the emulator's own scope resolution. */
export function inspectorView(
  emulator: Pick<Emulator, 'state' | 'clock'> & {
    readonly isSeedKey?: ((userId: string, apiKey: string) => boolean) | undefined;
  },
): InspectorView {
  const { state } = emulator;
  const refOf = (clientId: string): string => state.clients.get(clientId)?.clientRef ?? '';
  const userName = (id: string | null): string | null => {
    const user = id === null ? undefined : state.users.get(id);
    return user === undefined ? id : userDisplayName(user);
  };
  const msisdnOf = (linkId: string): string => state.numbers.get(linkId)?.messagingNumber.number ?? '';
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
      const configs = webhookConfigsOfClient(state, number.clientId);
      const session = state.sessions.get(number.id);
      const routes = Object.fromEntries(
        WEBHOOK_TYPES.map((type): [WebhookType, InspectorRoute] => {
          if (type === 'session' && number.kind === 'cloud')
            return [type, { url: null, reason: 'Cloud number: no session events' }];
          const { url, reason } = explainWebhookRoute(configs, number.messagingNumber.id, type);
          return [type, { url: url ?? null, reason }];
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
      webhookConfigsOfClient(state, client.id)
        .sort(compareWebhookConfigsForList)
        .map((config) => ({ clientRef: client.clientRef, ...toWebhookConfigRow(config) })),
    ),
    chats: [...state.chatParticipants.values()].map((chat) => ({
      id: chat.id,
      clientRef: refOf(chat.clientId),
      number: chat.messagingClientNumber,
      customer: chat.sender,
      agent: userName(chat.assignedTo),
      closed: chat.conversationClosed,
      status: chat.conversationStatus,
    })),
    agents: [...state.users.values()]
      .filter((user) => user.liveChatRole !== null && !user.deleted)
      .map((user) => ({
        id: user.id,
        name: userDisplayName(user),
        clientRef: refOf(user.clientId),
        liveChatRole: user.liveChatRole,
        available: user.availabilityStatus && !user.disabled,
        chatLimit: user.agentChatLimit,
        openChats: activeChatCount(state, user.id),
      })),
    ratingWidgets: [...state.ratingWidgets.values()].map((widget) => ({
      id: widget.id,
      chat: widget.chatParticipantId,
      agent: userName(widget.agentId),
      by: widget.triggeredBy,
      time: widget.time,
    })),
    messages: [...state.messages.values()].map((message) => ({
      gstId: message.gstId,
      number: msisdnOf(message.numberId),
      to: state.chatParticipants.get(message.chatParticipantId)?.sender ?? '',
      voice: message.voice,
      status: message.status,
      next: nextStatuses(message.status, message.voice),
    })),
  };
}

const DELIVERY_STATES = ['queued', 'held', 'delivering', 'delivered', 'failed'] as const;
const blankToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);

/** Query of the log page: filters and paging (newest first). */
export const logQuerySchema = z.object({
  type: z.preprocess(blankToUndefined, z.enum(WEBHOOK_TYPES).optional()),
  state: z.preprocess(blankToUndefined, z.enum(DELIVERY_STATES).optional()),
  /** The client number (msisdn) the event belongs to. */
  number: z.preprocess(blankToUndefined, z.string().optional()),
  page: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).default(0)),
  size: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(500).default(50)),
});
export type LogQuery = z.output<typeof logQuerySchema>;

/** One page of the delivery log, newest first, and the totals for the pager. */
export function logPage(
  log: readonly DeliveryLogEntry[],
  query: LogQuery,
): { rows: DeliveryLogEntry[]; total: number; page: number; pages: number } {
  const filtered =
    query.type === undefined && query.state === undefined && query.number === undefined
      ? log
      : log.filter(
          (e) =>
            (query.type === undefined || e.type === query.type) &&
            (query.state === undefined || e.state === query.state) &&
            (query.number === undefined || e.messagingNumber === query.number),
        );
  const total = filtered.length;
  const pages = Math.max(1, Math.ceil(total / query.size));
  const page = Math.min(query.page, pages - 1);
  const end = total - page * query.size;
  const rows = filtered.slice(Math.max(0, end - query.size), end).reverse();
  return { rows, total, page, pages };
}
