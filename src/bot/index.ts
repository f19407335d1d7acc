export { Bot, createBot, type BotOptions, type SessionOptions } from './bot.js';
export { Composer } from './composer.js';
export type {
  ChatbotIncomingMessageType,
  ChatbotMessageType,
  CompatibleQuery,
  FilteredPayload,
  FilterQuery,
  FilterType,
  Narrow,
} from './filters.js';
export {
  createMemorySessionStore,
  SessionConflictError,
  type MemorySessionStore,
  type MemorySessionStoreOptions,
  type SessionRecord,
  type SessionStore,
} from './session.js';
export type * from './types.js';
