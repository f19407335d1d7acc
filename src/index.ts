/**
 * messaging-webhooks: receive the messaging platform's webhooks in Express, node:http, a fetch
 * runtime or Fastify (`messaging-webhooks/fastify`): validated, deduplicated, acknowledged at once
 * and handed to typed callbacks in order.
 *
 * This entry is the receiver's public API, every name listed in the README's Exports table. The
 * schemas, tables and parsers are `messaging-webhooks/schemas`; the emulator, testing helpers,
 * client, Redis, metrics, tracing and Cloudflare Workers' Queues and Durable Objects have their own
 * entries.
 *
 * @packageDocumentation
 */

// Adapters, and the framework-free pipeline under them.
export {
  createWebhookRouter,
  type WebhookReceiverControls,
  type WebhookRouter,
  type WebhookRouterNext,
  type WebhookRouterOptions,
  type WebhookRouterRequest,
} from './receiver/express.js';
export {
  createNodeHandler,
  countClientErrors,
  type NodeHandlerOptions,
  type NodeWebhookHandler,
} from './receiver/node.js';
export {
  createFetchHandler,
  type FetchHandlerContext,
  type FetchHandlerOptions,
  type FetchWebhookHandler,
} from './receiver/fetch.js';
export type { WaitUntil } from './receiver/web.js';
export { webhookErrorHandler, type WebhookErrorHandler } from './receiver/express-errors.js';
export { createHealthHandler, type HealthSource } from './receiver/health.js';
export { createWebhookPipeline, type WebhookHealth, type WebhookPipeline } from './pipeline/pipeline.js';
export type { DedupeOptions, PipelineOptionsCheck, WebhookPipelineOptions } from './pipeline/options.js';
export type { StatCounter, StatsBucket, TypeStats, WebhookStats } from './pipeline/stats.js';
export type {
  AcceptedHead,
  RequestBody,
  RequestHead,
  RequestTracer,
  WebhookObserver,
} from './pipeline/types.js';
export type { LoggerOptions } from './logger.js';
export type { DedupeKeyFn } from './dedupe/keys.js';
export type { JobObserver, JobRunner, JobTracer } from './dispatch/runner.js';

// Callbacks and what they receive.
export type {
  AnyWebhookJob,
  BackoffOptions,
  DeadLetter,
  Dispatcher,
  DispatcherCounts,
  EnqueueOutcome,
  InvalidPayload,
  RetryOptions,
  UnfinishedJob,
  WebhookCallback,
  WebhookContext,
  WebhookHandlers,
  WebhookJob,
} from './dispatch/types.js';

// The in-memory defaults, to configure or replace.
export type { ClaimedEnqueueOutcome, DedupeStore } from './dedupe/types.js';
export { createMemoryDedupeStore, type MemoryDedupeStoreOptions } from './dedupe/memory.js';
export { createMemoryDispatcher, type MemoryDispatcherOptions } from './dispatch/memory.js';

// Files: spilled and dead-lettered events, captured requests.
export {
  createJsonlSink,
  deadLettersToJsonl,
  spillToJsonl,
  type DeadLetterJsonl,
  type JsonlSink,
  type JsonlSinkOptions,
} from './capture/jsonl.js';
export type { CaptureRecord, CaptureSink } from './capture/types.js';

// Errors: every refusal is a WebhookError with a code and its HTTP status.
export { WebhookError, type HttpAnswer, type WebhookErrorCode } from './errors.js';
export { CodedError } from './util/errors.js';

// Payload types, and the two helpers that read payloads.
export type {
  ChatbotEvent,
  ChatbotEventV1,
  ChatbotEventV2,
  ChatbotPayloadVersion,
  DeliveryStatus,
  IncomingMessage,
  PartnerEvent,
  SessionStatus,
  StatusUpdate,
  UnlistedValue,
  WebhookPayloads,
  WebhookType,
} from './schemas/index.js';
export { isChatbotV2, reactionOf } from './schemas/index.js';
export type {
  DeliveryIgnoreReason,
  DeliveryStateChangeBase,
  DeliveryStateApplied,
  DeliveryStateChange,
  DeliveryStateIgnored,
  StatusTrackingOption,
} from './delivery/tracker.js';

// Bots: handlers by filter, text and middleware, composed across files; replies; conversation state.
export {
  Bot,
  Composer,
  createBot,
  createMemorySessionStore,
  SessionConflictError,
  type AgentMessagesApi,
  type BotOptions,
  type ChatbotContext,
  type ChatbotIncomingMessageType,
  type ChatbotMessageType,
  type CompatibleQuery,
  type Context,
  type ContextOf,
  type ErrorHandler,
  type EventContext,
  type FilteredPayload,
  type FilterQuery,
  type FilterType,
  type Handler,
  type MediaReplyOptions,
  type MemorySessionStore,
  type MemorySessionStoreOptions,
  type Middleware,
  type Narrow,
  type NextFunction,
  type ReplyMedia,
  type ReplyOptions,
  type SessionOf,
  type SessionOptions,
  type SessionRecord,
  type SessionStore,
  type TextContext,
} from './bot/index.js';
