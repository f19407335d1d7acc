/**
 * Test helpers for code that receives the platform's webhooks: a typed fixture corpus and
 * payload builders whose output always passes the schemas.
 *
 * @example
 * import { fixtures, buildIncoming } from 'messaging-webhooks/testing';
 *
 * @packageDocumentation
 */
export {
  allFixtures,
  FIXTURE_PARTIES,
  fixtures,
  type ChatbotEventByVersion,
  type FixtureCorpus,
  type IncomingMessageOf,
  type NamedFixture,
  type PartnerEventOf,
  type StatusUpdateOf,
} from './fixtures.js';
export {
  buildChatbotEvent,
  buildIncoming,
  buildPartnerEvent,
  buildSession,
  buildStatus,
  type ChatbotEventOptions,
  type ExtraFields,
  type IncomingOverrides,
  type PartnerEventOverrides,
  type SessionOverrides,
  type StatusOverrides,
} from './builders.js';
export {
  CaptureFileError,
  createJsonlCapture,
  DEFAULT_CAPTURE_SECRET_HEADERS,
  parseCaptureLine,
  readCapture,
  serialiseRecord,
  type CaptureLine,
  type CaptureRecord,
  type CaptureRedaction,
  type CaptureSink,
  type JsonlCapture,
  type JsonlCaptureOptions,
} from './capture.js';
export {
  DEFAULT_REPLAY_HEADERS,
  replay,
  ReplayError,
  type ReplayItemReport,
  type ReplayListener,
  type ReplayOptions,
  type ReplayPacing,
  type ReplayPayload,
  type ReplayReport,
  type ReplaySource,
  type ReplayTarget,
} from './replay.js';
export { settle, SETTLE_MAX_PASSES, type SettleEmulator, type SettleReceiver } from './settle.js';
