import {
  CHATBOT_DIRECTIONS,
  CHATBOT_MESSAGE_TYPES,
  DELIVERY_STATUSES,
  MESSAGE_CONTENT_TYPES,
  PARTNER_EVENT_TYPES,
  SESSION_STATUS_TYPES,
  WEBHOOK_TYPES,
  type ChatbotDirection,
  type ChatbotEvent,
  type DeliveryStatus,
  type IncomingMessage,
  type MessageContentType,
  type PartnerEvent,
  type PartnerEventType,
  type SessionStatus,
  type SessionStatusType,
  type StatusUpdate,
  type WebhookPayloads,
  type WebhookType,
} from '../schemas/index.js';
import { closestName } from '../util/options.js';

/** A chatbot `messageType` value (the documented ones). */
export type ChatbotMessageType = (typeof CHATBOT_MESSAGE_TYPES)[number];
/** The `messageType` values of INCOMING chatbot events: all but `Combined`, which only a bot sends. */
export type ChatbotIncomingMessageType = Exclude<ChatbotMessageType, 'Combined'>;

/**
 * A filter query: a webhook type, optionally narrowed by its kind, segments joined by `:`.
 *
 * | Query | Matches |
 * |---|---|
 * | `chatbot` | every chatbot event |
 * | `chatbot:INCOMING`, `chatbot:OUTGOING` | chatbot events by `direction` |
 * | `chatbot:INCOMING:TEXT` (any `messageType`) | by direction and `messageType`; `TEXT` also needs a string `messageText`, `MEDIA` a string `mediaUrl` |
 * | `incoming`, `incoming:TEXT`, `incoming:MEDIA`, … | incoming messages, by `messageContentType` |
 * | `status`, `status:READ`, `status:FAILED`, … | status receipts, by `status` |
 * | `session`, `session:connecting`, … | session status, by `statusType` |
 * | `event`, `event:USER_PREFERENCE`, … | partner events, by `eventType` |
 *
 * Only documented values are queries: a misspelled one is a compile error (and a `TypeError` at
 * registration in JavaScript). A value the documentation does not list reaches the type's query
 * (`event`) and a `filter()` predicate.
 */
export type FilterQuery =
  | WebhookType
  | `incoming:${MessageContentType}`
  | `status:${DeliveryStatus}`
  | `session:${SessionStatusType}`
  | `event:${PartnerEventType}`
  | `chatbot:${ChatbotDirection}`
  | `chatbot:INCOMING:${ChatbotIncomingMessageType}`
  | `chatbot:OUTGOING:${ChatbotMessageType}`;

/** The payload a query matches: its webhook type's payload narrowed to the query's kind. */
export type FilteredPayload<Q extends FilterQuery> = Q extends WebhookType
  ? WebhookPayloads[Q]
  : Q extends `incoming:${infer K}`
    ? Extract<IncomingMessage, { messageContentType: K }>
    : Q extends `status:${infer K}`
      ? Extract<StatusUpdate, { status: K }>
      : Q extends `session:${infer K}`
        ? SessionStatus & { readonly statusType: K }
        : Q extends `event:${infer K}`
          ? Extract<PartnerEvent, { eventType: K }>
          : Q extends `chatbot:${infer D}:${infer K}`
            ? Extract<ChatbotEvent, { direction: D }> &
                // What a messageType query guarantees beyond the value: TEXT a text, MEDIA a URL.
                (K extends 'TEXT'
                  ? { readonly messageType: 'TEXT'; readonly messageText: string }
                  : K extends 'MEDIA'
                    ? { readonly messageType: 'MEDIA'; readonly mediaUrl: string }
                    : { readonly messageType: K })
            : Q extends `chatbot:${infer D}`
              ? Extract<ChatbotEvent, { direction: D }>
              : never;

/** The webhook type of a query. */
export type FilterType<Q extends FilterQuery> = Q extends `${infer T}:${string}` ? T & WebhookType : Q;

/**
 * The queries whose events are also events of `Q`: `Q` itself, the queries under it, and the
 * queries above one of its members (the events they share are `Q`'s). In a composer scoped to
 * `chatbot:INCOMING`, `chatbot` and `chatbot:INCOMING:TEXT` are allowed; `status` is not.
 */
export type Narrow<Q extends FilterQuery, F extends FilterQuery> =
  Extract<Q, F | `${F}:${string}`> | Extract<F, Q | `${Q}:${string}`>;

/** The queries that match at least one event of `Q`. */
export type CompatibleQuery<Q extends FilterQuery> = {
  [F in FilterQuery]: [Narrow<Q, F>] extends [never] ? never : F;
}[FilterQuery];

type Fields = Readonly<Record<string, unknown>>;

/** A compiled query: its webhook type and the test on the payload (none: every event of the type). */
export interface CompiledQuery {
  readonly query: FilterQuery;
  readonly type: WebhookType;
  readonly test: ((payload: Fields) => boolean) | undefined;
}

/** The payload field each webhook type's second segment reads. */
const KIND_FIELDS = {
  incoming: 'messageContentType',
  status: 'status',
  session: 'statusType',
  event: 'eventType',
  chatbot: 'direction',
} as const satisfies Record<WebhookType, string>;

const KIND_VALUES: Readonly<Record<WebhookType, readonly string[]>> = {
  incoming: MESSAGE_CONTENT_TYPES,
  status: DELIVERY_STATUSES,
  session: SESSION_STATUS_TYPES,
  event: PARTNER_EVENT_TYPES,
  chatbot: CHATBOT_DIRECTIONS,
};

const INCOMING_CHATBOT_TYPES = CHATBOT_MESSAGE_TYPES.filter((type) => type !== 'Combined');

/** Every query, for the run-time check of a JavaScript caller and its "did you mean". */
const FILTER_QUERIES: readonly FilterQuery[] = [
  ...WEBHOOK_TYPES.flatMap((type) => [type, ...KIND_VALUES[type].map((kind) => `${type}:${kind}`)]),
  ...INCOMING_CHATBOT_TYPES.map((kind) => `chatbot:INCOMING:${kind}`),
  ...CHATBOT_MESSAGE_TYPES.map((kind) => `chatbot:OUTGOING:${kind}`),
] as FilterQuery[];
const KNOWN = new Set<string>(FILTER_QUERIES);

/**
 * The test of a chatbot `messageType` query. `TEXT` and `MEDIA` also check the field their type
 * promises (`messageText`, `mediaUrl`: the payload table omits them when absent), so the narrowed
 * type holds for every event that reaches the handler.
 */
function chatbotKindTest(direction: string, kind: string): (payload: Fields) => boolean {
  if (kind === 'TEXT') {
    return (p) => p.direction === direction && p.messageType === 'TEXT' && typeof p.messageText === 'string';
  }
  if (kind === 'MEDIA') {
    return (p) => p.direction === direction && p.messageType === 'MEDIA' && typeof p.mediaUrl === 'string';
  }
  return (p) => p.direction === direction && p.messageType === kind;
}

/** Compiles one query; throws a TypeError naming the closest query for an unknown one. */
export function compileQuery(query: unknown, method: string): CompiledQuery {
  if (typeof query !== 'string' || !KNOWN.has(query)) {
    const suggestion = typeof query === 'string' ? closestName(query, FILTER_QUERIES) : undefined;
    throw new TypeError(
      `${method}: unknown filter query ${JSON.stringify(query)}` +
        (suggestion === undefined
          ? ` (a webhook type, ${WEBHOOK_TYPES.join(', ')}, optionally followed by :<kind>, e.g. 'chatbot:INCOMING:TEXT', 'status:READ')`
          : `: did you mean '${suggestion}'?`),
    );
  }
  const [type, kind, messageType] = query.split(':') as [WebhookType, string?, string?];
  if (kind === undefined) return { query: query as FilterQuery, type, test: undefined };
  if (messageType !== undefined) {
    return { query: query as FilterQuery, type, test: chatbotKindTest(kind, messageType) };
  }
  const field = KIND_FIELDS[type];
  return { query: query as FilterQuery, type, test: (p) => p[field] === kind };
}

/** True when some event matches both queries: one is the other, or one is under the other. */
export function queriesOverlap(a: FilterQuery, b: FilterQuery): boolean {
  return a === b || a.startsWith(`${b}:`) || b.startsWith(`${a}:`);
}
