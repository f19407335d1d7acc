import { sha256Base64url } from '../util/sha256.js';
import { LRUCache } from 'lru-cache';
import { DELIVERY_PROGRESS, DELIVERY_STATUSES, type DeliveryStatus } from '../schemas/index.js';

/** Why a status receipt did not move a message's state. */
export type DeliveryIgnoreReason = 'regression' | 'repeat' | 'after-failure' | 'unlisted';

/** Fields of every {@link DeliveryStateChange}. */
export interface DeliveryStateChangeBase {
  readonly gstId: string;
  /** The tracked state before the receipt (undefined for the first receipt seen). */
  readonly previous: DeliveryStatus | undefined;
}

/** A receipt that moved its message's state forward: `current` is the status it reported. */
export interface DeliveryStateApplied extends DeliveryStateChangeBase {
  readonly applied: true;
  /** The status the receipt reported, now the tracked state. */
  readonly reported: DeliveryStatus;
  /** The tracked state after the receipt. */
  readonly current: DeliveryStatus;
  readonly ignored?: undefined;
}

/** A receipt that left its message's state as it was, and why. */
export interface DeliveryStateIgnored extends DeliveryStateChangeBase {
  readonly applied: false;
  /** The status the receipt reported (a value the documentation does not list when `ignored` is `unlisted`). */
  readonly reported: string;
  /** The tracked state, unchanged (undefined when no receipt of this message was applied yet). */
  readonly current: DeliveryStatus | undefined;
  readonly ignored: DeliveryIgnoreReason;
}

/**
 * What one status receipt did to its message's tracked state. Discriminated on `applied`:
 * `if (change.applied)` makes `current` a {@link DeliveryStatus}.
 */
export type DeliveryStateChange = DeliveryStateApplied | DeliveryStateIgnored;

export interface DeliveryTrackerOptions {
  /** Messages remembered; the least recently updated is forgotten first. @default 100_000 */
  readonly max?: number | undefined;
}

/** The receiver and worker option that turns tracking off (`false`) or sizes it. */
export type StatusTrackingOption = { readonly max?: number | undefined } | false | undefined;

/** The tracker a receiver or worker option asks for; undefined when tracking is off. */
export function deliveryTrackerFor(option: StatusTrackingOption): DeliveryTracker | undefined {
  return option === false ? undefined : createDeliveryTracker({ max: option?.max });
}

/** A forward-only view of each outbound message's delivery state. */
export interface DeliveryTracker {
  /** Applies one receipt; returns what it did. Never moves a state backwards. */
  apply(gstId: string, reported: string): DeliveryStateChange;
  /** The tracked state of a message. */
  get(gstId: string): DeliveryStatus | undefined;
}

/** Longest gstId kept as is; a platform gstId is a UUID (36 characters). */
const MAX_KEPT_GST_ID_LENGTH = 64;

/**
 * The tracker's key for a gstId: the gstId when it is short and does not start with `#`, else `#` +
 * its SHA-256 (44 characters). A gstId is sender-controlled and can be as long as the body limit:
 * kept as is, 100,000 of them could hold 100 GB; digested, a slot costs at most
 * 64 characters. Kept keys never start with `#`, so they cannot collide with a digested one.
 */
function slotOf(gstId: string): string {
  return gstId.length <= MAX_KEPT_GST_ID_LENGTH && !gstId.startsWith('#')
    ? gstId
    : `#${sha256Base64url(gstId)}`;
}

const RANK = new Map<string, number>(DELIVERY_PROGRESS.map((status, index) => [status, index]));
const SENT_RANK = DELIVERY_PROGRESS.indexOf('SENT');

function isDeliveryStatus(value: string): value is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly string[]).includes(value);
}

/**
 * Creates a tracker of the outbound delivery state machine: ACCEPTED < SENT < DELIVERED < READ
 * < PLAYED, with FAILED terminal. Receipts arrive out of order (the platform gives no ordering
 * guarantee), so a receipt may skip states (an earlier one is late or lost) but never moves a
 * message back: a late SENT after DELIVERED is ignored as a regression. FAILED follows SENT in
 * the transition table; it is accepted from ACCEPTED too (the SENT receipt may be late) but not
 * after DELIVERED, and nothing follows it.
 */
export function createDeliveryTracker(options: DeliveryTrackerOptions = {}): DeliveryTracker {
  const states = new LRUCache<string, DeliveryStatus>({ max: options.max ?? 100_000 });
  return {
    get: (gstId) => states.get(slotOf(gstId)),
    apply(gstId, reported) {
      const slot = slotOf(gstId);
      const previous = states.get(slot);
      const ignore = (ignored: DeliveryIgnoreReason): DeliveryStateChange => ({
        gstId,
        reported,
        previous,
        current: previous,
        applied: false,
        ignored,
      });
      if (!isDeliveryStatus(reported)) return ignore('unlisted');
      if (previous === 'FAILED') return ignore('after-failure');
      if (previous === reported) return ignore('repeat');
      const before = previous === undefined ? -1 : (RANK.get(previous) ?? -1);
      const allowed = reported === 'FAILED' ? before <= SENT_RANK : (RANK.get(reported) ?? -1) > before;
      if (!allowed) return ignore('regression');
      states.set(slot, reported);
      return { gstId, reported, previous, current: reported, applied: true };
    },
  };
}
