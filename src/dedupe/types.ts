import type { ComponentHealth, Dispatcher, EnqueueOutcome, WebhookJob } from '../dispatch/types.js';

/** What a combined claim and enqueue ({@link DedupeStore.claimAndEnqueue}) resolves. */
export type ClaimedEnqueueOutcome = EnqueueOutcome | 'duplicate';

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
  /**
   * Claims a job's dedupe key and has `dispatcher` enqueue the job in one atomic step, for a store
   * that can do so with that dispatcher (the Redis store with the BullMQ dispatcher: one script per
   * event). Returns that step, or undefined when it cannot work with `dispatcher`; the pipeline
   * then claims, enqueues and confirms in turn. The step resolves `duplicate` when the key was
   * claimed before (nothing enqueued), and settles within `timeoutMs`: past it, it rejects (the
   * pipeline answers 503), and a job that still lands later is the one a redelivery is then a
   * duplicate of. Optional.
   */
  claimAndEnqueue?(
    dispatcher: Dispatcher,
    timeoutMs: number,
  ): ((job: WebhookJob) => Promise<ClaimedEnqueueOutcome>) | undefined;
  /** Readiness, synchronously; `router.health()` adds its reasons. Optional. */
  health?(): ComponentHealth;
  /** Releases resources (connections). */
  close?(): void | Promise<void>;
}
