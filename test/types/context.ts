/**
 * Compile-time tests: what each callback's `ctx` carries, and the option types of the
 * receivers (a misspelled callback name in an object literal is a compile error).
 */
import { expectTypeOf } from 'expect-type';
import type { Logger } from 'pino';
import {
  createNodeHandler,
  createWebhookRouter,
  type ChatbotEvent,
  type ChatbotPayloadVersion,
  type DeliveryStateChange,
  type DeliveryStatus,
  type StatusUpdate,
  type WebhookContext,
} from '../../src/index.js';
import type { DeliveryIgnoreReason } from '../../src/delivery/tracker.js';

export const router = createWebhookRouter({
  onIncoming: (_message, ctx) => {
    expectTypeOf(ctx.type).toEqualTypeOf<'incoming'>();
    expectTypeOf(ctx.receivedAt).toEqualTypeOf<Date>();
    expectTypeOf(ctx.requestId).toEqualTypeOf<string>();
    expectTypeOf(ctx.logger).toEqualTypeOf<Logger>();
    expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
    expectTypeOf(ctx.dedupeKey).toEqualTypeOf<string | undefined>();
    expectTypeOf(ctx.orderingKey).toEqualTypeOf<string>();
    expectTypeOf(ctx.payloadVersion).toEqualTypeOf<undefined>();
    expectTypeOf(ctx.delivery).toEqualTypeOf<undefined>();
  },
  onChatbot: (_event, ctx) => {
    expectTypeOf(ctx.type).toEqualTypeOf<'chatbot'>();
    expectTypeOf(ctx.payloadVersion).toEqualTypeOf<ChatbotPayloadVersion>();
    expectTypeOf(ctx.payloadVersion).toEqualTypeOf<'v1' | 'v2'>();
  },
  onStatus: (_receipt, ctx) => {
    expectTypeOf(ctx.delivery).toEqualTypeOf<DeliveryStateChange | undefined>();
    // undefined only when statusTracking is false.
    if (ctx.delivery === undefined) return;
    expectTypeOf(ctx.delivery.gstId).toEqualTypeOf<string>();
    expectTypeOf(ctx.delivery.previous).toEqualTypeOf<DeliveryStatus | undefined>();
    if (ctx.delivery.applied) {
      // An applied receipt moved the state forward: current is the new state.
      expectTypeOf(ctx.delivery.current).toEqualTypeOf<DeliveryStatus>();
      expectTypeOf(ctx.delivery.reported).toEqualTypeOf<DeliveryStatus>();
      expectTypeOf(ctx.delivery.ignored).toEqualTypeOf<undefined>();
    } else {
      expectTypeOf(ctx.delivery.ignored).toEqualTypeOf<DeliveryIgnoreReason>();
      expectTypeOf(ctx.delivery.current).toEqualTypeOf<DeliveryStatus | undefined>();
      expectTypeOf(ctx.delivery.reported).toEqualTypeOf<string>();
    }
  },
  onSession: (_session, ctx) => {
    expectTypeOf(ctx.payloadVersion).toEqualTypeOf<undefined>();
    expectTypeOf(ctx.delivery).toEqualTypeOf<undefined>();
  },
  onError: (_error, ctx) => {
    expectTypeOf(ctx.willRetry).toEqualTypeOf<boolean>();
    expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
    expectTypeOf(ctx).toMatchTypeOf<WebhookContext>();
  },
  onDeadLetter: ({ attempts, job }) => {
    expectTypeOf(attempts).toEqualTypeOf<number>();
    expectTypeOf(job.requestId).toEqualTypeOf<string>();
  },
});

export const misspelledRouter = createWebhookRouter({
  // @ts-expect-error a misspelled callback name is an excess property, not a silently ignored key
  onIncomming: () => undefined,
});

export const misspelledHandler = createNodeHandler({
  basePath: '/webhooks',
  // @ts-expect-error a misspelled callback name is a compile error for the node handler too
  onStatuses: () => undefined,
});

export const wrongCallbackType = createWebhookRouter({
  // @ts-expect-error a callback is a function of the payload
  onIncoming: 'save',
});

// onDeadLetter: the dead letter's job narrows on its type, like the callbacks' payloads.
createWebhookRouter({
  onDeadLetter: ({ job }) => {
    if (job.type === 'incoming') expectTypeOf(job.payload.sender).toEqualTypeOf<string>();
    if (job.type === 'chatbot') expectTypeOf(job.payload).toEqualTypeOf<ChatbotEvent>();
    if (job.type === 'status') expectTypeOf(job.payload).toEqualTypeOf<StatusUpdate>();
    // @ts-expect-error a session event has no gstId: the job is narrowed, not a union of payloads
    if (job.type === 'session') void job.payload.gstId;
  },
});

// onUnfinished: the same narrowing for the events handed over at shutdown.
createWebhookRouter({
  onUnfinished: (jobs) => {
    for (const { job } of jobs) {
      if (job.type === 'event') expectTypeOf(job.payload.eventType).not.toBeNever();
      // @ts-expect-error a partner event has no gstId
      if (job.type === 'event') void job.payload.gstId;
    }
  },
});
