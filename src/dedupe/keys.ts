import { sha256Base64url, sha256BytesBase64url } from '../util/sha256.js';
import type { WebhookPayloads, WebhookType } from '../schemas/index.js';

/**
 * Derives an event's identity for deduplication; undefined means "do not deduplicate". The
 * pipeline never stores the identity itself, only its digest (`digestDedupeKey`), so a
 * custom function may return a string of any length and content.
 */
export type DedupeKeyFn<T extends WebhookType> = (payload: WebhookPayloads[T]) => string | undefined;

/** Length of a dedupe key: SHA-256 in base64url, unpadded. */
export const DEDUPE_KEY_LENGTH = 43;

/**
 * The key the pipeline stores for an identity: the base64url SHA-256 of `<type>` NUL `<identity>`
 * (UTF-8; an identity with a lone surrogate as UTF-16 after a 0xFF byte, see below),
 * {@link DEDUPE_KEY_LENGTH} characters whatever the sender sent. An identity is sender-controlled
 * and can be as long as the body limit (kept whole, a few thousand 1 MB `eventId`s would exhaust
 * a heap), and it may carry phone numbers or text that must not sit in memory, Redis or logs. The
 * type is hashed in (a type name holds no NUL), not prefixed in clear: `digest()` returns one flat
 * string, where `${type}:${digest}` would be a V8 cons string costing two more heap objects per
 * remembered key, over the 200 B target of bench scenario 3 (figures: docs/bench.md). A SHA-256 of
 * a short identity is one native call (src/util/sha256.ts).
 */
export function digestDedupeKey(type: WebhookType, identity: string): string {
  // UTF-8 turns every lone surrogate into U+FFFD, so "\ud800", "\udbff" and "\ufffd" would be
  // one key (two distinct events answered as duplicates, one never run). A string that is not
  // well-formed UTF-16 is hashed as its UTF-16 code units instead, after a 0xFF byte that no UTF-8
  // text contains: the two encodings never meet, and each keeps distinct strings distinct.
  // isWellFormed() of a one-byte string (any ASCII id) is answered without a scan.
  if ((identity as WellFormedCheck).isWellFormed()) return sha256Base64url(TYPE_TAGS[type] + identity);
  return sha256BytesBase64url(
    Buffer.concat([
      LONE_SURROGATE_TAG,
      Buffer.from(TYPE_TAGS[type], 'latin1'),
      Buffer.from(identity, 'utf16le'),
    ]),
  );
}

/** `String.prototype.isWellFormed` (Node 20; in the ES2024 lib, newer than this project's). */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** The first byte of an identity hashed as UTF-16: 0xFF never occurs in UTF-8. */
const LONE_SURROGATE_TAG = Buffer.from([0xff]);

const TYPE_TAGS: { readonly [T in WebhookType]: string } = {
  chatbot: 'chatbot\0',
  incoming: 'incoming\0',
  status: 'status\0',
  session: 'session\0',
  event: 'event\0',
};

const missing = (part: unknown): boolean => part === undefined || part === null;
const orNull = (part: unknown): unknown => (part === undefined ? null : part);

/**
 * `JSON.stringify(parts)`, the same text for every input: the parts the default identities are
 * made of (strings without characters JSON escapes, finite numbers, booleans, null) written out
 * here, anything else by `JSON.stringify` itself. Each call of `JSON.stringify` costs its own
 * setup, more than the short text it writes; this runs once per request.
 */
function jsonArray(parts: readonly unknown[]): string {
  let text = '[';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    let json: string;
    if (typeof part === 'string') json = plainJson(part) ? `"${part}"` : JSON.stringify(part);
    else if (part === null) json = 'null';
    else if ((typeof part === 'number' && Number.isFinite(part)) || typeof part === 'boolean')
      json = String(part);
    else return JSON.stringify(parts);
    text += i === 0 ? json : `,${json}`;
  }
  return `${text}]`;
}

/**
 * A character JSON does not write as it is between quotes: a control character, a quote, a
 * backslash, or a surrogate (`JSON.stringify` escapes a lone one; a pair it keeps, but the slow
 * path writes it correctly too). A regular expression rather than a loop over `charCodeAt`: it
 * scans in compiled code, cheaper than the loop per identity (figures: bench/HISTORY.md).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Whether JSON writes `text` between quotes as it is: no control character, quote, backslash or surrogate. */
const plainJson = (text: string): boolean => !NEEDS_ESCAPE.test(text);

/**
 * The default identity of each webhook type, before it is digested:
 * - chatbot: `eventId` (the documented deduplication key), as is (the only shape of this type);
 * - incoming: `[gstId]`; for REACTION, whose gstId is the reacted-to message, `[gstId, sentTime, text]`;
 * - status: `[gstId, status]` (one receipt per state change);
 * - session: `[messagingNumber, statusType, timestamp, status]`;
 * - event: `[eventType, timestamp, messagingNumber, templateName, waId, oldNumber]`.
 * Tuples are JSON arrays, so `['a:b', 'c']` and `['a', 'b:c']` differ (joining with ':' would make
 * them collide). A payload lacking a required part (undefined or null) is not deduplicated; an
 * empty string is a value, not a missing part (a removed reaction has `text: ''`). Optional parts
 * (reaction `text`, session `status`, the event's `messagingNumber` and subject) are null when
 * absent. Each array is written out as a literal, not assembled from lists: this runs once per
 * request.
 */
export const DEFAULT_DEDUPE_KEYS: { readonly [T in WebhookType]: DedupeKeyFn<T> } = {
  chatbot: (p) => (missing(p.eventId) ? undefined : p.eventId),
  incoming: (p) => {
    if (missing(p.gstId)) return undefined;
    if (p.messageContentType !== 'REACTION') return jsonArray([p.gstId]);
    return missing(p.sentTime) ? undefined : jsonArray([p.gstId, p.sentTime, orNull(p.text)]);
  },
  status: (p) => (missing(p.gstId) || missing(p.status) ? undefined : jsonArray([p.gstId, p.status])),
  session: (p) =>
    missing(p.messagingNumber) || missing(p.statusType) || missing(p.timestamp)
      ? undefined
      : jsonArray([p.messagingNumber, p.statusType, p.timestamp, orNull(p.status)]),
  event: (p) => {
    if (missing(p.eventType) || missing(p.timestamp)) return undefined;
    // Each subject field belongs to one event type; read them without narrowing (type-only view).
    const fields = p as Readonly<Record<string, unknown>>;
    return jsonArray([
      p.eventType,
      p.timestamp,
      orNull(p.messagingNumber),
      orNull(fields.templateName),
      orNull(fields.waId),
      orNull(fields.oldNumber),
    ]);
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
