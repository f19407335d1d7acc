import type { WebhookPayloads, WebhookType } from '../schemas/index.js';

/** Derives an event's identity for deduplication; undefined means "do not deduplicate". */
export type DedupeKeyFn<T extends WebhookType> = (payload: WebhookPayloads[T]) => string | undefined;

const present = (part: unknown): boolean => part !== undefined && part !== null && part !== '';
const join = (...parts: readonly unknown[]): string | undefined =>
  parts.every(present) ? parts.join(':') : undefined;
/** A one-part key (the hot chatbot and incoming cases): no array, no join. */
const single = (part: string | null | undefined): string | undefined =>
  present(part) ? (part as string) : undefined;
/** A two-part key (the hot status case): no array either. */
const pair = (first: unknown, second: unknown): string | undefined =>
  present(first) && present(second) ? `${String(first)}:${String(second)}` : undefined;

/**
 * The default identity of each webhook type:
 * - chatbot: `eventId` (the documented deduplication key);
 * - incoming: `gstId`; for REACTION, whose gstId is the reacted-to message, gstId + sentTime + text;
 * - status: `gstId` + `status` (one receipt per state change);
 * - session: `messagingNumber` + `statusType` + `status` + `timestamp`;
 * - event: `eventType` + `messagingNumber` + `timestamp`, plus the event's subject where it has one.
 * A payload lacking any part is not deduplicated.
 */
export const DEFAULT_DEDUPE_KEYS: { readonly [T in WebhookType]: DedupeKeyFn<T> } = {
  chatbot: (p) => single(p.eventId),
  incoming: (p) =>
    p.messageContentType === 'REACTION' ? join(p.gstId, p.sentTime, p.text ?? '-') : single(p.gstId),
  status: (p) => pair(p.gstId, p.status),
  session: (p) => join(p.messagingNumber, p.statusType, p.status ?? '-', p.timestamp),
  event: (p) => {
    // Each subject field belongs to one event type; read them without narrowing (type-only view).
    const fields = p as Readonly<Record<string, unknown>>;
    const subject = fields.templateName ?? fields.waId ?? fields.oldNumber ?? '-';
    return join(
      p.eventType,
      p.messagingNumber ?? '-',
      typeof subject === 'string' ? subject : '-',
      p.timestamp,
    );
  },
};

/** Callbacks for one conversation run in arrival order; this is what "one conversation" means. */
export type OrderingKeyFn<T extends WebhookType> = (payload: WebhookPayloads[T]) => string;

/**
 * Ordering keys: chatbot by chatParticipantId; incoming by sender + receiver; status by gstId;
 * session by messagingNumber; partner events by messagingNumber (else eventType).
 */
export const ORDERING_KEYS: { readonly [T in WebhookType]: OrderingKeyFn<T> } = {
  chatbot: (p) => `chatbot:${p.chatParticipantId}`,
  incoming: (p) => `incoming:${p.sender}:${p.receiver ?? ''}`,
  status: (p) => `status:${p.gstId}`,
  session: (p) => `session:${p.messagingNumber}`,
  event: (p) => `event:${String(p.messagingNumber ?? p.eventType)}`,
};
