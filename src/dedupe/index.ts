export type { ClaimedEnqueueOutcome, DedupeStore } from './types.js';
export * from './memory.js';
export * from './keys.js';
