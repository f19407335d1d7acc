import { randomUUID } from 'node:crypto';
import type {
  ChatbotDirection,
  ChatbotPayloadVersion,
  DeliveryStatus,
  MessageContentType,
  OpenEnum,
  PartnerEventType,
  SessionStatus,
  SessionStatusString,
  StatusUpdate,
  UnlistedStatusUpdate,
} from '../schemas/index.js';
import {
  CHATBOT_DIRECTIONS,
  DELIVERY_STATUSES,
  MESSAGE_CONTENT_TYPES,
  PARTNER_EVENT_TYPES,
  SESSION_STATUS_STRINGS,
  SESSION_STATUS_TYPE_OF,
} from '../schemas/index.js';
import { fixtures } from './fixtures.js';
import type { ChatbotEventByVersion, IncomingMessageOf, PartnerEventOf } from './fixtures.js';

/**
 * Overrides for {@link buildIncoming}: any payload field, typed by the content type chosen.
 * An override of `undefined` removes that (optional) field from the payload.
 */
export type IncomingOverrides<T extends MessageContentType> = Partial<IncomingMessageOf<T>> & {
  readonly messageContentType?: T;
} & ExtraFields;

/**
 * Payload fields the documentation does not list, for drift tests (the payload types have no
 * index signature, so a builder takes them beside the typed overrides).
 */
export type ExtraFields = { readonly [field: string]: unknown };

/**
 * Overrides for {@link buildStatus}; an override of `undefined` removes that optional field.
 * `status` may be a value the documentation does not list (drift tests).
 */
export type StatusOverrides = Partial<Omit<UnlistedStatusUpdate, 'status'>> & {
  readonly status?: OpenEnum<DeliveryStatus> | undefined;
} & ExtraFields;

/** Overrides for {@link buildSession}; an override of `undefined` removes that optional field. */
export type SessionOverrides = Partial<SessionStatus> & ExtraFields;

/** Overrides for {@link buildPartnerEvent}, typed by the event type chosen. */
export type PartnerEventOverrides<T extends PartnerEventType> = Partial<PartnerEventOf<T>> & {
  readonly eventType?: T;
} & ExtraFields;

/** Options for {@link buildChatbotEvent}: the payload version plus any payload field. */
export type ChatbotEventOptions<V extends ChatbotPayloadVersion> = Partial<ChatbotEventByVersion[V]> &
  ExtraFields & {
    /**
     * Payload version to build (not a payload field; it is not copied into the payload).
     * @default 'v2'
     */
    readonly version?: V;
  };

/** Fields that describe a particular conversation turn, left out of the chatbot builder's defaults. */
const CHATBOT_CONTEXT_FIELDS = ['templateId', 'templateName', 'quotedMessageId', 'quotedText'] as const;

const isOneOf = <T extends string>(values: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (values as readonly string[]).includes(value);

/**
 * Copies `template`, then applies `fresh` and `overrides` in that order. A key whose override
 * is `undefined` is removed, so the payload matches what JSON would carry (the platform omits
 * null fields rather than sending them).
 */
function merge(
  template: object,
  fresh: Readonly<Record<string, unknown>>,
  overrides: object,
  omit: readonly string[] = [],
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...structuredClone(template), ...fresh };
  for (const key of omit) delete result[key];
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete result[key];
    else result[key] = value;
  }
  return result;
}

const nowIso = (): string => new Date().toISOString();

/**
 * Builds an incoming message that passes the schema. The content type's key fields come from
 * the matching fixture (`fixtures.incoming[type]`); gstId and requestId are fresh UUIDs and
 * sentTime is now. Everything else is deterministic.
 *
 * @example
 * const media = buildIncoming({ messageContentType: 'MEDIA', caption: 'Invoice' });
 * media.mediaUrl; // string: MEDIA key fields are filled and typed
 */
export function buildIncoming<T extends MessageContentType = 'TEXT'>(
  overrides: IncomingOverrides<T> = {},
): IncomingMessageOf<T> {
  const type: unknown = overrides.messageContentType ?? 'TEXT';
  const template = isOneOf(MESSAGE_CONTENT_TYPES, type) ? fixtures.incoming[type] : fixtures.incoming.TEXT;
  const fresh = { gstId: randomUUID(), requestId: randomUUID(), sentTime: nowIso() };
  return merge(template, fresh, overrides) as unknown as IncomingMessageOf<T>;
}

const STATUS_TIME_FIELDS = ['sendTime', 'deliveryTime', 'readTime', 'playedTime'] as const;

/**
 * Builds a status receipt that passes the schema. The status's fields come from the matching
 * fixture: the timestamps its transitions set (deliveryTime from DELIVERED on, readTime from
 * READ, playedTime on PLAYED) and errorCode/errorCodeString on FAILED. gstId and requestId are
 * fresh UUIDs and timestamps are now; pass `gstId` to report on one message through its states.
 *
 * @default status 'DELIVERED'
 * @example
 * const gstId = randomUUID();
 * const sent = buildStatus({ gstId, status: 'SENT' });
 * const read = buildStatus({ gstId, status: 'READ' });
 */
export function buildStatus(overrides: StatusOverrides = {}): StatusUpdate {
  const status: unknown = overrides.status ?? ('DELIVERED' satisfies DeliveryStatus);
  const template = isOneOf(DELIVERY_STATUSES, status) ? fixtures.status[status] : fixtures.status.SENT;
  const now = nowIso();
  const fresh: Record<string, unknown> = { gstId: randomUUID(), requestId: randomUUID() };
  for (const field of STATUS_TIME_FIELDS) if (template[field] != null) fresh[field] = now;
  return merge(template, fresh, overrides) as StatusUpdate;
}

/**
 * Builds a session status that passes the schema. statusType follows the status string
 * (`SESSION_STATUS_TYPE_OF`); given only a statusType, the first documented status string of
 * that type is used. timestamp is now.
 *
 * @default status 'Connected'
 * @example
 * buildSession({ status: 'Disconnected: QR Code timeout' }).statusType; // 'disconnected'
 */
export function buildSession(overrides: SessionOverrides = {}): SessionStatus {
  const status =
    overrides.status ??
    SESSION_STATUS_STRINGS.find((s) => SESSION_STATUS_TYPE_OF[s] === overrides.statusType) ??
    ('Connected' satisfies SessionStatusString);
  const template = isOneOf(SESSION_STATUS_STRINGS, status)
    ? fixtures.session[status]
    : fixtures.session.Connected;
  return merge(template, { status, timestamp: Date.now() }, overrides) as SessionStatus;
}

/**
 * Builds a partner event that passes the schema, with the event type's fields from the matching
 * fixture (`fixtures.event[eventType]`). timestamp is now.
 *
 * @default eventType 'USER_PREFERENCE' (a marketing opt-out, preferenceValue 'stop')
 * @example
 * buildPartnerEvent({ eventType: 'TEMPLATE_STATUS_CHANGED', templateStatus: 'APPROVED', rejectedReason: undefined });
 */
export function buildPartnerEvent<T extends PartnerEventType = 'USER_PREFERENCE'>(
  overrides: PartnerEventOverrides<T> = {},
): PartnerEventOf<T> {
  const type: unknown = overrides.eventType ?? 'USER_PREFERENCE';
  const template = isOneOf(PARTNER_EVENT_TYPES, type) ? fixtures.event[type] : fixtures.event.USER_PREFERENCE;
  return merge(template, { timestamp: Date.now() }, overrides) as unknown as PartnerEventOf<T>;
}

/**
 * Builds a chatbot event that passes the schema of its payload version: a plain text turn for
 * INCOMING (customer to bot) and a Combined widget reply for OUTGOING, with the msisdns and (v2)
 * the customer BSUID on the side the direction requires. eventId and messageId are fresh per
 * call (eventId is the deduplication key); timestamp is now.
 *
 * @default version 'v2', direction 'INCOMING'
 * @example
 * const reply = buildChatbotEvent({ direction: 'OUTGOING' }); // v2, recipientUserId set
 * const legacy = buildChatbotEvent({ version: 'v1', messageText: 'hi' });
 */
export function buildChatbotEvent(
  options: ChatbotEventOptions<'v1'> & { readonly version: 'v1' },
): ChatbotEventByVersion['v1'];
export function buildChatbotEvent(options?: ChatbotEventOptions<'v2'>): ChatbotEventByVersion['v2'];
export function buildChatbotEvent(
  options: ChatbotEventOptions<ChatbotPayloadVersion> = {},
): ChatbotEventByVersion[ChatbotPayloadVersion] {
  const { version = 'v2', ...overrides } = options;
  const direction: unknown = overrides.direction ?? ('INCOMING' satisfies ChatbotDirection);
  const byDirection = fixtures.chatbot[version];
  const template = isOneOf(CHATBOT_DIRECTIONS, direction) ? byDirection[direction] : byDirection.INCOMING;
  const fresh = { eventId: randomUUID(), messageId: `msg-${randomUUID()}`, timestamp: Date.now() };
  return merge(
    template,
    fresh,
    overrides,
    CHATBOT_CONTEXT_FIELDS,
  ) as ChatbotEventByVersion[ChatbotPayloadVersion];
}
