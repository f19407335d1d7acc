/**
 * Compile-time tests: each subpath entry exports what the README and docs name. The packed
 * tarball is checked separately; these import the src entry of each subpath.
 */
import { expectTypeOf } from 'expect-type';
import * as root from '../../src/index.js';
import * as schemas from '../../src/schemas/index.js';
import * as emulator from '../../src/emulator/index.js';
import * as testing from '../../src/testing/index.js';
import * as client from '../../src/client/index.js';
import * as redis from '../../src/redis/index.js';
import * as otel from '../../src/otel/index.js';
import type { Express } from 'express';

// messaging-webhooks
expectTypeOf(root.createWebhookRouter).toBeFunction();
expectTypeOf(root.createNodeHandler).toBeFunction();
expectTypeOf(root.createWebhookPipeline).toBeFunction();
expectTypeOf(root.reactionOf).toBeFunction();
expectTypeOf(root.isChatbotV2).toBeFunction();
export function mountsOnExpress(app: Express, router: root.WebhookRouter): void {
  app.use('/webhooks', router);
}
expectTypeOf<root.WebhookContext<'status'>['delivery']>().toEqualTypeOf<
  root.DeliveryStateChange | undefined
>();
expectTypeOf<root.WebhookPayloads['incoming']>().toEqualTypeOf<root.IncomingMessage>();

// messaging-webhooks/schemas
expectTypeOf(schemas.incomingMessageSchema.safeParse).toBeFunction();
expectTypeOf(schemas.parseWebhook).toBeFunction();
expectTypeOf(schemas.detectWebhookType).returns.toEqualTypeOf<schemas.WebhookType | undefined>();
expectTypeOf(schemas.MESSAGE_CONTENT_TYPES).toEqualTypeOf<
  readonly ['TEXT', 'MEDIA', 'LOCATION', 'BUTTON', 'INTERACTIVE', 'CONTACT', 'REACTION', 'CAROUSEL']
>();
expectTypeOf<ReturnType<typeof schemas.parseWebhook<'event'>>>().toEqualTypeOf<
  schemas.ParseWebhookResult<'event'>
>();

// messaging-webhooks/emulator
expectTypeOf(emulator.createEmulator).toBeFunction();
expectTypeOf(emulator.createClock).toBeFunction();
expectTypeOf<emulator.EmulatorOptions>().toBeObject();

// messaging-webhooks/testing
expectTypeOf(testing.fixtures.incoming.LOCATION.latitude).toEqualTypeOf<string>();
expectTypeOf(testing.fixtures.event.USER_PREFERENCE.waId).toEqualTypeOf<string>();
expectTypeOf(testing.fixtures.status.FAILED.errorCode).toEqualTypeOf<string>();
expectTypeOf(testing.buildIncoming({ messageContentType: 'LOCATION' }).latitude).toEqualTypeOf<string>();
expectTypeOf(testing.buildPartnerEvent().waId).toEqualTypeOf<string>();
expectTypeOf(testing.buildChatbotEvent({ version: 'v1' })).toEqualTypeOf<schemas.ChatbotEventV1>();
expectTypeOf(testing.buildChatbotEvent()).toEqualTypeOf<schemas.ChatbotEventV2>();

// messaging-webhooks/client
expectTypeOf(client.createPlatformClient).toBeFunction();
expectTypeOf<client.PlatformClientOptions>().toBeObject();

// messaging-webhooks: the dead-letter file writer
expectTypeOf(root.deadLettersToJsonl).toBeFunction();

// messaging-webhooks/redis
expectTypeOf(redis.createBullMQDispatcher).toBeFunction();
expectTypeOf(redis.createWorker).toBeFunction();
expectTypeOf(redis.createRedisDedupeStore).toBeFunction();
expectTypeOf(redis.createDeadLetterQueue).toBeFunction();
expectTypeOf<
  Awaited<ReturnType<redis.DeadLetterQueue['list']>>[number]['lastFailedAt']
>().toEqualTypeOf<Date>();

// messaging-webhooks/otel
expectTypeOf(otel.traceWebhooks).toBeFunction();
expectTypeOf(otel.traceWebhooks).parameter(0).toExtend<otel.TraceSource>();
expectTypeOf<ReturnType<typeof otel.traceWebhooks>>().toEqualTypeOf<otel.WebhookTracing>();
export function tracesEveryReceiver(router: root.WebhookRouter, worker: redis.WebhookWorker): void {
  otel.traceWebhooks(router).stop();
  otel.traceWebhooks(worker, { tracerProvider: undefined }).stop();
}
