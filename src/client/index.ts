/**
 * A typed client of the platform's documented API: webhook configuration, number lookup, user
 * management (api/v1 and the deprecated SystemUsers operations) and live-chat participants.
 * Works against the platform or the embedded emulator; responses are validated with the same
 * zod schemas the emulator renders with.
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
  PageQuery,
  PlatformClient,
  PlatformClientOptions,
  SystemUsersApi,
  UsersApi,
  WebhookConfigApi,
} from './client.js';
export * from './errors.js';
export type {
  AgentChatLimitChange,
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
