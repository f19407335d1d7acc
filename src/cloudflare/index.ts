/**
 * messaging-webhooks/cloudflare: a durable hand-off for a receiver running in Cloudflare Workers.
 * A dispatcher that sends each acknowledged event to a Cloudflare Queue before the 200, the `queue`
 * handler that runs them through the typed callbacks (retries and a dead-letter queue per Queues'
 * semantics), and a dedupe store on a Durable Object (strongly consistent across isolates). Needs
 * no package beyond the library: the bindings come from the Workers runtime. The recipe, with its
 * wrangler.toml, is docs/cloudflare.md.
 *
 * @example
 * import { createFetchHandler, type FetchWebhookHandler } from 'messaging-webhooks';
 * import {
 *   createDurableObjectDedupeStore,
 *   createQueueConsumer,
 *   createQueuesDispatcher,
 * } from 'messaging-webhooks/cloudflare';
 * export { WebhookDedupeObject } from 'messaging-webhooks/cloudflare';
 *
 * let handler: FetchWebhookHandler | undefined;
 * export default {
 *   fetch(request: Request, env: Env, ctx: ExecutionContext) {
 *     handler ??= createFetchHandler({
 *       token: env.WEBHOOK_TOKEN,
 *       dispatcher: createQueuesDispatcher({ queue: env.WEBHOOKS }),
 *       dedupe: { store: createDurableObjectDedupeStore({ namespace: env.DEDUPE }) },
 *     });
 *     return handler(request, ctx);
 *   },
 *   queue: createQueueConsumer({ handlers: { onChatbot: async (event, ctx) => reply(event) } }),
 * };
 *
 * @packageDocumentation
 */
export type {
  DurableObjectIdLike,
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
  QueueBatch,
  QueueMessage,
  QueueProducer,
  QueueSendOptions,
} from './bindings.js';
export {
  createQueuesDispatcher,
  QUEUE_MESSAGE_LIMIT,
  QueueMessageTooLargeError,
  type QueuesDispatcher,
  type QueuesDispatcherOptions,
} from './dispatcher.js';
export {
  createQueueConsumer,
  DEFAULT_QUEUE_MAX_RETRIES,
  type QueueConsumer,
  type QueueConsumerOptions,
} from './consumer.js';
export {
  createDurableObjectDedupeStore,
  DEFAULT_DURABLE_OBJECT_LEASE_MS,
  DurableObjectClaimPendingError,
  WebhookDedupeObject,
  type DurableObjectDedupeStore,
  type DurableObjectDedupeStoreOptions,
} from './dedupe-store.js';
