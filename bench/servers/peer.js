// The receiver a user would hand-write instead of the library: the framework-free part that the
// peers of servers/express.js, fastify.js and hono.js call from their routes, after their
// framework has parsed the JSON body (express.json(), Fastify's parser, c.req.json()).
//
//   validate   zod safeParse with the package's own schemas (messaging-webhooks/schemas), the
//              same objects the pipeline validates with (src/schemas/parse.ts); 400 when invalid
//   dedupe     one lru-cache `{ max: 100_000, ttl: 3 days }` (the library's default size and
//              memory span), keyed `<type>:<identity>`: the library's identity of each type
//              (src/dedupe/keys.ts DEFAULT_DEDUPE_KEYS), written out as plain strings; a key seen
//              before is answered 200 { received: true, duplicate: true } without a callback
//   dispatch   one p-queue with concurrency 16 (the library's default); each event's callback is
//              added to it and its failure caught; 503 once 10 000 events are queued or running
//              (the library's maxQueueSize)
//   answer     200 { received: true }
//
// What the library does besides, and this peer does not: one conversation's callbacks in order
// (a FIFO per ordering key; here one queue for all, so two events of a conversation may run at
// once), retries with backoff and dead letters, delivery tracking, request ids, a logger per job,
// stats per type, body limits and structural checks before parsing.
import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import * as schemas from '../../dist/schemas/index.js';
import { callbacksOf } from './options.js';

const DEDUPE_MAX = 100_000;
const DEDUPE_TTL_MS = 3 * 24 * 60 * 60 * 1000;
const CONCURRENCY = 16;
const MAX_QUEUE_SIZE = 10_000;

const chatbotSchemas = {
  v1: schemas.chatbotEventV1 ?? schemas.chatbotEventV1Schema,
  v2: schemas.chatbotEventV2 ?? schemas.chatbotEventV2Schema,
};
/** safeParse per type. */
export const VALIDATE = {
  incoming: (body) => (schemas.incomingMessage ?? schemas.incomingMessageSchema).safeParse(body),
  status: (body) => (schemas.statusUpdate ?? schemas.statusUpdateSchema).safeParse(body),
  session: (body) => schemas.sessionStatusSchema.safeParse(body),
  event: (body) => (schemas.partnerEvent ?? schemas.partnerEventSchema).safeParse(body),
  chatbot: (body) => chatbotSchemas[schemas.detectChatbotPayloadVersion(body)].safeParse(body),
};

/** The identity of an event, per type, as src/dedupe/keys.ts defines it. */
const IDENTITY = {
  chatbot: (p) => p.eventId,
  incoming: (p) => (p.messageContentType === 'REACTION' ? `${p.gstId}|${p.sentTime}|${p.text}` : p.gstId),
  status: (p) => `${p.gstId}|${p.status}`,
  session: (p) => `${p.messagingNumber}|${p.statusType}|${p.timestamp}|${p.status}`,
  event: (p) =>
    `${p.eventType}|${p.timestamp}|${p.messagingNumber}|${p.templateName}|${p.waId}|${p.oldNumber}`,
};

const OK = { status: 200, body: { received: true } };
const DUPLICATE = { status: 200, body: { received: true, duplicate: true } };
const INVALID = { status: 400, body: { error: { code: 'invalid_payload' } } };
const QUEUE_FULL = { status: 503, body: { error: { code: 'queue_full' } } };

/** The busy loop of the `spin` variant, in µs per request (servers/options.js). */
export const SPIN_US = 5;

/** Busy-waits `us` microseconds: a cost of known size on the request path. */
function spinFor(us) {
  const end = process.hrtime.bigint() + BigInt(us * 1000);
  while (process.hrtime.bigint() < end);
}

/** Maps each URL path segment (WEBHOOK_PATHS) to its type. */
export const TYPE_BY_PATH = Object.fromEntries(
  schemas.WEBHOOK_TYPES.map((type) => [schemas.WEBHOOK_PATHS[type], type]),
);

/**
 * The peer, with the callbacks of `config` (servers/options.js): `receive(type, body)` →
 * `{ status, body }` to send; `stats()` in the shape of the library's (`{ total: { received,
 * acked, invalid, duplicates, rejected } }`) for the bench's probe.
 */
export function createPeer(config = {}) {
  const callbacks = callbacksOf(config);
  const spin = config.variant === 'spin';
  const run = {
    incoming: callbacks.onIncoming,
    status: callbacks.onStatus,
    session: callbacks.onSession,
    event: callbacks.onEvent,
    chatbot: callbacks.onChatbot,
  };
  const seen = new LRUCache({ max: DEDUPE_MAX, ttl: DEDUPE_TTL_MS });
  // Full from the start with `fullStores` (servers/options.js): every new event evicts one key.
  if (config.fullStores) for (let i = 0; i < DEDUPE_MAX; i += 1) seen.set(`incoming:prefill-${i}`, true);
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const counts = { received: 0, acked: 0, invalid: 0, duplicates: 0, rejected: 0, failed: 0 };
  const failed = () => {
    counts.failed += 1;
  };
  return {
    receive(type, body) {
      if (spin) spinFor(SPIN_US);
      counts.received += 1;
      const result = VALIDATE[type](body);
      if (!result.success) {
        counts.invalid += 1;
        return INVALID;
      }
      const payload = result.data;
      const key = `${type}:${IDENTITY[type](payload)}`;
      if (seen.has(key)) {
        counts.duplicates += 1;
        counts.acked += 1;
        return DUPLICATE;
      }
      if (queue.size + queue.pending >= MAX_QUEUE_SIZE) {
        counts.rejected += 1;
        return QUEUE_FULL;
      }
      seen.set(key, true);
      queue.add(() => run[type](payload)).catch(failed);
      counts.acked += 1;
      return OK;
    },
    stats: () => ({ total: { ...counts } }),
  };
}
