import { randomUUID } from 'node:crypto';
import type { ClaimedEnqueueOutcome, DedupeStore } from '../dedupe/types.js';
import type { Dispatcher, WebhookJob } from '../dispatch/types.js';
import { DEFAULT_DEDUPE_TTL_MS } from '../dedupe/memory.js';
import { withTimeout } from '../util/timeout.js';
import { checkOptions, positiveNumber } from '../util/options.js';
import { REDIS_DEDUPE_STORE_OPTION_KEYS, type RedisDedupeStoreOptions } from './option-keys.js';
import { redisHealth, type ComponentHealth } from './health.js';
import { openStoreClient } from './store-client.js';
import { claimStepOf } from './claim-step.js';
import { closeClient, DEFAULT_COMMAND_TIMEOUT_MS } from './connection.js';

/** Library prefix of every dedupe key: `mw:dedupe:<digest>` (see `digestDedupeKey`). */
export const DEFAULT_DEDUPE_PREFIX = 'mw:dedupe:';
/**
 * How long a claim whose event is not yet enqueued blocks redeliveries without being renewed.
 * The claiming store renews it every third of that while the pipeline awaits the enqueue, so the
 * lease outlives a slow enqueue, while a lease left by a dead receiver runs out within a second:
 * before the second retry of a sender retrying at +1 s and +2 s.
 */
export const DEFAULT_DEDUPE_LEASE_MS = 1_000;
/** Shortest accepted `leaseMs`: renewals every third of it must stay well above Redis round trips. */
const MIN_LEASE_MS = 100;
/**
 * A held lease is renewed for at most this long: past it, whoever claimed has long answered its
 * request (the pipeline's enqueue deadline is seconds), so the lease is left to run out.
 */
const MAX_HOLD_MS = 60_000;
/** Attempts of a compensating release or a retried confirm before it is given up (logged). */
const MAX_RETRIES = 20;

export type { RedisDedupeStoreOptions } from './option-keys.js';

/** The Redis dedupe store: a {@link DedupeStore} shared by every receiver instance. */
export interface RedisDedupeStore extends DedupeStore {
  claim(key: string): Promise<boolean>;
  release(key: string): Promise<void>;
  confirm(key: string): Promise<void>;
  /** Deletes a confirmed claim (never another instance's fresh lease), so a replay runs. */
  forget(key: string): Promise<void>;
  /**
   * With a BullMQ dispatcher of this module: the claim made inside the dispatcher's add, one Redis
   * script per event (BullMQ's deduplication, kept `ttlMs`), instead of a lease claimed, confirmed
   * or released around the add. Undefined for any other dispatcher. The pipeline calls it.
   */
  claimAndEnqueue(
    dispatcher: Dispatcher,
    timeoutMs: number,
  ): ((job: WebhookJob) => Promise<ClaimedEnqueueOutcome>) | undefined;
  /** Resolves once connected and the eviction policy was checked. */
  ready(): Promise<void>;
  close(): Promise<void>;
  /**
   * Readiness, synchronously: not ready with `redis_unreachable` while the client is not
   * connected or Redis did not answer the last background PING (see `router.health()`).
   */
  health(): ComponentHealth;
}

/**
 * A redelivery arrived while another claim of the same event awaits its enqueue. The pipeline
 * recognises its `code` and answers 503 `claim_held` (logged at warn level): a race between two
 * deliveries of one event, not a store failure.
 */
export class DedupeClaimPendingError extends Error {
  readonly code = 'dedupe_claim_pending';
  constructor(readonly key: string) {
    super(`Event ${key} is being enqueued by another request; retry later`);
    this.name = 'DedupeClaimPendingError';
  }
}

const DONE = 'done';

// Atomic claim: absent -> a lease owned by this store; `done` -> duplicate; a lease -> pending.
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == '${DONE}' then return 0 end
return -1`;

// Release only this claim's own lease (its token): never a confirmed key, never another claim's.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

// Extend this claim's lease while its event is being enqueued.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** A lease this store holds: claimed, neither confirmed nor released yet. */
interface Held {
  readonly token: string;
  readonly since: number;
}

/** A write whose outcome is unknown (client-side timeout or failure), retried until Redis answers. */
interface Retry {
  readonly kind: 'release' | 'confirm';
  readonly key: string;
  readonly token: string;
  attempts: number;
}

const claimTimedOut = (): never => {
  throw new Error('dedupe claim: no answer from Redis within commandTimeoutMs');
};

/**
 * Creates a Redis dedupe store: a claim is atomic across instances (a Lua script setting the key
 * only when absent, with a TTL), keys are `<prefix><digest>`. A claim is first a short lease
 * (`leaseMs`, renewed while the pipeline enqueues) and becomes permanent (`ttlMs`) once the
 * pipeline confirms the event was enqueued; it is released when the enqueue failed. Each claim's
 * lease carries its own token: a claim that failed client-side (a Redis stall past
 * `commandTimeoutMs`) is compensated by deleting that token's lease once Redis answers again, so it
 * cannot block redeliveries when it lands late. When Redis fails or is unreachable, `claim`
 * rejects within `commandTimeoutMs`; the pipeline's `dedupe.onStoreError` decides (default
 * 'reject': 503).
 *
 * @example
 * const store = createRedisDedupeStore({ connection: { host: '127.0.0.1', port: 6379 } });
 * app.use('/webhooks', createWebhookRouter({ dedupe: { store }, onChatbot }));
 */
export function createRedisDedupeStore(options: RedisDedupeStoreOptions): RedisDedupeStore {
  checkOptions('createRedisDedupeStore', options, REDIS_DEDUPE_STORE_OPTION_KEYS);
  const ttlMs = Math.ceil(positiveNumber('ttlMs', options.ttlMs ?? DEFAULT_DEDUPE_TTL_MS));
  const leaseMs = Math.ceil(positiveNumber('leaseMs', options.leaseMs ?? DEFAULT_DEDUPE_LEASE_MS));
  if (leaseMs < MIN_LEASE_MS) {
    throw new TypeError(`leaseMs: expected at least ${MIN_LEASE_MS}, got ${leaseMs}`);
  }
  const commandTimeoutMs = positiveNumber(
    'commandTimeoutMs',
    options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
  );
  const { client, owned, prefix, logger, reachable, firstReady, started } = openStoreClient(
    'createRedisDedupeStore',
    'dedupe store',
    options,
    DEFAULT_DEDUPE_PREFIX,
    commandTimeoutMs,
  );
  // Bounded here unless the store's own standalone client bounds it: a caller's client may have
  // no command timeout, and a cluster client retries a command across redirections past it.
  const boundClaims = !owned || client.isCluster;
  // Each claim's lease value is its own token, so a release or a compensation deletes that claim's
  // lease and nothing else: not a confirmed key, not a later claim of the same event.
  const leasePrefix = `lease:${randomUUID()}:`;
  let claims = 0;
  const held = new Map<string, Held>();
  const retries = new Map<string, Retry>();
  /** Confirms on their way, by key: a `forget` of the key waits for its confirm. */
  const confirming = new Map<string, Promise<void>>();
  const renewEveryMs = Math.floor(leaseMs / 3);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  /** One timer for the whole store, armed only while it holds leases or has writes to retry. */
  function schedule(): void {
    if (timer !== undefined || closed || (held.size === 0 && retries.size === 0)) return;
    timer = setTimeout(() => void tick(), renewEveryMs);
    timer.unref();
  }

  async function confirmNow(full: string): Promise<void> {
    const lease = held.get(full);
    held.delete(full);
    try {
      await client.set(full, DONE, 'PX', ttlMs);
    } catch (error) {
      // The event is queued: keep trying to record it, or a redelivery after the lease may run.
      if (lease !== undefined) later('confirm', full, lease.token);
      throw error;
    }
  }

  async function tick(): Promise<void> {
    const now = Date.now();
    const renewals = [...held].map(([key, lease]) =>
      now - lease.since > MAX_HOLD_MS
        ? held.delete(key)
        : client.eval(RENEW, 1, key, lease.token, leaseMs).catch((error: unknown) => {
            logger.debug({ err: error }, 'dedupe lease renewal failed');
          }),
    );
    await Promise.all([...renewals, ...[...retries.values()].map(retry)]);
    timer = undefined;
    schedule();
  }

  /** Writes whose outcome is unknown; run at once, then on the timer until Redis answers. */
  function later(kind: Retry['kind'], key: string, token: string): void {
    const entry: Retry = { kind, key, token, attempts: 0 };
    retries.set(`${kind} ${token}`, entry);
    void retry(entry).then(schedule);
  }

  async function retry(entry: Retry): Promise<void> {
    const id = `${entry.kind} ${entry.token}`;
    try {
      // Sent on the same connection after the failed command: when Redis answers this one, the
      // earlier command has either run or been lost with its connection, so it cannot land later.
      if (entry.kind === 'release') await client.eval(RELEASE, 1, entry.key, entry.token);
      else await client.set(entry.key, DONE, 'PX', ttlMs);
      retries.delete(id);
    } catch (error) {
      entry.attempts += 1;
      if (entry.attempts < MAX_RETRIES) return;
      retries.delete(id);
      logger.warn(
        { err: error, key: entry.key, attempts: entry.attempts },
        entry.kind === 'release'
          ? 'dedupe claim not compensated: its lease runs out on its own'
          : 'dedupe confirm failed: a redelivery after the lease runs out may run again',
      );
    }
  }

  return {
    async claim(key) {
      await started();
      const full = prefix + key;
      claims += 1;
      const token = leasePrefix + claims.toString(36);
      let outcome: unknown;
      try {
        const sent = client.eval(CLAIM, 1, full, token, leaseMs);
        // A claim answered after the pipeline gave up must be compensated, not held and renewed.
        outcome = boundClaims ? await withTimeout(sent, commandTimeoutMs, claimTimedOut) : await sent;
      } catch (error) {
        // Timed out or failed client-side: the claim may still land when Redis resumes, leaving
        // a lease nobody will confirm. Compensate: delete that claim's lease once Redis answers.
        later('release', full, token);
        throw error;
      }
      if (outcome === 1) {
        held.set(full, { token, since: Date.now() });
        schedule();
        return true;
      }
      if (outcome === 0) return false;
      throw new DedupeClaimPendingError(key);
    },
    async release(key) {
      const full = prefix + key;
      const lease = held.get(full);
      if (lease === undefined) return;
      held.delete(full);
      try {
        await client.eval(RELEASE, 1, full, lease.token);
      } catch (error) {
        later('release', full, lease.token);
        throw error;
      }
    },
    confirm(key) {
      const full = prefix + key;
      const pending = confirmNow(full).finally(() => {
        if (confirming.get(full) === pending) confirming.delete(full);
      });
      confirming.set(full, pending);
      return pending;
    },
    async forget(key) {
      const full = prefix + key;
      // The event may have failed before its confirm landed: forget after it, and stop retrying it.
      await confirming.get(full)?.catch(() => undefined);
      for (const [id, entry] of retries)
        if (entry.kind === 'confirm' && entry.key === full) retries.delete(id);
      // RELEASE deletes the key only while it holds the given value: here the confirmed marker.
      await client.eval(RELEASE, 1, full, DONE);
    },
    claimAndEnqueue: (dispatcher, timeoutMs) => claimStepOf(dispatcher, { ttlMs }, timeoutMs),
    ready: () => firstReady,
    health: redisHealth(reachable),
    async close() {
      closed = true;
      clearTimeout(timer);
      // One last attempt at the writes still owed, bounded by the client's command timeout.
      await Promise.all([...retries.values()].map(retry));
      if (!owned) return;
      await closeClient(client);
    },
  };
}
