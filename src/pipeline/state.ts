import type { Logger } from 'pino';
import type { WebhookPipelineOptions } from './options.js';
import type { StatsRecorder } from './stats.js';
import type { RequestTracer, WebhookObserver } from './types.js';

/** Read at every answer and attempt; holds an observer or a tracer only while one is set. */
interface Probe {
  observer: WebhookObserver | undefined;
  tracer: RequestTracer | undefined;
}

/** What every stage of one pipeline shares, built once by `createWebhookPipeline`. */
export interface PipelineState {
  readonly options: WebhookPipelineOptions;
  readonly logger: Logger;
  /** Redaction (the default) logs no payload value: keys and unlisted values appear as logRefs. */
  readonly redactLogs: boolean;
  readonly stats: StatsRecorder;
  readonly probe: Probe;
  /** The `Retry-After` of every 503. */
  readonly retryAfter: number;
  /** Set by `close()`: every request is refused 503 from then on. */
  closing: boolean;
}
