import type { ClaimedEnqueueOutcome, DedupeStore } from '../dedupe/index.js';
import type { Dispatcher, EnqueueOutcome, WebhookJob } from '../dispatch/index.js';
import { scrubError } from '../logger.js';
import { withTimeout } from '../util/timeout.js';
import type { PipelineState } from './state.js';

/**
 * The code a dedupe store's claim rejects with while another request holds the event's claim
 * (the Redis store's `DedupeClaimPendingError`): answered 503 `claim_held`, not a store failure.
 */
export const CLAIM_PENDING_CODE = 'dedupe_claim_pending';
const isClaimHeld = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === CLAIM_PENDING_CODE;

/** What a guarded call returns: its value, or `failed` (logged), as a promise only when asynchronous. */
type Guarded<T> = T | 'failed' | Promise<T | 'failed'>;

/**
 * The pipeline's calls to its dedupe store and dispatcher. Each takes one argument and never
 * throws: a throw, a rejection or a missed enqueue deadline becomes `failed`, logged. The store is
 * only called for jobs with a dedupe key, which exist only when deduplication is on.
 */
export interface StoreCalls {
  /** `held` when another request holds the event's claim (not a failure). */
  claim(key: string): Guarded<boolean | 'held'>;
  /** Forgets a claim of an event not enqueued, so the sender's retry is not a duplicate. */
  release(key: string): Guarded<void>;
  confirm(key: string): Guarded<void>;
  /** Forgets a confirmed claim of an event accepted but not handled, so a replay runs it. */
  forget(key: string): Guarded<void>;
  enqueue(job: WebhookJob): Guarded<EnqueueOutcome>;
  /**
   * The store's claim and the dispatcher's enqueue in one step, when the store offers one for this
   * dispatcher ({@link DedupeStore.claimAndEnqueue}); undefined otherwise. It bounds itself by the
   * enqueue deadline, so no timer is added here.
   */
  readonly claimAndEnqueue: ((job: WebhookJob) => Promise<ClaimedEnqueueOutcome | 'failed'>) | undefined;
}

export function createStoreCalls(
  { logger, redactLogs }: PipelineState,
  store: DedupeStore | undefined,
  dispatcher: Dispatcher,
  enqueueTimeoutMs: number,
): StoreCalls {
  /**
   * Calls the store or dispatcher with one argument; an asynchronous answer is awaited up to the
   * enqueue deadline, and a throw or rejection is handed to `onError` (by default logged as
   * `failed`). Functions and their argument rather than closures: nothing is allocated on the
   * synchronous path, which every request takes with the in-memory defaults.
   */
  function guarded<A, T>(
    what: string,
    call: (arg: A) => T | Promise<T>,
    arg: A,
    onError: (what: string, error: unknown, arg: A) => T | 'failed' = failed,
  ): Guarded<T> {
    try {
      const result = call(arg);
      if (!(result instanceof Promise)) return result;
      return withTimeout(result, enqueueTimeoutMs, () => {
        throw new Error(`no answer within ${enqueueTimeoutMs} ms`);
      }).catch((error: unknown) => onError(what, error, arg));
    } catch (error) {
      return onError(what, error, arg);
    }
  }

  /** A claim another request holds is `held`, not a store failure. */
  const claimFailed = (what: string, error: unknown, key: string): 'held' | 'failed' =>
    isClaimHeld(error) ? 'held' : failed(what, error, key);

  function failed(what: string, error: unknown, arg?: unknown): 'failed' {
    // A store's error may name the dedupe key (phone numbers, texts): logged as a logRef.
    const key = typeof arg === 'string' ? arg : (arg as WebhookJob | undefined)?.dedupeKey;
    logger.error({ err: redactLogs ? scrubError(error, key) : error }, `${what} failed`);
    return 'failed';
  }

  // The store and dispatcher calls, made once.
  const claim = (key: string) => store!.claim(key);
  const release = (key: string) => store!.release(key);
  const confirm = (key: string) => store!.confirm!(key);
  const forget = store?.forget === undefined ? release : (key: string) => store.forget!(key);
  const enqueue = (job: WebhookJob) => dispatcher.enqueue(job);
  const claimed = store?.claimAndEnqueue?.(dispatcher, enqueueTimeoutMs);

  return {
    claim: (key) => guarded<string, boolean | 'held'>('dedupe store', claim, key, claimFailed),
    release: (key) => guarded('dedupe release', release, key),
    confirm: (key) => guarded('dedupe confirm', confirm, key),
    forget: (key) => guarded('dedupe forget', forget, key),
    enqueue: (job) => guarded('enqueue', enqueue, job),
    claimAndEnqueue:
      claimed === undefined
        ? undefined
        : (job) => {
            try {
              return claimed(job).then(undefined, (error: unknown) => failed('enqueue', error, job));
            } catch (error) {
              return Promise.resolve(failed('enqueue', error, job));
            }
          },
  };
}
