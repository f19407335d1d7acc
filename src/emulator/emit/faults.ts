import { z } from 'zod';
import { WEBHOOK_TYPES, type WebhookType } from '../../schemas/index.js';
import type { RandomSource } from '../random.js';

/**
 * One injected fault, applied to one delivery:
 * - `duplicate`: the payload is delivered twice (same body, same eventId);
 * - `outOfOrder`: the delivery is held back and sent right after the next one;
 * - `delay`: the delivery waits `ms` real milliseconds before its first attempt;
 * - `fail`: the first `attempts` attempts fail without being sent (all attempts when omitted),
 *   as a network error would, so the retry schedule runs.
 */
export const faultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('duplicate') }),
  z.object({ kind: z.literal('outOfOrder') }),
  z.object({ kind: z.literal('delay'), ms: z.number().int().min(0).max(60_000).default(100) }),
  z.object({ kind: z.literal('fail'), attempts: z.number().int().min(1).optional() }),
]);
export type Fault = z.input<typeof faultSchema>;
export type ResolvedFault = z.output<typeof faultSchema>;
export type FaultKind = Fault['kind'];

const probability = z.number().min(0).max(1);

/**
 * Faults applied at random to every delivery, each with its own probability; `seed` makes the
 * sequence reproducible.
 */
export const faultProbabilitiesSchema = z.object({
  duplicate: probability.default(0),
  outOfOrder: probability.default(0),
  delay: probability.default(0),
  fail: probability.default(0),
  /** Delay applied by a random `delay` fault, real milliseconds. @default 100 */
  delayMs: z.number().int().min(0).max(60_000).default(100),
  /** Seed of the random source. @default 1 */
  seed: z.number().int().default(1),
});
export type FaultProbabilities = z.input<typeof faultProbabilitiesSchema>;

/** A fault queued for the next deliveries (optionally of one webhook type only). */
export const queuedFaultSchema = z.object({
  fault: faultSchema,
  /** Only deliveries of this webhook type consume it. */
  type: z.enum(WEBHOOK_TYPES).optional(),
  /** How many deliveries it applies to. @default 1 */
  count: z.number().int().min(1).default(1),
});
export type QueuedFault = z.input<typeof queuedFaultSchema>;

interface PendingFault {
  readonly fault: ResolvedFault;
  readonly type: WebhookType | undefined;
  remaining: number;
}

/** Chooses the faults of each delivery: per-call, queued, then random. */
export interface FaultPlanner {
  queue(entry: z.output<typeof queuedFaultSchema>): void;
  setProbabilities(probabilities: z.output<typeof faultProbabilitiesSchema> | null): void;
  /** The faults for one delivery of `type`, given the faults passed to its trigger call. */
  plan(type: WebhookType, perCall: readonly ResolvedFault[]): ResolvedFault[];
  /** Drops queued faults and probabilities. */
  clear(): void;
}

/** Creates a fault planner; `createRandom(seed)` builds the random source when probabilities are set. */
export function createFaultPlanner(createRandom: (seed: number) => RandomSource): FaultPlanner {
  let pending: PendingFault[] = [];
  let probabilities: z.output<typeof faultProbabilitiesSchema> | null = null;
  let random: RandomSource = createRandom(1);
  return {
    queue(entry) {
      pending.push({ fault: entry.fault, type: entry.type, remaining: entry.count });
    },
    setProbabilities(next) {
      probabilities = next;
      if (next !== null) random = createRandom(next.seed);
    },
    plan(type, perCall) {
      const faults = [...perCall];
      for (const item of pending) {
        if (item.type !== undefined && item.type !== type) continue;
        faults.push(item.fault);
        item.remaining -= 1;
      }
      if (pending.length > 0) pending = pending.filter((item) => item.remaining > 0);
      if (probabilities !== null) {
        // one draw per kind, always in the same order, so a seed replays exactly
        if (random() < probabilities.duplicate) faults.push({ kind: 'duplicate' });
        if (random() < probabilities.outOfOrder) faults.push({ kind: 'outOfOrder' });
        if (random() < probabilities.delay) faults.push({ kind: 'delay', ms: probabilities.delayMs });
        if (random() < probabilities.fail) faults.push({ kind: 'fail' });
      }
      return faults;
    },
    clear() {
      pending = [];
      probabilities = null;
    },
  };
}
