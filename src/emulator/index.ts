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
export {
  createEmulator,
  DEFAULT_AGENT_MESSAGE_RECEIPTS,
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_IDLE_TIMEOUT_MS,
} from './emulator.js';
export type {
  Emulator,
  EmulatorOptions,
  EmulatorDescription,
  EmulatorIdleReport,
  EmulatorCloseReport,
  DeliveryFilter,
  AgentMessageOptions,
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
export {
  AgentUnavailableError,
  BadRequestError,
  ConflictError,
  EMULATOR_ERROR_STATUS,
  EmulatorError,
  ForbiddenError,
  IllegalTransitionError,
  InternalError,
  MethodNotAllowedError,
  NotFoundError,
  NumberFlaggedError,
  PayloadTooLargeError,
  SessionNotSupportedError,
  UnauthorizedError,
  type EmulatorErrorCode,
  type EmulatorErrorOptions,
  type ErrorBody,
} from './errors.js';
export type { EmulatorContext, EmulatorPrefixes, RouteGroup } from './context.js';
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
export type { EmulatorFetch } from './http/in-process.js';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './http/page.js';
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
export { assignAgent, unassignAgent } from './agents.js';
export type { AssignmentOutcome } from './agents.js';
export {
  applySeed,
  CHANNELS,
  agentMessageRecordSchema,
  chatParticipantRecordSchema,
  chatParticipantSeedSchema,
  clientRecordSchema,
  clientSeedSchema,
  createDefaultSeed,
  DEFAULT_API_KEYS,
  DEFAULT_MEDIA_RETENTION,
  DEFAULT_RETENTION,
  emulatorSeedSchema,
  emulatorSnapshotSchema,
  LIVE_CHAT_ROLES,
  loadSnapshot,
  MAX_BODY_DEPTH,
  MAX_SNAPSHOT_DEPTH,
  NUMBER_KINDS,
  mediaRecordSchema,
  numberRecordSchema,
  numberSeedSchema,
  outboundMessageRecordSchema,
  parseSnapshot,
  ratingWidgetRecordSchema,
  SeedError,
  sessionRecordSchema,
  SNAPSHOT_VERSION,
  SnapshotError,
  snapshotRecords,
  StateConflictError,
  takeSnapshot,
  teamRecordSchema,
  teamSeedSchema,
  userRecordSchema,
  userSeedSchema,
  webhookConfigFor,
  webhookConfigRecordSchema,
  type ChatParticipantSeed,
  type ClientSeed,
  type EmulatorChatParticipant,
  type EmulatorClient,
  type EmulatorNumber,
  type EmulatorSeed,
  type EmulatorSnapshot,
  type EmulatorSnapshotInput,
  type EmulatorState,
  type EmulatorTeam,
  type EmulatorUser,
  type Listing,
  type LiveChatRole,
  type NumberKind,
  type NumberRecord,
  type NumberSeed,
  type MediaRecord,
  type OutboundMessage,
  type RatingWidgetTrigger,
  type ResolvedRetention,
  type RetentionOptions,
  type SessionState,
  type StoredWebhookConfig,
  type TeamSeed,
  type UserSeed,
  type Sequence,
  type SequenceQuery,
  type WithReadonly,
} from './state/index.js';
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
