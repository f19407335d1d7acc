/**
 * Prometheus metrics for a receiver, through `prom-client` (an optional peer dependency: only this
 * entry point loads it). `messaging-webhooks/metrics`.
 */
import { Counter, Gauge, register as defaultRegistry, type Metric, type Registry } from 'prom-client';
import type {
  StatCounter,
  StatsBucket,
  WebhookObserver,
  WebhookPipeline,
  WebhookStats,
} from '../pipeline/index.js';
import { WEBHOOK_TYPES, type WebhookType } from '../schemas/index.js';

/** Anything that exposes its pipeline: the Express router, the node and fetch handlers, Fastify's `app.webhooks`. */
export interface MetricsSource {
  readonly pipeline: WebhookPipeline;
}

/** Options of {@link collectMetrics}. */
export interface CollectMetricsOptions {
  /** The registry the metrics are registered in. @default prom-client's global `register` */
  readonly registry?: Registry | undefined;
  /** Prepended to every metric name. @default 'messaging_webhooks_' */
  readonly prefix?: string | undefined;
  /** Buckets of the acknowledgement latency histogram, in seconds. @default {@link DEFAULT_ACK_BUCKETS} */
  readonly ackBuckets?: readonly number[] | undefined;
  /** Buckets of the callback duration histogram, in seconds. @default {@link DEFAULT_CALLBACK_BUCKETS} */
  readonly callbackBuckets?: readonly number[] | undefined;
}

/** A collection started by {@link collectMetrics}. */
export interface WebhookMetrics {
  /** The names of the registered metrics. */
  readonly names: readonly string[];
  /** Stops observing the receiver and removes its metrics from the registry. */
  stop(): void;
}

/** Acknowledgement latency buckets (seconds): the in-memory receiver answers in well under a millisecond. */
export const DEFAULT_ACK_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];
/** Callback duration buckets (seconds). */
export const DEFAULT_CALLBACK_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

const BUCKETS: readonly StatsBucket[] = [...WEBHOOK_TYPES, 'unknown'];

/** One value per stats bucket, in a prototype-less object (a type read from Redis may be anything). */
function bucketTable<T>(make: () => T): Record<StatsBucket, T> {
  const table = Object.create(null) as Record<StatsBucket, T>;
  for (const bucket of BUCKETS) table[bucket] = make();
  return table;
}

/** Observations of one histogram series: counts per bucket (not cumulative), sum and count. */
interface Series {
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram labelled by `type` whose observations are plain additions, exposed to the registry as
 * prom-client's own histograms are (`_bucket` with `le`, `_sum`, `_count`): prom-client's
 * `Histogram.observe` hashes its labels on every call, which showed in the receiver's benchmark.
 */
function histogram(name: string, help: string, buckets: readonly number[]) {
  const upper = [...buckets].sort((a, b) => a - b);
  if (upper.some((value) => !Number.isFinite(value))) {
    throw new TypeError(`${name}: expected finite bucket bounds, got ${JSON.stringify(buckets)}`);
  }
  const series = bucketTable<Series>(() => ({
    counts: new Float64Array(upper.length + 1),
    sum: 0,
    count: 0,
  }));
  const values = () => {
    const out: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    for (const type of BUCKETS) {
      const { counts, sum, count } = series[type];
      if (count === 0) continue;
      let cumulative = 0;
      upper.forEach((le, index) => {
        cumulative += counts[index]!;
        out.push({ metricName: `${name}_bucket`, labels: { le, type }, value: cumulative });
      });
      out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', type }, value: count });
      out.push({ metricName: `${name}_sum`, labels: { type }, value: sum });
      out.push({ metricName: `${name}_count`, labels: { type }, value: count });
    }
    return out;
  };
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => Promise.resolve({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
    reset() {
      for (const type of BUCKETS) {
        series[type].counts.fill(0);
        series[type].sum = 0;
        series[type].count = 0;
      }
    },
  };
  return {
    // A metric by shape (name, help, type, get): what the registry reads from its own classes.
    metric: metric as unknown as Metric,
    observe(type: StatsBucket, seconds: number): void {
      const one = series[type];
      if (one === undefined) return;
      let index = 0;
      while (index < upper.length && seconds > upper[index]!) index += 1;
      one.counts[index]! += 1;
      one.sum += seconds;
      one.count += 1;
    },
  };
}

/** Answer codes that count as rejected (503): the reason label of `rejected_total`. */
const REJECTED_STATUS = 503;

/**
 * Registers a receiver's metrics, per webhook type (label `type`; `unknown` for requests whose
 * type could not be told):
 *
 * | metric | type | labels |
 * | --- | --- | --- |
 * | `requests_total` | counter | `type`, `status`, `code` (`ok`, `duplicate` or the error code) |
 * | `ack_duration_seconds` | histogram | `type`: head checks passed → answer |
 * | `duplicates_total`, `invalid_total`, `unlisted_enum_values_total` | counter | `type` |
 * | `rejected_total` | counter | `type`, `reason` (`queue_full`, `shutting_down`, `store_unavailable`) |
 * | `queue_depth`, `callbacks_running` | gauge | `type`, read from `stats()` at scrape time |
 * | `callback_duration_seconds` | histogram | `type`, per attempt |
 * | `callbacks_total` | counter | `type`, `outcome` (`success`, `failure`), per attempt |
 * | `retries_total`, `dead_letters_total` | counter | `type` |
 *
 * Totals that `stats()` keeps are read from it at scrape time (they count from the receiver's
 * start); the rest come from an observer the pipeline calls only while collection runs, so a
 * receiver whose metrics are not collected pays nothing. One collection per receiver at a time:
 * a second replaces the first's observer (call `stop()` on the first). A BullMQ worker
 * (`createWorker`) is not covered yet: its `stats()` is its own and it has no pipeline.
 *
 * @example
 * import { Registry } from 'prom-client';
 * import { collectMetrics } from 'messaging-webhooks/metrics';
 * const registry = new Registry();
 * collectMetrics(webhooks, { registry });
 * app.get('/metrics', async (_req, res) => res.type(registry.contentType).send(await registry.metrics()));
 */
export function collectMetrics(receiver: MetricsSource, options: CollectMetricsOptions = {}): WebhookMetrics {
  const { pipeline } = receiver;
  if (typeof pipeline?.observe !== 'function') {
    throw new TypeError(
      'collectMetrics: expected a receiver with a pipeline (router, handler or app.webhooks)',
    );
  }
  const registry = options.registry ?? defaultRegistry;
  const prefix = options.prefix ?? 'messaging_webhooks_';
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix) && prefix !== '') {
    throw new TypeError(`prefix: expected a Prometheus metric name prefix, got ${JSON.stringify(prefix)}`);
  }
  const registers = [registry];
  const names: string[] = [];
  const named = <T extends string>(suffix: T): string => {
    const name = `${prefix}${suffix}`;
    names.push(name);
    return name;
  };

  // The hot path only adds to plain numbers, per type and code; prom-client's labelled inc and
  // observe (a label hash each call) run at scrape time instead, once per series. Measured: calling
  // prom-client per request gave 0.86× the uncollected node handler (bench scenario 8), these
  // plain counters 1.02–1.36× (noise above 1) and 0.92–0.96× in-process, so they are hand-written
  // and handed to prom-client's registry with its standard output.
  const answers = bucketTable(() => Object.create(null) as Record<string, { status: number; count: number }>);
  const retryCounts = bucketTable(() => ({ count: 0 }));
  const ackDuration = histogram(
    named('ack_duration_seconds'),
    'Time from the passed head checks to the answer (validate, dedupe, enqueue)',
    options.ackBuckets ?? DEFAULT_ACK_BUCKETS,
  );
  const callbackDuration = histogram(
    named('callback_duration_seconds'),
    'Duration of callback attempts',
    options.callbackBuckets ?? DEFAULT_CALLBACK_BUCKETS,
  );
  registry.registerMetric(ackDuration.metric);
  registry.registerMetric(callbackDuration.metric);

  new Counter({
    name: named('requests_total'),
    help: 'Webhook requests answered, by answer status and code',
    labelNames: ['type', 'status', 'code'] as const,
    registers,
    collect() {
      this.reset();
      for (const type of BUCKETS) {
        for (const [code, { status, count }] of Object.entries(answers[type])) {
          this.inc({ type, status, code }, count);
        }
      }
    },
  });
  new Counter({
    name: named('rejected_total'),
    help: 'Webhook requests answered 503, by reason',
    labelNames: ['type', 'reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const type of BUCKETS) {
        for (const [code, { status, count }] of Object.entries(answers[type])) {
          if (status === REJECTED_STATUS) this.inc({ type, reason: code }, count);
        }
      }
    },
  });
  new Counter({
    name: named('retries_total'),
    help: 'Failed callback attempts that will be retried',
    labelNames: ['type'] as const,
    registers,
    collect() {
      this.reset();
      for (const type of WEBHOOK_TYPES) this.inc({ type }, retryCounts[type].count);
    },
  });

  // One stats() read per scrape, shared by the metrics that read it (collect runs per metric).
  let snapshot: WebhookStats | undefined;
  let scrape: Promise<void> | undefined;
  const statsNow = (): WebhookStats => {
    if (snapshot === undefined) {
      snapshot = pipeline.stats();
      scrape ??= Promise.resolve().then(() => {
        snapshot = undefined;
        scrape = undefined;
      });
    }
    return snapshot;
  };

  /** A counter whose values are `stats()` totals, read at scrape time. */
  const fromStats = (suffix: string, help: string, counter: StatCounter): void => {
    new Counter({
      name: named(suffix),
      help,
      labelNames: ['type'] as const,
      registers,
      collect() {
        const stats = statsNow();
        this.reset();
        for (const type of BUCKETS) this.inc({ type }, stats[type][counter]);
      },
    });
  };
  fromStats('duplicates_total', 'Duplicate webhooks acknowledged and not run again', 'duplicates');
  fromStats('invalid_total', 'Webhook requests refused 400', 'invalid');
  fromStats('dead_letters_total', 'Events that exhausted their attempts', 'deadLettered');
  fromStats('unlisted_enum_values_total', 'Undocumented enum values accepted', 'unlistedEnumValues');

  new Counter({
    name: named('callbacks_total'),
    help: 'Callback attempts, by outcome',
    labelNames: ['type', 'outcome'] as const,
    registers,
    collect() {
      const stats = statsNow();
      this.reset();
      for (const type of WEBHOOK_TYPES) {
        this.inc({ type, outcome: 'success' }, stats[type].succeeded);
        this.inc({ type, outcome: 'failure' }, stats[type].failed);
      }
    },
  });
  const gauge = (suffix: string, help: string, read: (stats: WebhookStats, type: WebhookType) => number) =>
    new Gauge({
      name: named(suffix),
      help,
      labelNames: ['type'] as const,
      registers,
      collect() {
        const stats = statsNow();
        for (const type of WEBHOOK_TYPES) this.set({ type }, read(stats, type));
      },
    });
  gauge(
    'queue_depth',
    'Accepted events waiting to run (including those waiting for a retry)',
    (s, t) => s[t].queued,
  );
  gauge('callbacks_running', 'Callbacks running now', (s, t) => s[t].running);

  const observer: WebhookObserver = {
    answered(type, status, code, seconds) {
      const counts = answers[type];
      if (counts === undefined) return;
      const entry = counts[code];
      if (entry === undefined) counts[code] = { status, count: 1 };
      else entry.count += 1;
      if (seconds !== undefined) ackDuration.observe(type, seconds);
    },
    callbackSettled(type, seconds) {
      callbackDuration.observe(type, seconds);
    },
    retried(type) {
      const retries = retryCounts[type];
      if (retries !== undefined) retries.count += 1;
    },
  };
  pipeline.observe(observer);

  return {
    names,
    stop() {
      pipeline.observe(undefined);
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}
