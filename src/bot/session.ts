import { LRUCache } from 'lru-cache';
import { CodedError } from '../util/errors.js';
import { checkOptions, optionKeys, positiveInteger, positiveNumber } from '../util/options.js';

/** A stored session: its JSON and the version a write must name to replace it. */
export interface SessionRecord {
  /** The session value, as JSON. */
  readonly data: string;
  /** Opaque; changes on every write. */
  readonly version: string;
}

/**
 * Where conversation sessions live. Writes are compare-and-set: a write names the version it read,
 * and fails (returns false) when the record changed since, so two instances that read the same
 * session cannot both write it (no lost update). A store may answer synchronously or with a
 * promise.
 */
export interface SessionStore {
  /** The record under `key`, or undefined when there is none (never written, deleted or expired). */
  read(key: string): SessionRecord | undefined | Promise<SessionRecord | undefined>;
  /**
   * Replaces the record under `key` with `data` (undefined deletes it), only if its version is
   * still `expectedVersion` (undefined: only if there is no record). True when written; false
   * when the record changed in between.
   */
  write(
    key: string,
    data: string | undefined,
    expectedVersion: string | undefined,
  ): boolean | Promise<boolean>;
}

/**
 * A session write found the record changed since it was read: another instance (or a handler
 * under a custom session key, outside the conversation's ordering) wrote it in between. The job
 * fails and is retried; its next attempt reads the current state.
 */
export class SessionConflictError extends CodedError<'session_conflict'> {
  readonly code = 'session_conflict';
  readonly status = 409;
  constructor() {
    super(
      'The session changed since this attempt read it (written by another instance); the event is retried',
    );
  }
}

/** The in-memory session store: a {@link SessionStore} that answers synchronously. */
export interface MemorySessionStore extends SessionStore {
  read(key: string): SessionRecord | undefined;
  write(key: string, data: string | undefined, expectedVersion: string | undefined): boolean;
}

/** Options of {@link createMemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Sessions kept; the least recently used is dropped beyond it. @default 10_000 */
  readonly max?: number | undefined;
  /** A session not written for this long is forgotten. @default 604_800_000 (7 days) */
  readonly ttlMs?: number | undefined;
}

const DEFAULT_SESSION_MAX = 10_000;
export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const MEMORY_SESSION_STORE_OPTION_KEYS = optionKeys<MemorySessionStoreOptions>()(['max', 'ttlMs']);

/**
 * The default session store: this process's memory, bounded (least recently used dropped beyond
 * `max`) and expiring (`ttlMs` after the last write). Lost on restart and not shared between
 * instances: use `createRedisSessionStore` from `messaging-webhooks/redis` for that.
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): MemorySessionStore {
  checkOptions('createMemorySessionStore', options, MEMORY_SESSION_STORE_OPTION_KEYS);
  const max = positiveInteger('max', options.max ?? DEFAULT_SESSION_MAX);
  const ttlMs = positiveNumber('ttlMs', options.ttlMs ?? DEFAULT_SESSION_TTL_MS);
  const sessions = new LRUCache<string, SessionRecord>({ max, ttl: Math.ceil(ttlMs) });
  // Versions count writes across the whole store: a version is never reused, even for a key
  // deleted and written again, so a stale version can never match.
  let writes = 0;
  return {
    read: (key) => sessions.get(key),
    write(key, data, expectedVersion) {
      if (sessions.get(key)?.version !== expectedVersion) return false;
      if (data === undefined) sessions.delete(key);
      else {
        writes += 1;
        sessions.set(key, { data, version: writes.toString(36) });
      }
      return true;
    },
  };
}
