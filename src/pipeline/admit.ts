import {
  digestDedupeKey,
  ORDERING_KEYS,
  type ClaimedEnqueueOutcome,
  type DedupeKeyFn,
} from '../dedupe/index.js';
import type { EnqueueOutcome, JobRunner, WebhookJob } from '../dispatch/index.js';
import {
  ClaimHeldError,
  QueueFullError,
  ShuttingDownError,
  StoreUnavailableError,
  toErrorResponse,
  type HttpAnswer,
  type WebhookError,
} from '../errors.js';
import { logRef } from '../logger.js';
import type { WebhookType } from '../schemas/index.js';
import { ACK_ANSWER, DUPLICATE_ANSWER, type Answers } from './answers.js';
import type { StoreCalls } from './calls.js';
import type { ValidPayload } from './payload.js';
import type { PipelineState } from './state.js';
import type { AcceptedHead } from './types.js';

/** What the admit stage needs besides the shared state. */
export interface AdmitSettings {
  readonly runner: JobRunner;
  /** The dedupe store has `confirm`: a claim becomes lasting once its job is queued (Redis). */
  readonly confirms: boolean;
  /** The dedupe key of each deduplicated type; a type without one is not deduplicated. */
  readonly dedupeKeyOf: Partial<Record<WebhookType, DedupeKeyFn<WebhookType>>>;
  /** Enqueue when the store failed (`onStoreError: 'dispatch'`) rather than answer 503. */
  readonly failOpen: boolean;
  /** Enqueue types without a callback here (a dispatcher given as an object runs them elsewhere). */
  readonly enqueueEveryType: boolean;
}

/** Resolves a value, or the promise of one, with `next`: no promise turn for synchronous stores. */
const chain = <T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> =>
  value instanceof Promise ? value.then(next) : next(value);

/**
 * The admit stage, for a valid payload: claim its dedupe key → enqueue its job → confirm the
 * claim → 200, or the three in one step when the store and dispatcher offer one (Redis). Refusals on the way: a duplicate (200 `duplicate`), a claim another request holds
 * (503 `claim_held`), the store failing (503 `store_unavailable`, unless failing open), the queue
 * full or closed (503 `queue_full` / `shutting_down`, the claim released). Each step answers
 * synchronously when the store and dispatcher do, and as a promise only when they do not.
 */
export function createAdmit(
  state: PipelineState,
  { answered }: Answers,
  calls: StoreCalls,
  settings: AdmitSettings,
): (accepted: AcceptedHead, valid: ValidPayload) => HttpAnswer | Promise<HttpAnswer> {
  const { logger, stats, probe, redactLogs, retryAfter } = state;
  const { runner, confirms, dedupeKeyOf, failOpen, enqueueEveryType } = settings;
  const claimAndEnqueue = calls.claimAndEnqueue;

  /** Counts an acknowledged request, reports its answer, and returns it (200, `duplicate` or not). */
  function ack(type: WebhookType, accepted: AcceptedHead, code: 'ok' | 'duplicate' = 'ok'): HttpAnswer {
    stats.inc(type, 'acked');
    answered(type, 200, code, accepted.startedAt, accepted.span);
    return code === 'ok' ? ACK_ANSWER : DUPLICATE_ANSWER;
  }

  /** Counts a request refused after validation, reports the refusal, and returns its answer. */
  function reject(type: WebhookType, accepted: AcceptedHead, error: WebhookError): HttpAnswer {
    stats.inc(type, 'rejected');
    answered(type, error.status, error.code, accepted.startedAt, accepted.span);
    return toErrorResponse(error);
  }

  function admit(accepted: AcceptedHead, valid: ValidPayload): HttpAnswer | Promise<HttpAnswer> {
    const { type } = valid;
    if (!enqueueEveryType && !runner.handles(type)) return ack(type, accepted);
    const identity = dedupeKeyOf[type]?.(valid.data);
    const job: WebhookJob = {
      type,
      payload: valid.data,
      requestId: accepted.requestId,
      receivedAt: accepted.receivedAt,
      orderingKey: (ORDERING_KEYS[type] as (p: unknown) => string)(valid.data),
      // A digest of the identity, never the identity: fixed size, no personal data.
      dedupeKey: identity === undefined ? undefined : digestDedupeKey(type, identity),
      payloadVersion: valid.payloadVersion,
    };
    const dedupeKey = job.dedupeKey;
    if (dedupeKey === undefined) return dispatch(job, false, accepted);
    if (claimAndEnqueue !== undefined) return dispatchClaiming(job, accepted);
    const claimed = calls.claim(dedupeKey);
    return claimed instanceof Promise
      ? claimed.then((outcome) => afterClaim(job, outcome, accepted))
      : afterClaim(job, claimed, accepted);
  }

  /**
   * Answers a duplicate, asks the sender to retry while another request holds the claim, refuses
   * when the store failed (unless failing open), else enqueues.
   */
  function afterClaim(
    job: WebhookJob,
    outcome: boolean | 'held' | 'failed',
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    const { type } = job;
    if (outcome === false) {
      stats.inc(type, 'duplicates');
      const answer = ack(type, accepted, 'duplicate');
      // The key holds phone numbers and texts: logged as a logRef, and only when debug is on.
      if (logger.isLevelEnabled('debug')) {
        const key = job.dedupeKey ?? '';
        logger.debug(
          redactLogs
            ? { requestId: job.requestId, type, eventRef: logRef(key) }
            : { requestId: job.requestId, type, dedupeKey: key },
          'duplicate webhook acknowledged',
        );
      }
      return answer;
    }
    if (outcome === 'held') {
      // Two deliveries of one event at two instances at once (a sender's retry racing its first
      // attempt): the store is healthy, so a warning, not an error; the key only as a logRef.
      const answer = reject(type, accepted, new ClaimHeldError(retryAfter));
      logger.warn(
        redactLogs
          ? { requestId: job.requestId, type, eventRef: logRef(job.dedupeKey ?? '') }
          : { requestId: job.requestId, type, dedupeKey: job.dedupeKey },
        'event claimed by another request: answered 503 claim_held, the sender retries',
      );
      return answer;
    }
    if (outcome === 'failed' && !failOpen)
      return reject(type, accepted, new StoreUnavailableError(retryAfter));
    return dispatch(job, outcome === true, accepted);
  }

  /** Enqueues an accepted job; a claim is confirmed once it is queued, released if it is not. */
  function dispatch(
    job: WebhookJob,
    claimed: boolean,
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    // Traced: the job carries the receive span's context to the worker that runs it.
    if (accepted.span !== undefined && probe.tracer !== undefined)
      job = probe.tracer.dispatching(accepted.span, job, claimed);
    probe.observer?.enqueuing?.(job);
    const outcome = calls.enqueue(job);
    return outcome instanceof Promise
      ? outcome.then((value) => afterEnqueue(job, claimed, value, accepted))
      : afterEnqueue(job, claimed, outcome, accepted);
  }

  /** Claims and enqueues in the store's one step: a duplicate is answered as after a claim. */
  function dispatchClaiming(job: WebhookJob, accepted: AcceptedHead): Promise<HttpAnswer> {
    if (accepted.span !== undefined && probe.tracer !== undefined)
      job = probe.tracer.dispatching(accepted.span, job, true);
    probe.observer?.enqueuing?.(job);
    return claimAndEnqueue!(job).then((outcome) => afterClaimingEnqueue(job, outcome, accepted));
  }

  function afterClaimingEnqueue(
    job: WebhookJob,
    outcome: ClaimedEnqueueOutcome | 'failed',
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    if (outcome === 'duplicate') {
      probe.observer?.jobSettled?.(job);
      return afterClaim(job, false, accepted);
    }
    // Nothing to release: a failed step claimed nothing, or its job is in Redis after all.
    return afterEnqueue(job, false, outcome, accepted);
  }

  function afterEnqueue(
    job: WebhookJob,
    claimed: boolean,
    outcome: EnqueueOutcome | 'failed',
    accepted: AcceptedHead,
  ): HttpAnswer | Promise<HttpAnswer> {
    const key = claimed ? job.dedupeKey : undefined;
    if (outcome !== 'accepted') {
      probe.observer?.jobSettled?.(job);
      const answer = reject(
        job.type,
        accepted,
        outcome === 'full'
          ? new QueueFullError(retryAfter)
          : outcome === 'closed'
            ? new ShuttingDownError(retryAfter)
            : new StoreUnavailableError(retryAfter),
      );
      // Not enqueued: forget the claim so the sender's retry is not swallowed as a duplicate.
      const released = key === undefined ? undefined : calls.release(key);
      return chain(released, () => answer);
    }
    if (key === undefined || !confirms) return ack(job.type, accepted);
    // The job is queued: a claim that cannot be confirmed stays a lease that expires on its own.
    return chain(calls.confirm(key), () => ack(job.type, accepted));
  }

  return admit;
}
