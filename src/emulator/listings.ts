import { z } from 'zod';
import { DELIVERY_STATUSES, WEBHOOK_TYPES } from '../schemas/index.js';
import type { DeliveryLogEntry } from './emit/delivery.js';
import { maskUrl } from '../util/secrets.js';
import { BadRequestError } from './errors.js';
import { MAX_PAGE_SIZE } from './http/page.js';
import {
  findNumber,
  type EmulatorChatParticipant,
  type EmulatorState,
  type Listing,
  type OutboundMessage,
  type RatingWidgetTrigger,
} from './state/index.js';

/*
 * The emulator's own listings (control surface and inspector): chats, outbound messages, rating
 * widgets and the delivery log, a page at a time, filtered on the server. A page is found from
 * its cursor by position (the state's listings, the log's sequence numbers), never by walking
 * from the start; only a filtered `total` counts the records.
 */

/** One page of a listing. */
export interface CursorPage<T> {
  readonly items: readonly T[];
  /** Records the listing has in all (with its filters). */
  readonly total: number;
  readonly limit: number;
  /** The `cursor` of the next page; null on the last one. */
  readonly nextCursor: string | null;
}

/** The delivery states of the log. */
export const DELIVERY_STATES = ['queued', 'held', 'delivering', 'delivered', 'failed'] as const;

/** Default `limit` of a listing page. */
export const DEFAULT_LIST_LIMIT = 50;

const blankToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** Paging of every listing: `limit`, `cursor` (from the previous page), `order`. */
const pagingShape = {
  limit: z.preprocess(
    blankToUndefined,
    z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_LIST_LIMIT),
  ),
  cursor: optional(z.coerce.number().int().min(0)),
  /** `asc`: oldest first; `desc`: newest first. */
  order: z.preprocess(blankToUndefined, z.enum(['asc', 'desc']).default('asc')),
};
const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

/** Query of the chat participant listing. */
export const chatListQuerySchema = z.object({
  ...pagingShape,
  /** true: open chats only; false: closed ones (each listed in creation order, as every chat). */
  open: optional(booleanQuery),
  /** Your number: msisdn, link id or nested messaging number id. */
  number: optional(z.string()),
  /** The customer's phone number. */
  customer: optional(z.string()),
  /** The assigned agent's user id. */
  agent: optional(z.string()),
  clientRef: optional(z.string()),
});
export type ChatListQuery = z.output<typeof chatListQuerySchema>;

/** Query of the outbound message listing. */
export const messageListQuerySchema = z.object({
  ...pagingShape,
  status: optional(z.enum(DELIVERY_STATUSES)),
  number: optional(z.string()),
  chatParticipantId: optional(z.string()),
});
export type MessageListQuery = z.output<typeof messageListQuerySchema>;

/** Query of the rating widget listing. */
export const ratingWidgetListQuerySchema = z.object({
  ...pagingShape,
  chatParticipantId: optional(z.string()),
});
export type RatingWidgetListQuery = z.output<typeof ratingWidgetListQuerySchema>;

/** Query of the delivery log listing. */
export const deliveryListQuerySchema = z.object({
  ...pagingShape,
  type: optional(z.enum(WEBHOOK_TYPES)),
  state: optional(z.enum(DELIVERY_STATES)),
  /** The client number (msisdn) the event belongs to. */
  number: optional(z.string()),
  /** true: URLs as configured; by default their tokens are masked (see `maskUrl`). */
  reveal: optional(booleanQuery),
});
export type DeliveryListQuery = z.output<typeof deliveryListQuerySchema>;

/** Parses a listing query (a URL's search params or a plain object); 400 naming the parameter. */
export function parseListQuery<S extends z.ZodType>(
  schema: S,
  query: URLSearchParams | Readonly<Record<string, unknown>>,
): z.output<S> {
  const raw = query instanceof URLSearchParams ? Object.fromEntries(query) : query;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? 'query');
  throw new BadRequestError(`${field}: ${issue?.message ?? 'invalid'}`, { field });
}

type Paging = Pick<ChatListQuery, 'limit' | 'cursor' | 'order'>;

function pageOf<T>(
  listing: Listing<T>,
  query: Paging,
  match: ((item: T) => boolean) | undefined,
): CursorPage<T> {
  const { items, nextCursor } = listing.page({ ...query, match });
  return {
    items,
    total: match === undefined ? listing.size : listing.count(match),
    limit: query.limit,
    nextCursor: nextCursor === null ? null : String(nextCursor),
  };
}

/** All of `tests` (the defined ones), or undefined when there are none. */
function allOf<T>(
  tests: readonly (((item: T) => boolean) | undefined)[],
): ((item: T) => boolean) | undefined {
  const defined = tests.filter((test) => test !== undefined);
  if (defined.length === 0) return undefined;
  return (item) => defined.every((test) => test(item));
}

/** A page of chat participants (the stored records). */
export function chatParticipantPage(
  state: EmulatorState,
  query: ChatListQuery,
): CursorPage<EmulatorChatParticipant> {
  const numberId =
    query.number === undefined
      ? undefined
      : (findNumber(state, query.number)?.id ?? `unknown ${query.number}`);
  const clientId =
    query.clientRef === undefined
      ? undefined
      : (state.clientByRef(query.clientRef)?.id ?? `unknown ${query.clientRef}`);
  const listing =
    query.open === undefined
      ? state.listings.chatParticipants
      : query.open
        ? state.listings.openChats
        : state.listings.closedChats;
  const match = allOf<EmulatorChatParticipant>([
    numberId === undefined ? undefined : (chat) => chat.numberId === numberId,
    query.customer === undefined ? undefined : (chat) => chat.sender === query.customer,
    query.agent === undefined ? undefined : (chat) => chat.assignedTo === query.agent,
    clientId === undefined ? undefined : (chat) => chat.clientId === clientId,
  ]);
  return pageOf(listing, query, match);
}

/** A page of outbound messages. */
export function messagePage(state: EmulatorState, query: MessageListQuery): CursorPage<OutboundMessage> {
  const numberId =
    query.number === undefined
      ? undefined
      : (findNumber(state, query.number)?.id ?? `unknown ${query.number}`);
  const match = allOf<OutboundMessage>([
    query.status === undefined ? undefined : (message) => message.status === query.status,
    numberId === undefined ? undefined : (message) => message.numberId === numberId,
    query.chatParticipantId === undefined
      ? undefined
      : (message) => message.chatParticipantId === query.chatParticipantId,
  ]);
  return pageOf(state.listings.messages, query, match);
}

/** A page of rating widgets. */
export function ratingWidgetPage(
  state: EmulatorState,
  query: RatingWidgetListQuery,
): CursorPage<RatingWidgetTrigger> {
  const { chatParticipantId } = query;
  if (chatParticipantId === undefined) return pageOf(state.listings.ratingWidgets, query, undefined);
  // one chat's widgets come from its index: a few records, paged by position
  const all = state.ratingWidgetsOf(chatParticipantId);
  const ordered = query.order === 'asc' ? all : [...all].reverse();
  const start = query.cursor ?? 0;
  const items = ordered.slice(start, start + query.limit);
  const end = start + items.length;
  return {
    items,
    total: all.length,
    limit: query.limit,
    nextCursor: end < ordered.length ? String(end) : null,
  };
}

/** The first index of `log` (ascending by sequence) whose sequence is >= `sequence`. */
function firstAtOrAfter(log: readonly DeliveryLogEntry[], sequence: number): number {
  let [low, high] = [0, log.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((log[middle] as DeliveryLogEntry).sequence < sequence) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The delivery log as a {@link Listing}: the same cursor (an entry's sequence number), the same
 * `page` and `count` as the state's listings, so one pager serves every listing. A page is found
 * from its cursor by binary search (the log is ascending by sequence).
 */
export function deliveryListing(log: readonly DeliveryLogEntry[]): Listing<DeliveryLogEntry> {
  return {
    get size() {
      return log.length;
    },
    values: () => log.values(),
    page({ cursor, limit, order, match }) {
      const asc = order === 'asc';
      const step = asc ? 1 : -1;
      let i =
        cursor === undefined
          ? asc
            ? 0
            : log.length - 1
          : asc
            ? firstAtOrAfter(log, cursor + 1)
            : firstAtOrAfter(log, cursor) - 1;
      const items: DeliveryLogEntry[] = [];
      let nextCursor: number | null = null;
      for (; i >= 0 && i < log.length; i += step) {
        const entry = log[i] as DeliveryLogEntry;
        if (match !== undefined && !match(entry)) continue;
        if (items.length === limit) {
          nextCursor = (items[items.length - 1] as DeliveryLogEntry).sequence;
          break;
        }
        items.push(entry);
      }
      return { items, nextCursor };
    },
    // the log is bounded (deliveryLogLimit): counting its matches is bounded too
    count: (match) => log.reduce((n, entry) => (match(entry) ? n + 1 : n), 0),
  };
}

/** The log entries a query's filters select (type, state, your number); undefined: all. */
export function deliveryMatch(
  query: Pick<DeliveryListQuery, 'type' | 'state' | 'number'>,
): ((entry: DeliveryLogEntry) => boolean) | undefined {
  return allOf<DeliveryLogEntry>([
    query.type === undefined ? undefined : (entry) => entry.type === query.type,
    query.state === undefined ? undefined : (entry) => entry.state === query.state,
    query.number === undefined ? undefined : (entry) => entry.messagingNumber === query.number,
  ]);
}

/** A log entry as listed: its URL's secrets masked unless `reveal` (a copy; the log keeps the URL). */
function shownDelivery(entry: DeliveryLogEntry, reveal: boolean | undefined): DeliveryLogEntry {
  return reveal === true ? entry : { ...entry, url: maskUrl(entry.url) };
}

/**
 * A page of the delivery log (oldest first, or newest first with `order: 'desc'`); URLs masked
 * unless `reveal`.
 */
export function deliveryPage(
  log: readonly DeliveryLogEntry[],
  query: DeliveryListQuery,
): CursorPage<DeliveryLogEntry> {
  const page = pageOf(deliveryListing(log), query, deliveryMatch(query));
  return { ...page, items: page.items.map((entry) => shownDelivery(entry, query.reveal)) };
}
