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
import { answerCounter } from '../pipeline/stats.js';
import type { JobObserver } from '../dispatch/runner.js';
import { WEBHOOK_TYPES } from '../schemas/index.js';
import { withTimeout } from '../util/timeout.js';

/** Anything that exposes its pipeline: the Express router, the node and fetch handlers, Fastify's `app.webhooks`. */
export interface ReceiverMetricsSource {
  readonly pipeline: WebhookPipeline;
}

/** A BullMQ queue as the worker metrics read it (BullMQ's `Queue`). */
export interface JobCountsSource {
  readonly name: string;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
}

/** A BullMQ worker of `messaging-webhooks/redis` (`createWorker`). */
export interface WorkerMetricsSource {
  observe(observer: JobObserver | undefined): void;
  stats(): WebhookStats;
  /** Partition queues, then the dead-letter queue (its name ends in `-dead`). */
  queues(): readonly JobCountsSource[];
}

/** What {@link collectMetrics} collects from: a receiver or a BullMQ worker. */
export type MetricsSource = ReceiverMetricsSource | WorkerMetricsSource;

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
  /**
   * Worker only: longest wait for BullMQ's job counts at a scrape; past it (or when Redis fails)
   * the queue gauges are left out of that scrape rather than failing it. @default 2000
   */
  readonly queueReadTimeoutMs?: number | undefined;
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

/**
 * The values of the `type` label. The rule for zero series: a series whose labels all come from
 * fixed sets (`type`, `outcome`) is exported from the first scrape, at 0, for each of these six
 * types, so `increase()` and alerts see the first event; a series labelled by what was answered
 * (`requests_total`'s `status` and `code`, `rejected_total`'s `reason`) and a histogram's series
 * appear with their first count, their label values being open-ended.
 */
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
    /** The series of each type, for the observer to resolve once per type rather than per call. */
    series,
    /** Adds one observation to a series of this histogram (no lookup, no allocation). */
    add(one: Series, seconds: number): void {
      let index = 0;
      while (index < upper.length && seconds > upper[index]!) index += 1;
      one.counts[index]! += 1;
      one.sum += seconds;
      one.count += 1;
    },
  };
}

/** The requests answered with one code, for one type. */
interface AnswerCount {
  readonly code: string;
  readonly status: number;
  count: number;
}

/** Everything the receiver's observer adds to for one type, found with one lookup per call. */
interface AnswerState {
  /** Every code seen, in order of first sight. */
  readonly codes: AnswerCount[];
  /** The code of the last answer: under load nearly every answer of a type has the same code. */
  last: AnswerCount | undefined;
  readonly ack: Series;
}

/** The entry of `code` in `state`, made on its first sight (then never again for that code). */
function answerCount(state: AnswerState, code: string, status: number): AnswerCount {
  for (const entry of state.codes) if (entry.code === code) return entry;
  const entry: AnswerCount = { code, status, count: 0 };
  state.codes.push(entry);
  return entry;
}

const DEFAULT_QUEUE_READ_TIMEOUT_MS = 2000;
/** BullMQ states of a job that waits to run (neither running nor finished). */
const WAITING_STATES = ['waiting', 'prioritized', 'delayed', 'paused', 'waiting-children'] as const;
const JOB_STATES = [...WAITING_STATES, 'active'] as const;

/** What both kinds of collection share: the registry, the names, the callback series. */
function createCollection(options: CollectMetricsOptions) {
  const registry = options.registry ?? defaultRegistry;
  const prefix = options.prefix ?? 'messaging_webhooks_';
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix) && prefix !== '') {
    throw new TypeError(`prefix: expected a Prometheus metric name prefix, got ${JSON.stringify(prefix)}`);
  }
  const registers = [registry];
  const names: string[] = [];
  const named = (suffix: string): string => {
    const name = `${prefix}${suffix}`;
    names.push(name);
    return name;
  };
  const stop = (): void => {
    for (const name of names) registry.removeSingleMetric(name);
  };
  return { registry, registers, names, named, stop };
}
type Collection = ReturnType<typeof createCollection>;

/**
 * One `stats()` read per scrape, shared by the metrics that read it (collect runs per metric,
 * all in the same scrape).
 */
function statsPerScrape(read: () => WebhookStats): () => WebhookStats {
  let snapshot: WebhookStats | undefined;
  let scrape: Promise<void> | undefined;
  return () => {
    if (snapshot === undefined) {
      snapshot = read();
      scrape ??= Promise.resolve().then(() => {
        snapshot = undefined;
        scrape = undefined;
      });
    }
    return snapshot;
  };
}

/**
 * The callback series, the same for a receiver and a worker: `callback_duration_seconds` and
 * `retries_total` fed by the observer, `callbacks_total` and `dead_letters_total` read from
 * `stats()`. Returns the observer's half.
 */
function callbackSeries(
  collection: Collection,
  options: CollectMetricsOptions,
  statsNow: () => WebhookStats,
): { readonly [K in keyof JobObserver]: JobObserver[K] } {
  const { registry, registers, named } = collection;
  const retryCounts = bucketTable(() => ({ count: 0 }));
  const callbackDuration = histogram(
    named('callback_duration_seconds'),
    'Duration of callback attempts',
    options.callbackBuckets ?? DEFAULT_CALLBACK_BUCKETS,
  );
  registry.registerMetric(callbackDuration.metric);
  new Counter({
    name: named('callbacks_total'),
    help: 'Callback attempts, by outcome',
    labelNames: ['type', 'outcome'] as const,
    registers,
    collect() {
      const stats = statsNow();
      this.reset();
      for (const type of BUCKETS) {
        this.inc({ type, outcome: 'success' }, stats[type].succeeded);
        this.inc({ type, outcome: 'failure' }, stats[type].failed);
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
      for (const type of BUCKETS) this.inc({ type }, retryCounts[type].count);
    },
  });
  new Counter({
    name: named('dead_letters_total'),
    help: 'Events that exhausted their attempts',
    labelNames: ['type'] as const,
    registers,
    collect() {
      const stats = statsNow();
      this.reset();
      for (const type of BUCKETS) this.inc({ type }, stats[type].deadLettered);
    },
  });
  const { series } = callbackDuration;
  return {
    callbackSettled: (type, seconds) => {
      const one = series[type];
      if (one !== undefined) callbackDuration.add(one, seconds);
    },
    retried: (type) => {
      const retries = retryCounts[type];
      if (retries !== undefined) retries.count += 1;
    },
  };
}

const isReceiver = (source: MetricsSource): source is ReceiverMetricsSource =>
  typeof (source as Partial<ReceiverMetricsSource> | undefined)?.pipeline?.observe === 'function';
const isWorker = (source: MetricsSource): source is WorkerMetricsSource => {
  const worker = source as Partial<WorkerMetricsSource> | undefined;
  return (
    typeof worker?.observe === 'function' &&
    typeof worker.queues === 'function' &&
    typeof worker.stats === 'function'
  );
};

/**
 * Registers the metrics of a receiver or of a BullMQ worker, per webhook type (label `type`;
 * `unknown` for requests whose type could not be told). Series labelled only by `type` (and
 * `outcome`) exist from the first scrape at 0 for all six `type` values; `requests_total`,
 * `rejected_total` and the histograms have a series once it counted something.
 *
 * A receiver (the Express router, the node and fetch handlers, Fastify's `app.webhooks`):
 *
 * | metric | type | labels |
 * | --- | --- | --- |
 * | `requests_total` | counter | `type`, `status`, `code` (`ok`, `duplicate` or the error code) |
 * | `ack_duration_seconds` | histogram | `type`: head checks passed → answer |
 * | `duplicates_total`, `invalid_total`, `unlisted_enum_values_total` | counter | `type` |
 * | `rejected_total` | counter | `type`, `reason`: the error code of every answer counted as `rejected` by `stats()` (an error status other than 400: `unauthorized`, `not_found`, `method_not_allowed`, `payload_too_large`, `unsupported_media_type`, …, and the 503s `queue_full`, `shutting_down`, `store_unavailable`, `claim_held`) |
 * | `queue_depth`, `callbacks_running` | gauge | `type`, read from `stats()` at scrape time |
 * | `callback_duration_seconds` | histogram | `type`, per attempt |
 * | `callbacks_total` | counter | `type`, `outcome` (`success`, `failure`), per attempt |
 * | `retries_total`, `dead_letters_total` | counter | `type` |
 *
 * A BullMQ worker (`createWorker` of `messaging-webhooks/redis`): the same callback series
 * (`callback_duration_seconds`, `callbacks_total`, `retries_total`, `dead_letters_total`, of this
 * worker process), and gauges read from BullMQ at scrape time, for the whole topology (every
 * worker process): `queue_depth` and `callbacks_running` per partition (label `queue`: jobs
 * waiting, delayed or prioritized; jobs active), and `dead_letter_queue_depth`, the jobs in
 * `<queueName>-dead`. A receiver and a worker in one process each need their own registry or
 * prefix (their names are the same).
 *
 * Totals that `stats()` keeps are read from it at scrape time (they count from the start); the
 * rest come from an observer the receiver or worker calls only while collection runs, so one whose
 * metrics are not collected pays nothing. One collection per receiver or worker at a time: a
 * second replaces the first's observer (call `stop()` on the first).
 *
 * @example
 * import { Registry } from 'prom-client';
 * import { collectMetrics } from 'messaging-webhooks/metrics';
 * const registry = new Registry();
 * collectMetrics(webhooks, { registry }); // or a worker: collectMetrics(worker, { registry })
 * app.get('/metrics', async (_req, res) => res.type(registry.contentType).send(await registry.metrics()));
 */
export function collectMetrics(source: MetricsSource, options: CollectMetricsOptions = {}): WebhookMetrics {
  if (isReceiver(source)) return collectReceiver(source.pipeline, options);
  if (isWorker(source)) return collectWorker(source, options);
  throw new TypeError(
    'collectMetrics: expected a receiver with a pipeline (router, handler or app.webhooks) or a BullMQ worker (createWorker)',
  );
}

function collectReceiver(pipeline: WebhookPipeline, options: CollectMetricsOptions): WebhookMetrics {
  const collection = createCollection(options);
  const { registry, registers, names, named } = collection;

  // The hot path only adds to plain numbers, per type and code; prom-client's labelled inc and
  // observe (a label hash each call) run at scrape time instead, once per series: calling
  // prom-client per request missed bench scenario 8's target and these plain counters hold it
  // (docs/bench.md), so they are hand-written and handed to prom-client's registry with its
  // standard output.
  const ackDuration = histogram(
    named('ack_duration_seconds'),
    'Time from the passed head checks to the answer (validate, dedupe, enqueue)',
    options.ackBuckets ?? DEFAULT_ACK_BUCKETS,
  );
  registry.registerMetric(ackDuration.metric);
  const answers = Object.create(null) as Record<StatsBucket, AnswerState>;
  for (const type of BUCKETS) answers[type] = { codes: [], last: undefined, ack: ackDuration.series[type] };
  const statsNow = statsPerScrape(() => pipeline.stats());
  const callbacks = callbackSeries(collection, options, statsNow);

  new Counter({
    name: named('requests_total'),
    help: 'Webhook requests answered, by answer status and code',
    labelNames: ['type', 'status', 'code'] as const,
    registers,
    collect() {
      this.reset();
      for (const type of BUCKETS) {
        for (const { code, status, count } of answers[type].codes) this.inc({ type, status, code }, count);
      }
    },
  });
  // The same split as stats(): `rejected` is every error answer but a 400 (answerCounter).
  new Counter({
    name: named('rejected_total'),
    help: 'Webhook requests refused with an error status other than 400, by reason (the error code)',
    labelNames: ['type', 'reason'] as const,
    registers,
    collect() {
      this.reset();
      for (const type of BUCKETS) {
        for (const { code, status, count } of answers[type].codes) {
          if (answerCounter(status) === 'rejected') this.inc({ type, reason: code }, count);
        }
      }
    },
  });

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
  fromStats('unlisted_enum_values_total', 'Undocumented enum values accepted', 'unlistedEnumValues');

  const gauge = (suffix: string, help: string, read: (stats: WebhookStats, type: StatsBucket) => number) =>
    new Gauge({
      name: named(suffix),
      help,
      labelNames: ['type'] as const,
      registers,
      collect() {
        const stats = statsNow();
        for (const type of BUCKETS) this.set({ type }, read(stats, type));
      },
    });
  gauge(
    'queue_depth',
    'Accepted events waiting to run (including those waiting for a retry)',
    (s, t) => s[t].queued,
  );
  gauge('callbacks_running', 'Callbacks running now', (s, t) => s[t].running);

  // Per answer: one lookup by type, one identity check of the code (the library's constants), two
  // additions and the histogram's bucket search; nothing allocated once a code was seen.
  const observer: WebhookObserver = {
    answered(type, status, code, seconds) {
      const state = answers[type];
      if (state === undefined) return;
      let entry = state.last;
      if (entry === undefined || entry.code !== code) state.last = entry = answerCount(state, code, status);
      entry.count += 1;
      if (seconds !== undefined) ackDuration.add(state.ack, seconds);
    },
    callbackSettled: callbacks.callbackSettled,
    retried: callbacks.retried,
  };
  pipeline.observe(observer);

  return {
    names,
    stop() {
      pipeline.observe(undefined);
      collection.stop();
    },
  };
}

function collectWorker(worker: WorkerMetricsSource, options: CollectMetricsOptions): WebhookMetrics {
  const timeoutMs = options.queueReadTimeoutMs ?? DEFAULT_QUEUE_READ_TIMEOUT_MS;
  if (!(timeoutMs > 0)) {
    throw new TypeError(`queueReadTimeoutMs: expected a positive number, got ${String(timeoutMs)}`);
  }
  const collection = createCollection(options);
  const { registers, names, named } = collection;
  const observer = callbackSeries(
    collection,
    options,
    statsPerScrape(() => worker.stats()),
  );
  const queues = worker.queues();

  // One BullMQ read per scrape, shared by the gauges that collect in it: it is dropped once it
  // settles, so the next scrape reads afresh.
  type Counts = readonly (readonly [string, Record<string, number>])[] | undefined;
  let reading: Promise<Counts> | undefined;
  const countsNow = (): Promise<Counts> => {
    reading ??= readCounts().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  // Redis down or hung: leave the queue gauges out of this scrape rather than fail it.
  const readCounts = (): Promise<Counts> =>
    withTimeout(
      Promise.all(
        queues.map(async (queue) => [queue.name, await queue.getJobCounts(...JOB_STATES)] as const),
      ).catch(() => undefined),
      timeoutMs,
      () => undefined,
    );
  const waiting = (counts: Record<string, number>): number =>
    WAITING_STATES.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
  const isDead = (queue: string): boolean => queue.endsWith('-dead');
  const byName = new Set(queues.map((queue) => queue.name).filter((queue) => !isDead(queue)));
  const deadNames = new Set(queues.map((queue) => queue.name).filter(isDead));

  const queueGauge = (
    suffix: string,
    help: string,
    names: ReadonlySet<string>,
    read: (counts: Record<string, number>) => number,
  ) =>
    new Gauge({
      name: named(suffix),
      help,
      labelNames: ['queue'] as const,
      registers,
      async collect() {
        const all = await countsNow();
        this.reset();
        for (const [queue, counts] of all ?? []) if (names.has(queue)) this.set({ queue }, read(counts));
      },
    });
  queueGauge(
    'queue_depth',
    'Jobs waiting to run in each partition queue (waiting, delayed, prioritized), from BullMQ',
    byName,
    waiting,
  );
  queueGauge(
    'callbacks_running',
    'Jobs running in each partition queue (active), from BullMQ',
    byName,
    (counts) => counts.active ?? 0,
  );
  queueGauge(
    'dead_letter_queue_depth',
    'Jobs in the dead-letter queue (<queueName>-dead), from BullMQ',
    deadNames,
    waiting,
  );

  worker.observe(observer);
  return {
    names,
    stop() {
      worker.observe(undefined);
      collection.stop();
    },
  };
}
