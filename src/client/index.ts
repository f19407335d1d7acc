/**
 * A typed client of the platform's documented API: webhook configuration, number lookup, user
 * management (api/v1 and the deprecated SystemUsers operations) and live-chat participants.
 * Works against the platform or the embedded emulator (over HTTP, or in process with
 * `emulator.fetch`); responses are validated with the same zod schemas the emulator renders
 * with. The operations table the client, the emulator and the OpenAPI document are built from
 * is exported too: `PLATFORM_OPERATIONS`, one row per operation, keyed by operation id.
 *
 * @example
 * import { createPlatformClient } from 'messaging-webhooks/client';
 * const platform = createPlatformClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: process.env.API_KEY ?? '' });
 * const users = await platform.users.list();
 *
 * @packageDocumentation
 */
export { createPlatformClient } from './client.js';
export type {
  ChatParticipantsApi,
  FetchLike,
  NumbersApi,
  OperationArgs,
  OperationInput,
  OperationResult,
  PageQuery,
  PlatformAgentMessagesApi,
  PlatformClient,
  PlatformClientOptions,
  SystemUsersApi,
  UsersApi,
  WebhookConfigApi,
} from './client.js';
export { PLATFORM_OPERATIONS } from '../contract/operations.js';
export type {
  OperationId,
  PathOverrides,
  PlatformOperations,
  UnshownPathOperationId,
} from '../contract/operations.js';
export type {
  BinaryBody,
  BinaryInput,
  EmulatorChoice,
  InputOf,
  JsonBody,
  OperationBody,
  OperationMethod,
  OperationResponse,
  OperationTag,
  PathPrefix,
  PathPrefixes,
  PlatformOperation,
  ResultOf,
} from '../contract/operation.js';
export {
  PlatformBadRequestError,
  PlatformConflictError,
  PlatformError,
  PlatformForbiddenError,
  PlatformHttpError,
  PlatformNetworkError,
  PlatformNotFoundError,
  PlatformResponseValidationError,
  PlatformUnauthorizedError,
  type PlatformErrorCode,
  type PlatformErrorOptions,
} from './errors.js';
export type {
  AgentChatLimitChange,
  AgentMessage,
  AgentMessageChannel,
  SendAgentMessageRequest,
  UploadMediaRequest,
  UploadMediaResponse,
  AvailabilityChange,
  ChatParticipant,
  ChatParticipantView,
  ChatParticipantTerminate,
  Client,
  MessageResponse,
  MessagingClientNumber,
  Page,
  PasswordChange,
  SystemUser,
  SystemUserCreate,
  SystemUserUpdate,
  UserCreate,
  UserCreatedResponse,
  UserCredits,
  UserResponse,
  UsersForClientPage,
  UserSummary,
  UserUpdate,
  WebhookConfig,
  WebhookConfigCreate,
  WebhookConfigUpdate,
} from '../schemas/index.js';
