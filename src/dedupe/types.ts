/**
 * Remembers which events were already accepted. `claim` is atomic: of two concurrent claims of
 * one key, exactly one wins.
 */
export interface DedupeStore {
  /** Claims `key`; true when this is the first claim within the store's TTL. */
  claim(key: string): boolean | Promise<boolean>;
  /** Forgets a claim, so a redelivery is accepted (used when the event could not be enqueued). */
  release(key: string): void | Promise<void>;
  /** Releases resources (connections). */
  close?(): void | Promise<void>;
}
