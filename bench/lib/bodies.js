// Request bodies for the load generator: every fixture of a webhook type from the library's
// testing corpus, in rotation, each with its dedupe identity made unique per request, so that no
// request is acknowledged as a duplicate (a dedupe hit skips the enqueue and would flatter the
// receiver).
import { randomUUID } from 'node:crypto';
import { allFixtures } from '../../dist/testing/index.js';

export const WEBHOOK_TYPES = ['incoming', 'status', 'session', 'event', 'chatbot'];

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

/** The field that names the conversation (ordering key) of a chatbot event. */
const CONVERSATION_FIELD = { chatbot: 'chatParticipantId' };

/**
 * Builds a body factory for `type`: each call returns the next fixture of that type as JSON text
 * with a fresh identity. With `conversations`, chatbot events spread over that many
 * chatParticipantIds (ordering keys) instead of the fixtures' single one.
 */
export function createBodyFactory(type, { conversations } = {}) {
  const identity = IDENTITY[type];
  if (!identity) throw new TypeError(`unknown webhook type ${type}`);
  const templates = allFixtures()
    .filter((fixture) => fixture.type === type)
    .map(({ payload }) => {
      const copy = { ...payload };
      copy[identity.field] = identity.kind === 'string' ? UNIQUE_STRING : UNIQUE_NUMBER;
      const conversationField = CONVERSATION_FIELD[type];
      if (conversations && conversationField) copy[conversationField] = CONVERSATION;
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
  const base = Date.now();
  return function nextBody() {
    const template = templates[index];
    index = (index + 1) % templates.length;
    counter += 1;
    let text = template.parts[0];
    for (let i = 0; i < template.order.length; i += 1) {
      if (template.order[i] === 'conversation') {
        text += `"conversation-${counter % conversations}"`;
      } else {
        text += identity.kind === 'string' ? `"${randomUUID()}"` : String(base + counter);
      }
      text += template.parts[i + 1];
    }
    return text;
  };
}
