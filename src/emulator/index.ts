/**
 * An embedded, stateful emulator of the messaging platform: its webhook configuration API
 * (with the scope rules), number lookup, and triggers that emit every webhook type to the
 * configured URLs over real HTTP, with a delivery log, retries and fault injection.
 *
 * @example
 * import { createEmulator } from 'messaging-webhooks/emulator';
 * const emulator = createEmulator({ retry: { attempts: 1 } });
 * const url = await emulator.listen();
 *
 * @packageDocumentation
 */
export { createEmulator, DEFAULT_DELIVERY_CONCURRENCY, DEFAULT_IDLE_TIMEOUT_MS } from './emulator.js';
export type {
  Emulator,
  EmulatorOptions,
  EmulatorDescription,
  EmulatorIdleReport,
  EmulatorCloseReport,
  DeliveryFilter,
} from './types.js';
export {
  chatListQuerySchema,
  chatParticipantPage,
  deliveryListQuerySchema,
  deliveryPage,
  messageListQuerySchema,
  messagePage,
  ratingWidgetListQuerySchema,
  ratingWidgetPage,
  DEFAULT_LIST_LIMIT,
} from './listings.js';
export type {
  ChatListQuery,
  CursorPage,
  DeliveryListQuery,
  MessageListQuery,
  RatingWidgetListQuery,
} from './listings.js';
export { ClockValueError, createClock, createRealTimeClock, MAX_EMULATOR_TIME } from './clock.js';
export type { EmulatorClock, ClockOptions, RealTimeClockOptions } from './clock.js';
export { createSeededRandom } from './random.js';
export type { RandomSource } from './random.js';
export * from './errors.js';
export type { EmulatorContext, EmulatorPrefixes, RouteGroup } from './context.js';
export { createRouter, joinPath } from './http/router.js';
export type { EmulatorFetch } from './http/in-process.js';
export type {
  AuthContext,
  AuthedRouteRequest,
  Awaitable,
  HttpMethod,
  Route,
  RouteRequest,
  RouteResult,
  Router,
  RouteTable,
} from './http/router.js';
export { parseBody } from './http/validate.js';
export { toPage, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './http/page.js';
export type {
  DeliveryAttempt,
  DeliveryCloseReport,
  DeliveryIdleReport,
  DeliveryLogEntry,
  DeliveryRetryOptions,
  DeliveryState,
} from './emit/delivery.js';
export {
  faultProbabilitiesSchema,
  faultSchema,
  queuedFaultSchema,
  type Fault,
  type FaultKind,
  type FaultProbabilities,
  type QueuedFault,
} from './emit/faults.js';
export type { Payload } from './emit/payloads.js';
export { CONTROL_PREFIX } from './routes/control.js';
export { assignAgent, unassignAgent, agentUnavailableReason } from './agents.js';
export type { AssignmentOutcome } from './agents.js';
export * from './state/index.js';
export {
  assignAgentInputSchema,
  botReplyInputSchema,
  customerMessageInputSchema,
  flagNumberInputSchema,
  MAX_FLAG_PERIOD_MS,
  messageStatusInputSchema,
  PARTNER_EVENT_FIELDS,
  partnerEventInputSchema,
  sendMessageInputSchema,
  sessionChangeInputSchema,
  unassignAgentInputSchema,
  type AssignAgentInput,
  type AssignAgentResult,
  type BotReplyInput,
  type BotReplyResult,
  type CustomerMessageInput,
  type CustomerMessageResult,
  type FlagNumberInput,
  type MessageResult,
  type MessageStatusInput,
  type PartnerEventInput,
  type PartnerEventResult,
  type SendMessageInput,
  type SessionChangeInput,
  type SessionResult,
  type UnassignAgentInput,
  type Triggers,
} from './triggers.js';
export { ratingWidgetTriggers } from './routes/live-chat.js';
