/*
 * The emulator's state: record schemas and types (records.ts), the state with its indexes
 * (store.ts), seeds (seed.ts) and snapshots (snapshot.ts).
 */
export * from './records.js';
export {
  createEmptyState,
  DEFAULT_MEDIA_RETENTION,
  DEFAULT_RETENTION,
  findNumber,
  newChatParticipant,
  newOutboundMessage,
  applyDeliveryTransition,
  resolveRetention,
  StateConflictError,
  userDisplayName,
  webhookConfigFor,
  type EmulatorState,
  type Listing,
  type ResolvedRetention,
  type RetentionOptions,
} from './store.js';
export { applySeed, createDefaultSeed, DEFAULT_API_KEYS, SeedError } from './seed.js';
export {
  emulatorSnapshotSchema,
  loadSnapshot,
  parseSnapshot,
  SNAPSHOT_VERSION,
  SnapshotError,
  snapshotRecords,
  takeSnapshot,
  type EmulatorSnapshot,
  type EmulatorSnapshotInput,
} from './snapshot.js';
export { MAX_BODY_DEPTH, MAX_SNAPSHOT_DEPTH } from './nesting.js';
export type { Sequence, SequenceQuery } from './sequence.js';
