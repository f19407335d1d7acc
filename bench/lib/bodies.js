// Request bodies for the load generator: every fixture of a webhook type from the library's
// testing corpus, in rotation, each with its dedupe identity made unique per request, so that no
// request is acknowledged as a duplicate (a dedupe hit skips the enqueue and would flatter the
// receiver). `mixed` is the five types in rotation, each POSTed to its own path.
import { randomUUID } from 'node:crypto';
import { WEBHOOK_PATHS } from '../../dist/schemas/index.js';
import { allFixtures } from '../../dist/testing/index.js';

export const WEBHOOK_TYPES = ['incoming', 'status', 'session', 'event', 'chatbot'];
/** The load that cycles through the five types (one request of each in turn). */
export const MIXED = 'mixed';
/** Where the bench's servers mount their receiver. */
const BASE_PATH = '/webhooks';

/** The URL path a load of `type` is sent to (for `mixed`, the base: each request adds its type's path). */
export const pathOf = (type) => (type === MIXED ? BASE_PATH : `${BASE_PATH}/${WEBHOOK_PATHS[type]}`);

const UNIQUE_STRING = '__bench_unique__';
const UNIQUE_NUMBER = 424242424242424;
const CONVERSATION = '__bench_conversation__';

/** The field whose value makes the default dedupe key of each type unique (src/dedupe/keys.ts). */
const IDENTITY = {
  chatbot: { field: 'eventId', kind: 'string' },
  incoming: { field: 'gstId', kind: 'string' },
  status: { field: 'gstId', kind: 'string' },
  session: { field: 'timestamp', kind: 'number' },
  event: { field: 'timestamp', kind: 'number' },
};

/**
 * The field that names the customer (and so the conversation, src/dedupe/keys.ts ORDERING_KEYS)
 * of a type, and the value of customer `n`. Status receipts are ordered by their (unique) gstId;
 * session and partner events by the business's own number, which real traffic does not vary.
 */
const CONVERSATION_FIELD = {
  chatbot: { field: 'chatParticipantId', value: (n) => `"conversation-${n}"` },
  incoming: { field: 'sender', value: (n) => `"+2784${String(n).padStart(7, '0')}"` },
};

/**
 * Builds a body factory for `type`: each call returns the next fixture of that type as JSON text
 * with a fresh identity. With `conversations`, chatbot events spread over that many
 * chatParticipantIds and incoming messages over that many senders (ordering keys) instead of the
 * fixtures' few.
 */
export function createBodyFactory(type, { conversations } = {}) {
  const identity = IDENTITY[type];
  if (!identity) throw new TypeError(`unknown webhook type ${type}`);
  const templates = allFixtures()
    .filter((fixture) => fixture.type === type)
    .map(({ payload }) => {
      const copy = { ...payload };
      copy[identity.field] = identity.kind === 'string' ? UNIQUE_STRING : UNIQUE_NUMBER;
      const conversation = CONVERSATION_FIELD[type];
      if (conversations && conversation) copy[conversation.field] = CONVERSATION;
      // Split once, so a request costs a few string concatenations, not a JSON.stringify.
      const json = JSON.stringify(copy);
      const placeholder = new RegExp(`"${UNIQUE_STRING}"|${UNIQUE_NUMBER}|"${CONVERSATION}"`, 'g');
      const parts = json.split(placeholder);
      const order = [...json.matchAll(placeholder)].map((match) =>
        match[0].includes(CONVERSATION) ? 'conversation' : 'unique',
      );
      return { parts, order };
    });
  let index = 0;
  let counter = 0;
  // Numeric identities from the start time in microseconds-like steps: two load processes started
  // a millisecond or more apart count from bases 1 000 000 per second apart, far more than one sends
  // of a type, so no identity repeats across the cells of a run (a repeat is a duplicate, which
  // skips the enqueue and flatters the receiver). Below 2^53 until the year 2255.
  const base = Date.now() * 1000;
  return function nextBody() {
    const template = templates[index];
    index = (index + 1) % templates.length;
    counter += 1;
    let text = template.parts[0];
    for (let i = 0; i < template.order.length; i += 1) {
      if (template.order[i] === 'conversation') {
        text += CONVERSATION_FIELD[type].value(counter % conversations);
      } else {
        text += identity.kind === 'string' ? `"${randomUUID()}"` : String(base + counter);
      }
      text += template.parts[i + 1];
    }
    return text;
  };
}

/**
 * A request factory for `type` (one of WEBHOOK_TYPES or MIXED): each call returns the next
 * `{ path, body }`; `path` is under BASE_PATH.
 */
export function createRequestFactory(type, options) {
  const types = type === MIXED ? WEBHOOK_TYPES : [type];
  const factories = types.map((t) => ({ path: pathOf(t), next: createBodyFactory(t, options) }));
  let index = 0;
  return function nextRequest() {
    const factory = factories[index];
    index = (index + 1) % factories.length;
    return { path: factory.path, body: factory.next() };
  };
}
