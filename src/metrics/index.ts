/**
 * Prometheus metrics for a receiver, through `prom-client` (an optional peer dependency: only this
 * entry point loads it). `messaging-webhooks/metrics`.
 */
import { Counter, Gauge, Histogram, register as defaultRegistry, type Registry } from 'prom-client';
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
 * receiver whose metrics are not collected pays nothing.
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

  const requests = new Counter({
    name: named('requests_total'),
    help: 'Webhook requests answered, by answer status and code',
    labelNames: ['type', 'status', 'code'] as const,
    registers,
  });
  const ackDuration = new Histogram({
    name: named('ack_duration_seconds'),
    help: 'Time from the passed head checks to the answer (validate, dedupe, enqueue)',
    labelNames: ['type'] as const,
    buckets: [...(options.ackBuckets ?? DEFAULT_ACK_BUCKETS)],
    registers,
  });
  const rejected = new Counter({
    name: named('rejected_total'),
    help: 'Webhook requests answered 503, by reason',
    labelNames: ['type', 'reason'] as const,
    registers,
  });
  const callbackDuration = new Histogram({
    name: named('callback_duration_seconds'),
    help: 'Duration of callback attempts',
    labelNames: ['type'] as const,
    buckets: [...(options.callbackBuckets ?? DEFAULT_CALLBACK_BUCKETS)],
    registers,
  });
  const retries = new Counter({
    name: named('retries_total'),
    help: 'Failed callback attempts that will be retried',
    labelNames: ['type'] as const,
    registers,
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
      requests.inc({ type, status, code });
      if (status === REJECTED_STATUS) rejected.inc({ type, reason: code });
      if (seconds !== undefined) ackDuration.observe({ type }, seconds);
    },
    callbackSettled(type, seconds) {
      callbackDuration.observe({ type }, seconds);
    },
    retried(type) {
      retries.inc({ type });
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
