import type { WebhookType } from '../schemas/index.js';
import { perType } from '../util/per-type.js';

/** Counters kept per webhook type. */
export type StatCounter =
  | 'received'
  | 'acked'
  | 'duplicates'
  | 'invalid'
  | 'rejected'
  | 'succeeded'
  | 'failed'
  | 'deadLettered'
  | 'unlistedEnumValues';
/** Every {@link StatCounter}, in the order `stats()` lists them; the type check keeps the two the same set. */
const STAT_COUNTERS = [
  'received',
  'acked',
  'duplicates',
  'invalid',
  'rejected',
  'succeeded',
  'failed',
  'deadLettered',
  'unlistedEnumValues',
] as const satisfies readonly StatCounter[];
type MissingCounter = Exclude<StatCounter, (typeof STAT_COUNTERS)[number]>;
const EVERY_COUNTER_LISTED: [MissingCounter] extends [never] ? true : MissingCounter = true;
void EVERY_COUNTER_LISTED;

/**
 * The counter an answer adds to, besides `received`: `acked` for a 2xx (duplicates included),
 * `invalid` for a 400 (the payload or body was wrong), `rejected` for any other error status (the
 * request was refused whatever its payload: 401, 404, 405, 408, 413, 415, 431, and the 503s of
 * a full queue, a shutdown, a failed store or a claim held elsewhere). Every answered request is
 * in exactly one, so `received = acked + invalid + rejected`; the metrics' `invalid_total` and
 * `rejected_total` use the same split.
 */
export function answerCounter(status: number): 'acked' | 'invalid' | 'rejected' {
  return status < 400 ? 'acked' : status === 400 ? 'invalid' : 'rejected';
}

/** Counts for one webhook type. `queued` and `running` are current gauges; the rest are totals. */
export type TypeStats = Record<StatCounter, number> & { readonly queued: number; readonly running: number };

/**
 * Counts per webhook type; `unknown` holds requests whose type could not be told (a 404, or a
 * 400 on the auto-detecting endpoint), `total` sums all.
 */
export type WebhookStats = Readonly<Record<WebhookType | 'unknown' | 'total', TypeStats>>;

export type StatsBucket = WebhookType | 'unknown';

/** Mutable counters behind `stats()`. */
export interface StatsRecorder {
  inc(bucket: StatsBucket, counter: StatCounter, by?: number): void;
  snapshot(gauges: (type: WebhookType) => { queued: number; running: number }): WebhookStats;
}

const zero = (): Record<StatCounter, number> =>
  Object.fromEntries(STAT_COUNTERS.map((counter) => [counter, 0])) as Record<StatCounter, number>;

export function createStatsRecorder(): StatsRecorder {
  // Plain objects of one shape, found by a switch (perType); an unknown bucket is ignored: a job
  // read back from Redis may name any type.
  const buckets = perType(zero);
  const countersOf = buckets.of;
  return {
    inc(bucket, counter, by = 1) {
      const counters = countersOf(bucket);
      if (counters === undefined) return;
      switch (counter) {
        case 'received':
          counters.received += by;
          return;
        case 'acked':
          counters.acked += by;
          return;
        case 'succeeded':
          counters.succeeded += by;
          return;
        case 'duplicates':
          counters.duplicates += by;
          return;
        case 'invalid':
          counters.invalid += by;
          return;
        case 'rejected':
          counters.rejected += by;
          return;
        case 'failed':
          counters.failed += by;
          return;
        case 'deadLettered':
          counters.deadLettered += by;
          return;
        case 'unlistedEnumValues':
          counters.unlistedEnumValues += by;
          return;
      }
    },
    snapshot(gauges) {
      const total: TypeStats = { ...zero(), queued: 0, running: 0 };
      const out: Partial<Record<WebhookType | 'unknown' | 'total', TypeStats>> = {};
      for (const [bucket, counters] of Object.entries(buckets.values) as [
        StatsBucket,
        Record<StatCounter, number>,
      ][]) {
        const live = bucket === 'unknown' ? { queued: 0, running: 0 } : gauges(bucket);
        const stats: TypeStats = { ...counters, ...live };
        out[bucket] = stats;
        for (const key of [...STAT_COUNTERS, 'queued', 'running'] as const) {
          (total as Record<string, number>)[key] = (total[key] ?? 0) + stats[key];
        }
      }
      out.total = total;
      return out as WebhookStats;
    },
  };
}
