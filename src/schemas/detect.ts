import type { WebhookType } from './webhook-types.js';

/**
 * The keys that mark each payload type. Each key belongs to exactly one type in the interface
 * documentation, which is what makes detection unambiguous: `eventType` only on partner events,
 * `messageContentType` only on incoming messages, `statusType` only on session status,
 * `direction` + `chatParticipantId` only on chatbot events, and a status receipt is the one
 * payload with `gstId` + `status` and none of the others' marks.
 */
const MARKS: readonly (readonly [WebhookType, (p: Readonly<Record<string, unknown>>) => boolean])[] = [
  ['chatbot', (p) => 'eventId' in p && 'direction' in p && 'chatParticipantId' in p],
  ['event', (p) => 'eventType' in p],
  ['incoming', (p) => 'messageContentType' in p],
  ['session', (p) => 'statusType' in p],
];

/**
 * Classifies a webhook payload by its shape, for users who point several URL fields of the
 * webhook configuration at one URL. Returns undefined when the payload is not an object, fits
 * no type, or carries the marks of more than one type (never a guess).
 *
 * @example
 * detectWebhookType({ eventType: 'USER_PREFERENCE', waId: '2771...' }) // 'event'
 */
export function detectWebhookType(payload: unknown): WebhookType | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const record = payload as Readonly<Record<string, unknown>>;
  let found: WebhookType | undefined;
  for (const [type, matches] of MARKS) {
    if (!matches(record)) continue;
    if (found !== undefined) return undefined;
    found = type;
  }
  if (found !== undefined) return found;
  return 'gstId' in record && 'status' in record ? 'status' : undefined;
}
