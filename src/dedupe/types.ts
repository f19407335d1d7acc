import type { ComponentHealth } from '../dispatch/types.js';

/**
 * Remembers which events were already accepted. `claim` is atomic: of two concurrent claims of
 * one key, exactly one wins.
 */
export interface DedupeStore {
  /** Claims `key`; true when this is the first claim within the store's TTL. */
  claim(key: string): boolean | Promise<boolean>;
  /** Forgets a claim, so a redelivery is accepted (used when the event could not be enqueued). */
  release(key: string): void | Promise<void>;
  /**
   * Makes a claim permanent once its event was enqueued. A store that holds fresh claims as a
   * short lease (the Redis store) needs it, so that an instance crashing between claim and
   * enqueue does not swallow the sender's retry for the whole TTL. Optional.
   */
  confirm?(key: string): void | Promise<void>;
  /**
   * Forgets a confirmed claim, so a replay of an event that was accepted but not handled (a dead
   * letter written to `deadLetterSink`, an event spilled to `onUnfinished`) runs instead of being
   * answered as a duplicate. A store without it is asked to `release` the key instead, which is
   * the same thing for a store that keeps no leases (the in-memory one). Optional.
   */
  forget?(key: string): void | Promise<void>;
  /** Readiness, synchronously; `router.health()` adds its reasons. Optional. */
  health?(): ComponentHealth;
  /** Releases resources (connections). */
  close?(): void | Promise<void>;
}
