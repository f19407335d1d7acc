import type { ClaimedEnqueueOutcome } from '../dedupe/types.js';
import type { WebhookJob } from '../dispatch/types.js';

/** What the Redis dedupe store hands a BullMQ dispatcher that claims in its own add. */
export interface ClaimSettings {
  /** How long an accepted event's claim is kept (the store's `ttlMs`). */
  readonly ttlMs: number;
}

/** The combined claim and enqueue of one event, bounded by `timeoutMs`. */
export type ClaimStep = (job: WebhookJob) => Promise<ClaimedEnqueueOutcome>;

type ClaimStepFactory = (settings: ClaimSettings, timeoutMs: number) => ClaimStep;

/**
 * The BullMQ dispatchers of this module, by object: how the Redis dedupe store recognises one it
 * can claim through (`claimAndEnqueue`) without either exposing its internals.
 */
const factories = new WeakMap<object, ClaimStepFactory>();

export function registerClaimStep(dispatcher: object, factory: ClaimStepFactory): void {
  factories.set(dispatcher, factory);
}

/** The claim step `dispatcher` offers with `settings`, or undefined when it is not a BullMQ dispatcher of this module. */
export function claimStepOf(
  dispatcher: object,
  settings: ClaimSettings,
  timeoutMs: number,
): ClaimStep | undefined {
  return factories.get(dispatcher)?.(settings, timeoutMs);
}
