// Performance imported, not the global: Node 20's global `performance` is a getter.
import { performance } from 'node:perf_hooks';
import { jsonAnswer, type WebhookError } from '../errors.js';
import type { PipelineState } from './state.js';
import { answerCounter, type StatsBucket } from './stats.js';
import type { AcceptedHead } from './types.js';

/** The acknowledgement of an accepted event. */
export const ACK_ANSWER = jsonAnswer(200, JSON.stringify({ received: true }));
/** The acknowledgement of an event already received. */
export const DUPLICATE_ANSWER = jsonAnswer(200, JSON.stringify({ received: true, duplicate: true }));

/** How a pipeline reports its answers: to the tracer's span, the observer, stats and the log. */
export interface Answers {
  /** Tells the tracer (given a span) and the observer (when one is set) about an answer. */
  readonly answered: (
    bucket: StatsBucket,
    status: number,
    code: string,
    startedAt: number | undefined,
    span?: unknown,
  ) => void;
  /** Counts, reports and logs a refusal; returns the error, to be answered. */
  readonly refuse: (
    bucket: StatsBucket,
    error: WebhookError,
    accepted?: AcceptedHead,
    span?: unknown,
  ) => WebhookError;
}

export function createAnswers({ probe, stats, logger }: PipelineState): Answers {
  function answered(
    bucket: StatsBucket,
    status: number,
    code: string,
    startedAt: number | undefined,
    span?: unknown,
  ): void {
    if (span !== undefined) probe.tracer?.answered(span, bucket, status, code);
    const observer = probe.observer;
    if (observer === undefined) return;
    observer.answered(
      bucket,
      status,
      code,
      startedAt === undefined ? undefined : (performance.now() - startedAt) / 1000,
    );
  }

  function refuse(
    bucket: StatsBucket,
    error: WebhookError,
    accepted?: AcceptedHead,
    span: unknown = accepted?.span,
  ): WebhookError {
    stats.inc(bucket, answerCounter(error.status));
    if (probe.observer !== undefined || span !== undefined)
      answered(bucket, error.status, error.code, accepted?.startedAt, span);
    logger.debug({ type: bucket, code: error.code }, 'webhook refused');
    return error;
  }

  return { answered, refuse };
}
