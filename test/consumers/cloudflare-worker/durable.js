// The durable recipe of docs/cloudflare.md: the receiver sends each acknowledged event to a Queue,
// the queue handler runs the callbacks, a Durable Object dedupes. The callback saves what it
// handled to a KV namespace, one key per run, where the test reads it.
import { createFetchHandler } from 'messaging-webhooks';
import {
  createDurableObjectDedupeStore,
  createQueueConsumer,
  createQueuesDispatcher,
} from 'messaging-webhooks/cloudflare';

export { WebhookDedupeObject } from 'messaging-webhooks/cloudflare';

let handler;
let consumer;

export default {
  fetch(request, env, ctx) {
    handler ??= createFetchHandler({
      token: env.WEBHOOK_TOKEN,
      basePath: '/webhooks',
      dispatcher: createQueuesDispatcher({ queue: env.WEBHOOKS }),
      dedupe: { store: createDurableObjectDedupeStore({ namespace: env.DEDUPE }) },
    });
    return handler(request, ctx);
  },
  queue(batch, env, ctx) {
    consumer ??= createQueueConsumer({
      handlers: {
        onIncoming: async (message, context) => {
          await env.HANDLED.put(`${message.gstId}:${context.requestId}`, message.text ?? '');
        },
      },
    });
    return consumer(batch, env, ctx);
  },
};
